public import Foundation

/// The app-side store: StoreKit 2 on Apple platforms, Play Billing on Android, or MockStores' in-process store
/// in tests. OpenCat drives purchases through it.
public protocol StoreClient: Sendable {
    /// The store this client talks to.
    var store: Store { get }

    /// Loads products.
    /// - Parameter ids: the product ids to load; unknown ids are left out of the result.
    /// - Throws: any error of the store (OpenCat wraps it as `OpenCatError.store`).
    func products(for ids: Set<String>) async throws -> [Product]

    /// Starts a purchase and waits for its outcome.
    /// - Parameters:
    ///   - productId: the product to buy.
    ///   - appUserId: the app's user id, passed to the store where it supports one (appAccountToken,
    ///     obfuscatedAccountId).
    /// - Returns: the proof of a completed purchase, or `pending` / `cancelled`. A client that handed the store a
    ///   purchaser binding (an appAccountToken, an obfuscated account id) sets ``PurchaseProof/expectedPurchaser``
    ///   to that value, so that verification refuses a purchase made for someone else.
    /// - Throws: a store error when the purchase failed.
    func purchase(productId: String, appUserId: String) async throws -> StorePurchaseResult

    /// Proofs of every purchase that currently grants something (StoreKit's `Transaction.currentEntitlements`).
    func currentEntitlements() async throws -> [PurchaseProof]

    /// Proofs of transactions that happen outside a `purchase` call: renewals, refunds, purchases on other
    /// devices, approvals of pending purchases (StoreKit's `Transaction.updates`).
    func transactionUpdates() -> AsyncStream<PurchaseProof>

    /// Tells the store the purchase was delivered (StoreKit `finish()`, Play `acknowledge`/`consume`).
    func finish(_ proof: PurchaseProof) async throws
}

/// The outcome of ``StoreClient/purchase(productId:appUserId:)``.
public enum StorePurchaseResult: Sendable, Equatable {
    /// The store completed the purchase and handed over its proof.
    case success(PurchaseProof)
    /// The purchase awaits something outside the app (Ask to Buy, a slow payment method).
    case pending
    /// The user dismissed the purchase.
    case cancelled
}

/// Verifies a store's proof of purchase: how standalone mode checks purchases on the device.
///
/// `StoreAdapters` provides conformances for Apple, Google, Stripe, PayPal and Steam. OpenCatCore does not
/// depend on it: the protocol lives here and the implementation above.
public protocol PurchaseVerifier: Sendable {
    /// Verifies a proof with the store's real protocol.
    /// - Returns: the transaction it proves, and the store's own time of confirmation if it gives one.
    /// - Throws: when the proof is not genuine or cannot be checked; the error carries the store's reason.
    func verifyPurchase(_ proof: PurchaseProof) async throws -> VerifiedTransaction
}

/// A transaction as confirmed by a store.
public struct VerifiedTransaction: Sendable, Hashable {
    /// The transaction.
    public var transaction: TransactionInfo
    /// When the store vouched for it (a JWS `signedDate`, a server's response time). OpenCat never lets its
    /// reference time for expiry fall behind the latest such time.
    public var confirmedAt: Date?
    /// The store's reading of the current time when it answered (an HTTP `Date` header, a freshly signed
    /// answer), if any: evidence of the real time now, unlike a signed date that may be old. It corrects a
    /// device clock that runs ahead.
    public var currentTime: Date?

    /// Creates a verified transaction.
    public init(transaction: TransactionInfo, confirmedAt: Date? = nil, currentTime: Date? = nil) {
        self.transaction = transaction
        self.confirmedAt = confirmedAt
        self.currentTime = currentTime
    }
}

import Foundation
import HTTPTypes
public import KeyServerAPI
import Logging
public import OpenCatCore

/// The key server's API (`/api/v1`, Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml): key-pack purchases on five platforms, the key
/// wallet, app features, the community pool and key sync. Every call carries the user's bearer token; purchases and
/// spends carry an `Idempotency-Key`, so a retry never buys or spends twice.
///
/// Errors are ``KeyServerError``s. Nothing here stores anything: ``KeyVault`` keeps keys and the wallet offline.
public struct KeyServerClient: Sendable {
    /// Where the server is, the bearer token, the transport, clock and retry policy.
    public let configuration: KeyServerConfiguration
    let http: HTTPClient

    /// A client for one key server and one bearer token.
    public init(configuration: KeyServerConfiguration) {
        self.configuration = configuration
        self.http = configuration.httpClient
    }

    // MARK: Purchases

    /// Sends the proof of a key-pack purchase; the server verifies it with the store and mints keys.
    /// - Parameters:
    ///   - proof: Apple signed transaction, Google purchase token (with its product id), Stripe PaymentIntent id,
    ///     PayPal order id or Steam transaction id; for a store beside the five, the proof its adapter on the server
    ///     reads (sent with its kind to `POST /api/v1/keys/purchase/{store}`).
    ///   - email: the account's email (Apple, Google, Stripe, PayPal, another store).
    ///   - steamId: the buyer's Steam id (Steam).
    ///   - idempotencyKey: the same key for every retry of this purchase (default: derived from the proof).
    public func purchaseKeyPack(
        _ proof: PurchaseProof,
        email: String? = nil,
        steamId: String? = nil,
        idempotencyKey: String? = nil
    ) async throws(KeyServerError) -> KeyPurchaseResult {
        let token = proof.token.revealed
        func userEmail() throws(KeyServerError) -> String {
            guard let email, EmailAddress.isValid(email) else {
                throw KeyServerError(.invalidInput, "a key-pack purchase on \(proof.store) needs a valid email")
            }
            return email
        }
        // A store beside the five: its adapter on the server reads the proof by its kind.
        guard let platform = Platform(rawValue: proof.store.rawValue) else {
            let body = KeyPurchaseRequest.other(
                kind: proof.kind.rawValue,
                proof: token,
                productId: proof.productId,
                transactionId: proof.transactionId,
                userEmail: try userEmail()
            )
            return try await purchase(body, path: try Self.segment(proof.store.rawValue), proof, idempotencyKey)
        }
        let body: KeyPurchaseRequest
        switch platform {
        case .apple: body = .apple(transaction: token, userEmail: try userEmail())
        case .google:
            guard let productId = proof.productId else {
                throw KeyServerError(.invalidInput, "a Google purchase needs its product id")
            }
            body = .google(purchaseToken: token, productId: productId, userEmail: try userEmail())
        case .stripe: body = .stripe(paymentIntentId: token, userEmail: try userEmail())
        case .paypal: body = .paypal(paymentId: token, userEmail: try userEmail())
        case .steam:
            guard let steamId, SteamID.isValid(steamId) else {
                throw KeyServerError(.invalidInput, "a Steam purchase needs the buyer's 64-bit Steam id")
            }
            body = .steam(steamId: steamId, transactionId: token)
        }
        return try await purchase(body, path: platform.rawValue, proof, idempotencyKey)
    }

    /// `POST /keys/purchase/{path}` with the proof's idempotency key (the caller's, or one derived from the proof).
    private func purchase(
        _ body: KeyPurchaseRequest,
        path: String,
        _ proof: PurchaseProof,
        _ idempotencyKey: String?
    ) async throws(KeyServerError) -> KeyPurchaseResult {
        try await api.call(
            .post,
            "/keys/purchase/\(path)",
            body: body,
            idempotencyKey: idempotencyKey ?? "purchase-\(proof.store.rawValue)-\(proof.fingerprint)"
        )
    }

    // MARK: Wallet

    /// The wallet as the server holds it: balance (negative while a refund left a debt), unlocked features.
    /// - Throws: ``KeyServerError`` (`unauthorized` for another user's wallet, `network`, …).
    public func walletBalance(userId: String) async throws(KeyServerError) -> WalletState {
        try await api.call(.get, "/wallet/\(try Self.segment(userId))")
    }

    /// Spends keys on a feature. Pass the same `idempotencyKey` on every retry of one spend.
    public func spendKeys(amount: Int, feature: String, app: String, userId: String, idempotencyKey: String)
        async throws(KeyServerError) -> SpendResult
    {
        guard amount > 0 else { throw KeyServerError(.invalidInput, "a spend is of one key or more") }
        return try await api.call(
            .post,
            "/wallet/spend",
            body: SpendRequest(amount: amount, feature: feature, app: app, userId: userId),
            idempotencyKey: idempotencyKey
        )
    }

    /// Asks the server to settle the wallet (keys waiting for this account are received) and returns it.
    /// - Throws: ``KeyServerError``.
    public func syncWallet(userId: String) async throws(KeyServerError) -> WalletState {
        // A fresh key per sync: a retry of this one request is safe, but a later sync must get the wallet as it is then.
        try await api.call(
            .post,
            "/wallet/sync",
            body: WalletSyncRequest(userId: userId),
            idempotencyKey: "sync-\(UUID().uuidString)"
        )
    }

    /// The wallet's whole history, oldest first, following the server's page cursors (at most
    /// `maximumHistoryPages` pages).
    /// - Throws: ``KeyServerError``.
    public func walletHistory(userId: String) async throws(KeyServerError) -> [WalletTransaction] {
        let path = "/wallet/history/\(try Self.segment(userId))"
        var page = try await api.call(.get, path, as: WalletHistoryPage.self)
        var transactions = page.transactions
        // The server answers a page at a time: follow its cursors to the end (bounded, in case one never ends).
        var pages = 1
        while let cursor = page.nextCursor, pages < Self.maximumHistoryPages {
            page = try await api.call(
                .get,
                path,
                query: [("limit", "1000"), ("cursor", cursor)],
                as: WalletHistoryPage.self
            )
            transactions += page.transactions
            pages += 1
        }
        return transactions
    }

    /// The most history pages ``walletHistory(userId:)`` follows (1,000 entries each).
    static let maximumHistoryPages = 1_000

    // MARK: Apps

    /// The features an app sells for keys, with their prices in keys.
    /// - Throws: ``KeyServerError`` (`notFound` for an unknown app).
    public func appFeatures(appId: String) async throws(KeyServerError) -> [AppFeature] {
        try await api.call(.get, "/apps/\(try Self.segment(appId))/features", as: AppFeatureList.self).features
    }

    /// Unlocks a feature of an app with keys from the user's wallet. Pass the same `idempotencyKey` on every retry.
    /// - Throws: ``KeyServerError`` (`insufficientBalance`, `notFound`, …).
    public func unlockFeature(featureId: String, appId: String, userId: String, idempotencyKey: String)
        async throws(KeyServerError) -> UnlockResult
    {
        try await api.call(
            .post,
            "/apps/\(try Self.segment(appId))/unlock",
            body: UnlockRequest(featureId: featureId, userId: userId),
            idempotencyKey: idempotencyKey
        )
    }

    /// The features of an app the user has unlocked.
    /// - Throws: ``KeyServerError``.
    public func unlockedFeatures(appId: String, userId: String) async throws(KeyServerError) -> [String] {
        try await api.call(
            .get,
            "/apps/\(try Self.segment(appId))/unlocked/\(try Self.segment(userId))",
            as: UnlockedFeatureList.self
        ).features
    }

    // MARK: Community

    /// Gives keys from the user's wallet to the community pool. Pass the same `idempotencyKey` on every retry.
    /// - Throws: ``KeyServerError`` (`invalidInput` for zero keys, `insufficientBalance`, …).
    public func donateKeys(amount: Int, userId: String, idempotencyKey: String) async throws(KeyServerError)
        -> DonationResult
    {
        guard amount > 0 else { throw KeyServerError(.invalidInput, "a donation is of one key or more") }
        return try await api.call(
            .post,
            "/community/donate",
            body: DonationRequest(amount: amount, userId: userId),
            idempotencyKey: idempotencyKey
        )
    }

    /// Gives keys to another person by email (held for them until they sign in). Pass the same `idempotencyKey` on
    /// every retry.
    /// - Throws: ``KeyServerError`` (`invalidInput` for zero keys or a bad email, `insufficientBalance`, …).
    public func shareKeys(amount: Int, recipientEmail: String, userId: String, idempotencyKey: String)
        async throws(KeyServerError) -> ShareResult
    {
        guard amount > 0 else { throw KeyServerError(.invalidInput, "a share is of one key or more") }
        guard EmailAddress.isValid(recipientEmail) else {
            throw KeyServerError(.invalidInput, "the recipient's email is not valid")
        }
        return try await api.call(
            .post,
            "/community/share",
            body: ShareRequest(amount: amount, recipientEmail: recipientEmail, userId: userId),
            idempotencyKey: idempotencyKey
        )
    }

    /// The community pool: the keys donated and still available.
    /// - Throws: ``KeyServerError``.
    public func communityPool() async throws(KeyServerError) -> CommunityPool {
        try await api.call(.get, "/community/pool")
    }

    // MARK: Key sync

    /// Every key of the signed-in account, by its email (the server answers for the token's own account only).
    public func keys(email: String) async throws(KeyServerError) -> VUUserKeySync {
        guard EmailAddress.isValid(email) else { throw KeyServerError(.invalidInput, "the email is not valid") }
        return try await api.call(.get, "/keys/email/\(try Self.segment(email))")
    }

    /// Every key of the signed-in Steam account.
    public func keys(steamId: String) async throws(KeyServerError) -> VUUserKeySync {
        guard SteamID.isValid(steamId) else { throw KeyServerError(.invalidInput, "not a 64-bit Steam id") }
        return try await api.call(.get, "/keys/steam/\(steamId)")
    }
}

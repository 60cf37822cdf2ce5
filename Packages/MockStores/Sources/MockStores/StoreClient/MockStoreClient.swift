import Foundation
public import OpenCatCore
import Synchronization

/// An in-process store for OpenCatCore's `StoreClient` seam: products set up front, purchases whose outcome is
/// scripted per product, subscription renewals driven by a test clock, refunds, and a transaction-updates stream.
/// Lets an app test its purchase flows on Linux CI with no store at all.
///
/// ```swift
/// let clock = ManualClock()
/// let store = MockStoreClient(store: .apple, products: [monthly], clock: clock)
/// store.setOutcome(.pending, for: "pro_monthly")
/// #expect(try await store.purchase(productId: "pro_monthly", appUserId: "u1") == .pending)
/// let proof = try store.approvePendingPurchase(productId: "pro_monthly")   // also on transactionUpdates()
/// clock.advance(by: .seconds(31 * 86_400))
/// let renewals = try store.advanceRenewals()                              // one renewal, emitted too
/// ```
///
/// Deterministic: transaction ids count up from `1000000000000001`; renewals happen only when
/// ``advanceRenewals()`` is called, for every period that ended by the clock's current date.
public final class MockStoreClient: StoreClient {
    struct Chain {
        var willRenew = true
    }

    struct State {
        var outcomes: [String: PurchaseOutcome] = [:]
        var queued: [String: [PurchaseOutcome]] = [:]
        var pending: [(productId: String, appUserId: String)] = []
        var ledger: [(transaction: Transaction, proof: PurchaseProof)] = []
        var chains: [String: Chain] = [:]
        var finished: [String] = []
        var subscribers: [UInt64: AsyncStream<PurchaseProof>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var nextTransaction: UInt64 = 1_000_000_000_000_001
        var purchaseCalls = 0

        mutating func makeTransactionId() -> String {
            defer { nextTransaction += 1 }
            return String(nextTransaction)
        }
    }

    /// The store this client stands for.
    public let store: Store
    /// The products on sale, by id.
    public let catalog: [String: Product]
    /// The clock that dates purchases and decides renewals.
    public let clock: any WallClock
    let minter: ProofMinter
    let state = Mutex(State())

    /// Creates a store.
    /// - Parameters:
    ///   - store: the store it stands for.
    ///   - products: the products on sale (subscriptions need an ISO 8601 `subscriptionPeriod`).
    ///   - clock: dates purchases and drives renewals (a `ManualClock` in tests).
    ///   - minter: turns transactions into proofs (default ``defaultMinter``; for Apple JWS use
    ///     `MockAppleCA/transactionMinter(bundleId:environment:)`).
    public init(
        store: Store,
        products: [Product],
        clock: any WallClock = SystemClock(),
        minter: @escaping ProofMinter = MockStoreClient.defaultMinter
    ) {
        self.store = store
        self.catalog = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.clock = clock
        self.minter = minter
    }

    // MARK: Scripting

    /// Sets what every later purchase of a product does (default ``PurchaseOutcome/success``).
    public func setOutcome(_ outcome: PurchaseOutcome, for productId: String) {
        state.withLock { $0.outcomes[productId] = outcome }
    }

    /// Queues outcomes for the next purchases of a product, used once each before ``setOutcome(_:for:)``'s.
    public func enqueueOutcomes(_ outcomes: [PurchaseOutcome], for productId: String) {
        state.withLock { $0.queued[productId, default: []].append(contentsOf: outcomes) }
    }

    /// Turns automatic renewal of a subscription on or off (off: it expires at the end of its period).
    /// - Parameters:
    ///   - willRenew: whether it renews.
    ///   - originalTransactionId: the subscription's first transaction id.
    public func setWillRenew(_ willRenew: Bool, originalTransactionId: String) {
        state.withLock { $0.chains[originalTransactionId, default: Chain()].willRenew = willRenew }
    }

    // MARK: StoreClient

    /// The products among `ids` that are on sale.
    public func products(for ids: Set<String>) async throws -> [Product] {
        ids.sorted().compactMap { catalog[$0] }
    }

    /// Buys a product with the scripted outcome.
    /// - Returns: `.success(proof)`, `.pending` or `.cancelled`.
    /// - Throws: ``MockStoreClientError/unknownProduct(_:)``; the scripted error of ``PurchaseOutcome/failed(_:)``;
    ///   what the minter throws.
    public func purchase(productId: String, appUserId: String) async throws -> StorePurchaseResult {
        guard catalog[productId] != nil else { throw MockStoreClientError.unknownProduct(productId) }
        let outcome: PurchaseOutcome = state.withLock { state in
            state.purchaseCalls += 1
            if var queue = state.queued[productId], !queue.isEmpty {
                let next = queue.removeFirst()
                state.queued[productId] = queue
                return next
            }
            return state.outcomes[productId] ?? .success
        }
        switch outcome {
        case .success:
            return .success(try record(productId: productId, appUserId: appUserId, reason: .purchase))
        case .pending:
            state.withLock { $0.pending.append((productId, appUserId)) }
            return .pending
        case .cancelled:
            return .cancelled
        case .failed(let error):
            throw error
        }
    }

    /// Proofs of every transaction that grants access now: unrefunded non-consumables, and the latest transaction of
    /// each subscription whose period has not ended.
    public func currentEntitlements() async throws -> [PurchaseProof] {
        let now = clock.currentDate
        return state.withLock { state in
            var latest: [String: (transaction: Transaction, proof: PurchaseProof)] = [:]
            for entry in state.ledger { latest[entry.transaction.originalTransactionId] = entry }
            return latest.values.filter { $0.transaction.isActive(at: now) }
                .sorted { $0.transaction.transactionId < $1.transaction.transactionId }
                .map(\.proof)
        }
    }

    /// A stream of proofs for transactions that happen outside `purchase`: approvals of pending purchases, purchases
    /// made elsewhere, renewals and refunds. Each call returns a new stream that receives the events after it.
    public func transactionUpdates() -> AsyncStream<PurchaseProof> {
        let (stream, continuation) = AsyncStream<PurchaseProof>.makeStream()
        let id = state.withLock { state in
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Records that the app delivered a purchase (see ``finishedTransactions``).
    public func finish(_ proof: PurchaseProof) async throws {
        let id = proof.transactionId ?? proof.fingerprint
        state.withLock { $0.finished.append(id) }
    }

    // MARK: Inspection

    /// Every transaction in the ledger (the latest version of each), in creation order.
    public var transactions: [Transaction] { state.withLock { $0.ledger.map(\.transaction) } }

    /// The ids passed to ``finish(_:)`` (a proof's transaction id, or its fingerprint without one), in order.
    public var finishedTransactions: [String] { state.withLock { $0.finished } }

    /// How many times ``purchase(productId:appUserId:)`` was called.
    public var purchaseCallCount: Int { state.withLock { $0.purchaseCalls } }

    /// The product ids of pending purchases, oldest first.
    public var pendingPurchases: [String] { state.withLock { $0.pending.map(\.productId) } }

    // MARK: Private

    func record(productId: String, appUserId: String, reason: Transaction.Reason) throws -> PurchaseProof {
        let product = catalog[productId]!
        let now = clock.currentDate
        var expiration: Date?
        if product.type == .autoRenewable || product.type == .nonRenewing, let text = product.subscriptionPeriod {
            guard let period = SubscriptionPeriod(iso8601: text), let end = period.added(to: now) else {
                throw MockStoreClientError.invalidSubscriptionPeriod(productId)
            }
            expiration = end
        } else if product.type == .autoRenewable {
            throw MockStoreClientError.invalidSubscriptionPeriod(productId)
        }
        let id = state.withLock { $0.makeTransactionId() }
        let transaction = Transaction(
            transactionId: id,
            originalTransactionId: id,
            productId: productId,
            productType: product.type,
            store: store,
            appUserId: appUserId,
            purchaseDate: now,
            expirationDate: expiration,
            price: product.price,
            reason: reason,
            eventDate: now
        )
        let proof = try minter(transaction)
        state.withLock { $0.ledger.append((transaction, proof)) }
        return proof
    }

    func emit(_ proofs: [PurchaseProof]) {
        guard !proofs.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for proof in proofs {
            for subscriber in subscribers { subscriber.yield(proof) }
        }
    }
}

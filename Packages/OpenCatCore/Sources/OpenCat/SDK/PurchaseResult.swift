import OpenCatCore

/// The outcome of ``OpenCat/purchase(productID:)``. A cancelled purchase throws `purchaseCancelled` instead.
public struct PurchaseResult: Sendable, Hashable {
    /// Where the purchase stands.
    public enum Status: String, Sendable, Hashable {
        /// Verified (standalone) or accepted by the server (server mode); entitlements are updated.
        case completed
        /// The store has not completed the payment yet (Ask to Buy, slow payment methods). The transaction
        /// updates stream will deliver it when it completes.
        case pending
        /// The store completed the purchase but it could not be verified or posted yet (offline). It is kept in
        /// the durable outbox and delivered on the next sync.
        case awaitingSync
    }

    /// Where the purchase stands.
    public var status: Status
    /// The verified transaction, when ``status`` is `completed`.
    public var transaction: TransactionInfo?
    /// The customer info after the purchase.
    public var customerInfo: CustomerInfo
}

/// What ``OpenCat/syncPendingPurchases()`` did.
public struct SyncReport: Sendable, Hashable {
    /// Purchases delivered (verified or posted) in this sync.
    public var delivered: Int
    /// Purchases still waiting (the store or server was unreachable).
    public var stillPending: Int
    /// Purchases refused for good (forged, for another app, …).
    public var rejected: Int
    /// Outbox entries that cannot be read (damaged, or written by a newer version): kept, not delivered.
    public var unreadable: Int
    /// Purchases that failed five times for a reason waiting does not cure (credentials refused, an
    /// unreadable answer): kept, skipped by background syncs, tried again by a purchase or restore.
    public var stalled: Int = 0
    /// Failures to write or read the local outbox since the SDK started (each is also logged).
    public var storageFailures: Int = 0

    /// Creates a report.
    public init(delivered: Int, stillPending: Int, rejected: Int, unreadable: Int = 0) {
        self.delivered = delivered
        self.stillPending = stillPending
        self.rejected = rejected
        self.unreadable = unreadable
    }
}

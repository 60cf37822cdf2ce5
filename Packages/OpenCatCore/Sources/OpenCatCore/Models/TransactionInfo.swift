public import Foundation

/// One purchase as the entitlement engine sees it.
public struct TransactionInfo: Codable, Sendable, Hashable {
    /// The state of a transaction.
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable {
        /// Paid and in force (for a subscription: within its period).
        case active
        /// A subscription whose period has ended.
        case expired
        /// Refunded or revoked by the store: grants nothing.
        case refunded
        /// Renewal failed but the store keeps access during a grace period: grants access.
        case gracePeriod
        /// Renewal failed and the store is retrying billing without granting access (Google "on hold").
        case billingRetry
        /// Payment not yet complete (deferred, processing): grants nothing yet.
        case pending
    }

    /// The store's transaction id.
    public var transactionId: String
    /// The store's original transaction id (the first purchase of a subscription), if any.
    public var originalTransactionId: String?
    /// The product bought.
    public var productId: String
    /// The store it was bought on.
    public var store: Store
    /// When it was bought.
    public var purchaseDate: Date
    /// When access ends; `nil` for a lifetime (non-consumable) purchase.
    public var expirationDate: Date?
    /// When a grace period ends, if the store says.
    public var gracePeriodExpirationDate: Date?
    /// The state.
    public var status: Status
    /// Whether the subscription is set to renew.
    public var willRenew: Bool

    /// Creates a transaction.
    public init(
        transactionId: String,
        originalTransactionId: String? = nil,
        productId: String,
        store: Store,
        purchaseDate: Date,
        expirationDate: Date? = nil,
        gracePeriodExpirationDate: Date? = nil,
        status: Status,
        willRenew: Bool = false
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.store = store
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.status = status
        self.willRenew = willRenew
    }
}

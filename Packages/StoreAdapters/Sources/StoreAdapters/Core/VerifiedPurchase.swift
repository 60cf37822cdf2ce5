public import Foundation
public import OpenCatCore

/// A purchase as confirmed by a store: the one result every ``StoreAdapter`` returns.
public struct VerifiedPurchase: Sendable, Hashable, Codable {
    /// Where the purchase stands.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Paid and in force.
        case active
        /// Payment not complete yet (deferred, processing, awaiting capture by the buyer's bank).
        case pending
        /// A subscription whose period ended.
        case expired
        /// Refunded (fully or partly), charged back or revoked.
        case refunded
        /// Renewal failed; access continues during the store's grace period.
        case gracePeriod
        /// Renewal failed; the store retries billing and access is suspended (Google "on hold").
        case billingRetry
    }

    /// The store's environment.
    public enum Environment: String, Sendable, Hashable, Codable {
        /// Real money.
        case production
        /// Test purchases (App Store sandbox, Play test cards, Stripe test mode, PayPal sandbox, Steam sandbox).
        case sandbox
    }

    /// The store.
    public var store: Store
    /// The store's id for this transaction (Apple transactionId, Google orderId, Stripe PaymentIntent id,
    /// PayPal capture id, Steam transid).
    public var transactionId: String
    /// The id of the first transaction of a subscription, where the store has one.
    public var originalTransactionId: String?
    /// The product bought.
    public var productId: String
    /// Who bought it, as the store reports it (appAccountToken, obfuscatedExternalAccountId, e-mail, steamid).
    public var purchaser: String?
    /// When it was bought.
    public var purchaseDate: Date
    /// When access ends, for subscriptions and other time-limited purchases.
    public var expirationDate: Date?
    /// When the grace period ends, if the store says.
    public var gracePeriodExpirationDate: Date?
    /// Where the purchase stands.
    public var state: State
    /// Production or sandbox.
    public var environment: Environment
    /// How many units (consumables).
    public var quantity: Int
    /// The exact price paid, if the store reports it.
    public var price: Money?
    /// The amount refunded so far, if any.
    public var refundedAmount: Money?
    /// Whether the subscription will renew.
    public var willRenew: Bool
    /// Whether the adapter finalized the purchase with the store during this verification (Google
    /// acknowledge, PayPal capture, Steam FinalizeTxn).
    public var finalizedByAdapter: Bool
    /// The store's own status text (for diagnosis: `"succeeded"`, `"COMPLETED"`, `"Succeeded"`, …).
    public var storeStatus: String?
    /// When the store vouched for this answer (signedDate, response time), if known.
    public var verifiedAt: Date?

    /// Creates a result.
    public init(
        store: Store,
        transactionId: String,
        originalTransactionId: String? = nil,
        productId: String,
        purchaser: String? = nil,
        purchaseDate: Date,
        expirationDate: Date? = nil,
        gracePeriodExpirationDate: Date? = nil,
        state: State,
        environment: Environment,
        quantity: Int = 1,
        price: Money? = nil,
        refundedAmount: Money? = nil,
        willRenew: Bool = false,
        finalizedByAdapter: Bool = false,
        storeStatus: String? = nil,
        verifiedAt: Date? = nil
    ) {
        self.store = store
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.purchaser = purchaser
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.state = state
        self.environment = environment
        self.quantity = quantity
        self.price = price
        self.refundedAmount = refundedAmount
        self.willRenew = willRenew
        self.finalizedByAdapter = finalizedByAdapter
        self.storeStatus = storeStatus
        self.verifiedAt = verifiedAt
    }

    /// The transaction as OpenCatCore's entitlement engine sees it.
    public var transactionInfo: TransactionInfo {
        let status: TransactionInfo.Status
        switch state {
        case .active: status = .active
        case .pending: status = .pending
        case .expired: status = .expired
        case .refunded: status = .refunded
        case .gracePeriod: status = .gracePeriod
        case .billingRetry: status = .billingRetry
        }
        return TransactionInfo(
            transactionId: transactionId,
            originalTransactionId: originalTransactionId,
            productId: productId,
            store: store,
            purchaseDate: purchaseDate,
            expirationDate: expirationDate,
            gracePeriodExpirationDate: gracePeriodExpirationDate,
            status: status,
            willRenew: willRenew,
            environment: environment == .production ? .production : .sandbox,
            purchaser: purchaser
        )
    }
}

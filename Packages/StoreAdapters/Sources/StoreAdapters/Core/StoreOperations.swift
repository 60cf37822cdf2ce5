import Foundation
public import OpenCatCore

/// An operation a server performs on a store for support (refund, cancel, look up), as opposed to verifying a
/// proof. An open set: its raw value is what the CLI and the conformance matrix name.
public struct StoreOperation: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The operation's name (`refund`).
    public let rawValue: String
    /// An operation from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The operation's name.
    public var description: String { rawValue }

    /// A customer's purchases, a page at a time.
    public static let transactionHistory = StoreOperation(rawValue: "history")
    /// A full or partial refund.
    public static let refund = StoreOperation(rawValue: "refund")
    /// A subscription cancelled, now or at the end of its period.
    public static let cancelSubscription = StoreOperation(rawValue: "cancel")
    /// The refunds a customer was given (Apple Get Refund History).
    public static let refundHistory = StoreOperation(rawValue: "refund-history")
    /// A subscription's renewal moved later (Apple Extend a Subscription Renewal Date, Google defer).
    public static let extendSubscription = StoreOperation(rawValue: "extend")
    /// Every subscriber of a product extended at once, and the request's status (Apple only).
    public static let extendAllSubscriptions = StoreOperation(rawValue: "extend-all")
    /// A consumable marked consumed so it can be bought again (Google).
    public static let consume = StoreOperation(rawValue: "consume")
    /// A purchase acknowledged so the store does not refund it after three days (Google).
    public static let acknowledge = StoreOperation(rawValue: "acknowledge")
    /// A subscription revoked: access ends now and the store refunds it (Google subscriptionsv2 revoke).
    public static let revoke = StoreOperation(rawValue: "revoke")
    /// A subscription's billing paused (PayPal suspend).
    public static let suspendSubscription = StoreOperation(rawValue: "suspend")
    /// A paused or suspended subscription's billing resumed (PayPal activate, Stripe resume).
    public static let resumeSubscription = StoreOperation(rawValue: "resume")
    /// The purchases of an order id from a customer's receipt (Apple Look Up Order ID, Google `orders.get`).
    public static let lookUpOrder = StoreOperation(rawValue: "lookup-order")
    /// The consumption information Apple asks for when a customer requests a refund (Apple only).
    public static let sendConsumption = StoreOperation(rawValue: "consumption")
    /// The notifications the store sent or tried to send (Apple Get Notification History).
    public static let notificationHistory = StoreOperation(rawValue: "notification-history")
    /// A test notification sent to the server's URL, and its delivery status (Apple only).
    public static let testNotification = StoreOperation(rawValue: "test-notification")
    /// The app account token of a purchase set after the fact (Apple Set App Account Token).
    public static let setAppAccountToken = StoreOperation(rawValue: "set-app-account-token")
    /// The customer's purchase or download of the app itself, by any of their transaction ids (Apple Get App
    /// Transaction Info).
    public static let appTransaction = StoreOperation(rawValue: "app-transaction")
    /// A refund read by its id, with its status (Stripe Retrieve a refund, PayPal Show refund details).
    public static let refundStatus = StoreOperation(rawValue: "refund-status")
    /// A payment's refunds, a page at a time (Stripe List all refunds).
    public static let refunds = StoreOperation(rawValue: "refunds")
    /// A refund still waiting for the customer cancelled (Stripe Cancel a refund).
    public static let cancelRefund = StoreOperation(rawValue: "cancel-refund")
    /// The purchases of several order ids in one call (Google `orders.batchget`).
    public static let lookUpOrders = StoreOperation(rawValue: "lookup-orders")
    /// A customer's subscriptions of every status (Apple Get All Subscription Statuses, Stripe List subscriptions).
    public static let subscriptions = StoreOperation(rawValue: "subscriptions")
    /// A customer's invoices (Stripe List all invoices).
    public static let invoices = StoreOperation(rawValue: "invoices")
    /// A one-time purchase read by its purchase token alone, the store naming the product (Google
    /// `purchases.productsv2.getproductpurchasev2`).
    public static let productPurchase = StoreOperation(rawValue: "product-purchase")

    /// The operations every store is asked about, in the order the matrix lists them.
    public static let all: [StoreOperation] = [
        .transactionHistory, .refund, .refundHistory, .cancelSubscription, .extendSubscription,
        .extendAllSubscriptions, .consume, .acknowledge, .revoke, .suspendSubscription, .resumeSubscription,
        .lookUpOrder, .refundStatus, .subscriptions, .refunds, .cancelRefund, .invoices, .lookUpOrders,
        .productPurchase, .sendConsumption, .notificationHistory, .testNotification, .setAppAccountToken,
        .appTransaction,
    ]
}

/// Whether a store offers an operation, and if not why (the matrix's n.a. with a reason).
public struct StoreOperationSupport: Sendable, Hashable {
    /// Whether the adapter performs it.
    public var isSupported: Bool
    /// Why not, when it does not.
    public var reason: String?

    /// Supported.
    public static let supported = StoreOperationSupport(isSupported: true, reason: nil)
    /// Not offered, and why.
    public static func unsupported(_ reason: String) -> StoreOperationSupport {
        StoreOperationSupport(isSupported: false, reason: reason)
    }
}

/// A refund to ask a store for.
public struct StoreRefundRequest: Sendable, Hashable {
    /// The purchase, by the id the store refunds by (a PaymentIntent, a PayPal capture, a Google order id).
    public var transactionId: String
    /// How much, exactly; `nil` refunds what is left of the payment.
    public var amount: Money?
    /// Makes a repeated request harmless (`Idempotency-Key`, `PayPal-Request-Id`). By default: derived from the
    /// transaction for a full refund; new for each partial refund request (give your own, one per form shown or job
    /// run, to make a resubmitted partial refund harmless too).
    public var idempotencyKey: String
    /// The purchase to read again afterwards, where the refunded id alone cannot be verified (a Google order id's
    /// purchase token); `nil` where the store verifies by the refunded id.
    public var proof: PurchaseProof?

    /// A request; by default a full refund keyed by the transaction id.
    public init(
        transactionId: String,
        amount: Money? = nil,
        idempotencyKey: String? = nil,
        proof: PurchaseProof? = nil
    ) {
        self.transactionId = transactionId
        self.amount = amount
        self.proof = proof
        // A full refund's key is the transaction's (a repeat refunds nothing more); a partial one's is this request's
        // own (the adapter's retries reuse it), so two deliberate refunds of the same amount are two refunds.
        self.idempotencyKey =
            idempotencyKey
            ?? (amount == nil
                ? "opencat-refund-\(transactionId)-all"
                : "opencat-refund-\(transactionId)-\(UUID().uuidString.lowercased())")
    }
}

/// How far to move a subscription's renewal, and why (Apple's `extendByDays` and `extendReasonCode`; Google's
/// deferral).
public struct StoreExtension: Sendable, Hashable {
    /// Why the renewal moves (Apple's `extendReasonCode`).
    public enum Reason: Int, Sendable, Hashable, CaseIterable {
        /// Undeclared (0).
        case undeclared = 0
        /// Customer satisfaction (1).
        case customerSatisfaction = 1
        /// Another reason (2).
        case other = 2
        /// A service issue or outage (3).
        case serviceIssue = 3
    }

    /// Whole days to add (Apple: 1 to 90).
    public var days: Int
    /// Why.
    public var reason: Reason
    /// Makes a repeated request harmless where the store takes one (Apple's `requestIdentifier`, a UUID: Apple applies
    /// an identifier once). Google Play's deferral has no such key: the adapter reads the subscription's `etag` just
    /// before deferring, but a caller that repeats a whole call after a lost answer defers again.
    public var requestIdentifier: String

    /// An extension; by default its request identifier is a fresh UUID.
    public init(days: Int, reason: Reason = .customerSatisfaction, requestIdentifier: String = UUID().uuidString) {
        self.days = days
        self.reason = reason
        self.requestIdentifier = requestIdentifier.lowercased()
    }
}

/// A page of a customer's purchases.
public struct PurchasePage: Sendable, Hashable {
    /// The purchases on this page (those the adapter can map: OpenCat products).
    public var purchases: [VerifiedPurchase]
    /// Where the next page starts; `nil` on the last page.
    public var nextCursor: String?

    /// A page.
    public init(purchases: [VerifiedPurchase], nextCursor: String?) {
        self.purchases = purchases
        self.nextCursor = nextCursor
    }
}

/// The operations a server performs on a store, each returning the normalized purchase it changed or read. A store
/// that lacks one says so in ``support(for:)`` and throws ``StoreAdapterError/Code/unsupported``.
public protocol StoreOperations: StoreAdapter {
    /// Whether the store offers an operation.
    func support(for operation: StoreOperation) -> StoreOperationSupport
    /// A customer's purchases, newest first, from `cursor` on. What `customer` names and what a page lists is the
    /// store's: Apple, any transaction id of the customer (every transaction, pages of Apple's size, `limit`
    /// ignored); Stripe, a customer id (PaymentIntents); PayPal, a subscription id (its payments); Steam, a steamid
    /// (billing agreements).
    func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage
    /// Refunds a purchase (in part, where the store allows) and returns it as the store now reports it.
    func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase
    /// Cancels a subscription, at once or at the end of its period, and returns it as the store now reports it.
    func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase
    /// Cancels a subscription as ``cancelSubscription(id:atPeriodEnd:)`` does, for one request of the caller's:
    /// where the store takes an idempotency key, it is made of `requestId` (1 to 100 visible ASCII characters), so a
    /// retry of this request is applied once while a new request (cancel, reactivate, cancel again) is a new call.
    func cancelSubscription(id: String, atPeriodEnd: Bool, requestId: String) async throws -> VerifiedPurchase
    /// The refunded purchases of the customer a transaction belongs to, newest first, from `cursor` on.
    func refundHistory(transactionId: String, cursor: String?) async throws -> PurchasePage
    /// Moves a subscription's renewal later and returns it as the store now reports it.
    func extendSubscription(_ proof: PurchaseProof, by change: StoreExtension) async throws -> VerifiedPurchase
    /// Marks a consumable consumed and returns it as the store now reports it.
    func consume(_ proof: PurchaseProof) async throws -> VerifiedPurchase
    /// Acknowledges a purchase and returns it as the store now reports it.
    func acknowledge(_ proof: PurchaseProof) async throws -> VerifiedPurchase
    /// Revokes a subscription (access ends, the store refunds it) and returns it as the store now reports it.
    func revoke(_ proof: PurchaseProof) async throws -> VerifiedPurchase
    /// Suspends a subscription's billing and returns it as the store now reports it.
    func suspendSubscription(id: String, reason: String) async throws -> VerifiedPurchase
    /// Resumes a paused or suspended subscription's billing and returns it as the store now reports it.
    func resumeSubscription(id: String, reason: String) async throws -> VerifiedPurchase
    /// The purchases of an order, by the order id a customer has from the store's receipt (Apple Look Up Order ID,
    /// Google `orders.get`).
    func lookUpOrder(orderId: String) async throws -> [VerifiedPurchase]
    /// The purchases of several orders in one call, in the order the ids are given (Google `orders.batchget`).
    func lookUpOrders(orderIds: [String]) async throws -> [VerifiedPurchase]
    /// A refund as the store reports it now, by the refund's own id (Stripe `re_…`, a PayPal refund id).
    func refundStatus(id: String) async throws -> StoreRefund
    /// A payment's refunds, newest first, from `cursor` on (Stripe: a PaymentIntent's).
    func refunds(transactionId: String, cursor: String?, limit: Int) async throws -> StoreRefundPage
    /// Cancels a refund the store has not paid out yet and returns it as the store now reports it.
    func cancelRefund(id: String) async throws -> StoreRefund
    /// A customer's subscriptions of every status, from `cursor` on (Apple: any transaction id of the customer, one
    /// page; Stripe: a customer id), each mapped as verify maps a subscription.
    func subscriptions(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage
}

extension StoreOperations {
    /// Nothing is offered unless the adapter says so.
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        .unsupported("\(store) does not offer \(operation) here")
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        throw unsupported(.transactionHistory)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase {
        throw unsupported(.refund)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase {
        throw unsupported(.cancelSubscription)
    }

    /// The store takes no idempotency key for a cancellation: ``cancelSubscription(id:atPeriodEnd:)``.
    public func cancelSubscription(id: String, atPeriodEnd: Bool, requestId: String) async throws -> VerifiedPurchase {
        try await cancelSubscription(id: id, atPeriodEnd: atPeriodEnd)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func refundHistory(transactionId: String, cursor: String?) async throws -> PurchasePage {
        throw unsupported(.refundHistory)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func extendSubscription(_ proof: PurchaseProof, by change: StoreExtension) async throws
        -> VerifiedPurchase
    {
        throw unsupported(.extendSubscription)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func consume(_ proof: PurchaseProof) async throws -> VerifiedPurchase { throw unsupported(.consume) }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func acknowledge(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        throw unsupported(.acknowledge)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func revoke(_ proof: PurchaseProof) async throws -> VerifiedPurchase { throw unsupported(.revoke) }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func suspendSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        throw unsupported(.suspendSubscription)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func resumeSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        throw unsupported(.resumeSubscription)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func lookUpOrder(orderId: String) async throws -> [VerifiedPurchase] {
        throw unsupported(.lookUpOrder)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func lookUpOrders(orderIds: [String]) async throws -> [VerifiedPurchase] {
        throw unsupported(.lookUpOrders)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func refundStatus(id: String) async throws -> StoreRefund { throw unsupported(.refundStatus) }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func refunds(transactionId: String, cursor: String?, limit: Int) async throws -> StoreRefundPage {
        throw unsupported(.refunds)
    }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func cancelRefund(id: String) async throws -> StoreRefund { throw unsupported(.cancelRefund) }

    /// Throws ``StoreAdapterError/Code/unsupported``.
    public func subscriptions(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        throw unsupported(.subscriptions)
    }

    /// The error for an operation the store does not offer, with the reason ``support(for:)`` gives.
    public func unsupported(_ operation: StoreOperation) -> StoreAdapterError {
        StoreAdapterError(
            .unsupported,
            store: store,
            support(for: operation).reason ?? "\(store) does not offer \(operation)",
            storeReason: operation.rawValue
        )
    }
}

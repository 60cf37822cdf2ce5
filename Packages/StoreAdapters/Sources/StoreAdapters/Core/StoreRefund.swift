import Foundation
public import OpenCatCore

/// A refund as its store reports it (``StoreOperations/refundStatus(id:)``, ``StoreOperations/refunds(transactionId:cursor:limit:)``,
/// ``StoreOperations/cancelRefund(id:)``): Stripe's Refund object, PayPal's refund of a capture.
public struct StoreRefund: Sendable, Hashable, Codable {
    /// Where a refund is: an open set, so a status a store adds survives as its raw value.
    public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The status's name.
        public let rawValue: String
        /// A status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The status's name.
        public var description: String { rawValue }

        /// Being paid back (Stripe `pending`, PayPal `PENDING`, e.g. an eCheck's).
        public static let pending = Status(rawValue: "pending")
        /// Waiting for the customer to say where the money goes (Stripe `requires_action`); it can be cancelled.
        public static let requiresAction = Status(rawValue: "requires_action")
        /// Paid back (Stripe `succeeded`, PayPal `COMPLETED`).
        public static let succeeded = Status(rawValue: "succeeded")
        /// It failed (Stripe `failed`, PayPal `FAILED`): the money stays with the merchant.
        public static let failed = Status(rawValue: "failed")
        /// It was cancelled (Stripe `canceled`, PayPal `CANCELLED`).
        public static let canceled = Status(rawValue: "canceled")
    }

    /// The store.
    public var store: Store
    /// The refund's id at the store (`re_…`, a PayPal refund id).
    public var id: String
    /// The payment it refunds (a PaymentIntent id), where the store says.
    public var transactionId: String?
    /// How much, exactly.
    public var amount: Money?
    /// Where it is, normalized.
    public var status: Status
    /// The store's own status, as it wrote it (`requires_action`, `COMPLETED`).
    public var storeStatus: String
    /// Why it was made or why it is pending or failed, as the store says (`requested_by_customer`, `ECHECK`).
    public var reason: String?
    /// When it was created.
    public var created: Date?

    /// A refund.
    public init(
        store: Store,
        id: String,
        transactionId: String? = nil,
        amount: Money? = nil,
        status: Status,
        storeStatus: String,
        reason: String? = nil,
        created: Date? = nil
    ) {
        self.store = store
        self.id = id
        self.transactionId = transactionId
        self.amount = amount
        self.status = status
        self.storeStatus = storeStatus
        self.reason = reason
        self.created = created
    }
}

/// A page of refunds.
public struct StoreRefundPage: Sendable, Hashable, Codable {
    /// The refunds on this page, newest first.
    public var refunds: [StoreRefund]
    /// Where the next page starts; `nil` on the last page.
    public var nextCursor: String?

    /// A page.
    public init(refunds: [StoreRefund], nextCursor: String?) {
        self.refunds = refunds
        self.nextCursor = nextCursor
    }
}

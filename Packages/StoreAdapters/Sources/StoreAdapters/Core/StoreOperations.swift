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

    /// The operations every store is asked about.
    public static let all: [StoreOperation] = [.transactionHistory, .refund, .cancelSubscription]
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
    /// Makes a repeated request harmless (`Idempotency-Key`, `PayPal-Request-Id`).
    public var idempotencyKey: String

    /// A request; by default a full refund keyed by the transaction id.
    public init(transactionId: String, amount: Money? = nil, idempotencyKey: String? = nil) {
        self.transactionId = transactionId
        self.amount = amount
        self.idempotencyKey =
            idempotencyKey ?? "opencat-refund-\(transactionId)-\(amount.map { "\($0.amount)" } ?? "all")"
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
    /// A customer's purchases, newest first, from `cursor` on.
    func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage
    /// Refunds a purchase (in part, where the store allows) and returns it as the store now reports it.
    func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase
    /// Cancels a subscription, at once or at the end of its period, and returns it as the store now reports it.
    func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase
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

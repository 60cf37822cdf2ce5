public import Foundation
public import OpenCatCore

/// Wire shapes of the OpenCat server API (docs/api/opencat-server.md): what the SDK's server connector sends and reads,
/// and what the reference server decodes and answers. Dates are RFC 3339.
public enum ServerAPI {
    /// The body of `POST /v1/receipts`.
    public struct ReceiptPost: Codable, Sendable, Hashable {
        /// The app user the purchase belongs to.
        public var appUserId: String
        /// The store that sold it.
        public var store: Store
        /// What kind of proof ``proof`` is.
        public var kind: PurchaseProof.Kind
        /// The store's proof (a JWS, a purchase token, a payment, order or subscription id).
        public var proof: String
        /// The product the app believes was bought (the server refuses a proof for another one).
        public var productId: String?
        /// The store's transaction id, where the proof needs it.
        public var transactionId: String?
        /// Store-specific extras (`steamAuthTicket`, `steamIdentity`, `steamId`, …).
        public var context: [String: String]?

        /// Creates a receipt body.
        public init(
            appUserId: String,
            store: Store,
            kind: PurchaseProof.Kind,
            proof: String,
            productId: String? = nil,
            transactionId: String? = nil,
            context: [String: String]? = nil
        ) {
            self.appUserId = appUserId
            self.store = store
            self.kind = kind
            self.proof = proof
            self.productId = productId
            self.transactionId = transactionId
            self.context = context
        }
    }

    /// A subscriber as the server returns it.
    public struct Subscriber: Codable, Sendable, Hashable {
        /// The app user.
        public var appUserId: String
        /// When the server first saw the app user.
        public var firstSeenAt: Date
        /// The app user's transactions (for the app's public key, only those that grant access now).
        public var transactions: [TransactionInfo]
        /// Entitlements by product id.
        public var entitlementMap: [String: [String]]

        /// Creates a subscriber.
        public init(
            appUserId: String,
            firstSeenAt: Date,
            transactions: [TransactionInfo],
            entitlementMap: [String: [String]]
        ) {
            self.appUserId = appUserId
            self.firstSeenAt = firstSeenAt
            self.transactions = transactions
            self.entitlementMap = entitlementMap
        }
    }

    /// The answer of `GET /v1/subscribers/{appUserId}` and `POST /v1/receipts`.
    public struct SubscriberResponse: Codable, Sendable, Hashable {
        /// When the server answered.
        public var requestDate: Date
        /// The subscriber.
        public var subscriber: Subscriber

        /// Creates an answer.
        public init(requestDate: Date, subscriber: Subscriber) {
            self.requestDate = requestDate
            self.subscriber = subscriber
        }
    }

    /// The answer of `GET /v1/offerings`.
    public struct OfferingsResponse: Codable, Sendable, Hashable {
        /// When the server answered.
        public var requestDate: Date
        /// The app's offerings.
        public var offerings: Offerings

        /// Creates an answer.
        public init(requestDate: Date, offerings: Offerings) {
            self.requestDate = requestDate
            self.offerings = offerings
        }
    }

    /// The error answer: `{"error": {"code": "…", "message": "…"}}` (the kernel's one error answer).
    public typealias ErrorEnvelope = JSONAPIErrorAnswer
}

import Foundation
import OpenCatCore

/// Wire shapes of the OpenCat server API (docs/api/opencat-server.md).
enum ServerAPI {
    /// The body of `POST /v1/receipts`.
    struct ReceiptPost: Codable, Sendable {
        var appUserId: String
        var store: Store
        var kind: PurchaseProof.Kind
        var proof: String
        var productId: String?
        var transactionId: String?
        var context: [String: String]?
    }

    /// A subscriber as the server returns it.
    struct Subscriber: Codable, Sendable, Equatable {
        var appUserId: String
        var firstSeenAt: Date
        var transactions: [TransactionInfo]
        var entitlementMap: [String: [String]]
    }

    /// The answer of `GET /v1/subscribers/{appUserId}` and `POST /v1/receipts`.
    struct SubscriberResponse: Codable, Sendable {
        var requestDate: Date
        var subscriber: Subscriber
    }

    /// The answer of `GET /v1/offerings`.
    struct OfferingsResponse: Codable, Sendable {
        var requestDate: Date
        var offerings: Offerings
    }

    /// The error envelope: `{"error": {"code": "…", "message": "…"}}`.
    struct ErrorEnvelope: Codable, Sendable {
        struct Body: Codable, Sendable {
            var code: String
            var message: String?
        }
        var error: Body
    }
}

import Foundation
import OpenCatCore

/// The request bodies (and the one answer read) of the Google Play Developer API operations
/// ``GooglePlayAdapter`` performs, as the androidpublisher v3 discovery document defines them.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.subscriptionsv2>.
enum GoogleOperationBodies {
    /// `purchases.products.acknowledge` (`ProductPurchasesAcknowledgeRequest`) and
    /// `purchases.subscriptions.acknowledge` (`SubscriptionPurchasesAcknowledgeRequest`): `{"developerPayload"?}`.
    struct AcknowledgeRequest: Encodable, Sendable {
        /// A developer string kept with the purchase (deprecated upstream); left out when `nil`.
        var developerPayload: String?
    }

    /// `purchases.subscriptionsv2.cancel` (`CancelSubscriptionPurchaseRequest`): `{"cancellationContext": {…}}`.
    struct CancelRequest: Encodable, Sendable {
        /// `CancellationContext`: `{"cancellationType": …}`.
        struct CancellationContext: Encodable, Sendable {
            /// `USER_REQUESTED_STOP_RENEWALS` (the user may restore it) or `DEVELOPER_REQUESTED_STOP_PAYMENTS` (no
            /// restore; no further payment). Both keep access until the paid period ends.
            var cancellationType: String
        }

        /// Required.
        var cancellationContext: CancellationContext

        /// A developer-requested cancellation: no further payment, access until the end of the paid period.
        static let developerStopPayments = CancelRequest(
            cancellationContext: CancellationContext(cancellationType: "DEVELOPER_REQUESTED_STOP_PAYMENTS")
        )
    }

    /// `purchases.subscriptionsv2.revoke` (`RevokeSubscriptionPurchaseRequest`):
    /// `{"revocationContext": {"fullRefund": {}}}` (the union's other members are `proratedRefund` and
    /// `itemBasedRefund`).
    struct RevokeRequest: Encodable, Sendable {
        /// `RevocationContext`, with its `RefundType` union set to `fullRefund`.
        struct RevocationContext: Encodable, Sendable {
            /// `FullRefund`: no fields; refunds the latest charge of every item.
            struct FullRefund: Encodable, Sendable {}

            /// The full refund.
            var fullRefund = FullRefund()
        }

        /// Required.
        var revocationContext = RevocationContext()
    }

    /// `purchases.subscriptionsv2.defer` (`DeferSubscriptionPurchaseRequest`): `{"deferralContext": {…}}`.
    struct DeferRequest: Encodable, Sendable {
        /// `DeferralContext`. `validateOnly` is left out (a real deferral).
        struct DeferralContext: Encodable, Sendable {
            /// The subscription's current `etag` from `purchases.subscriptionsv2.get`; Google refuses the call when
            /// it is no longer the latest.
            var etag: String
            /// How far every item moves, as a `google.protobuf.Duration` (`"604800s"`).
            var deferDuration: String
        }

        /// Required.
        var deferralContext: DeferralContext
    }

    /// The `etag` of a `SubscriptionPurchaseV2`, which `purchases.subscriptionsv2.defer` must echo.
    struct SubscriptionETag: Decodable, Sendable {
        /// The resource's current etag.
        var etag: String?
    }

    /// A body as compact JSON with sorted keys.
    static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw StoreAdapterError(.invalidProof, store: .google, "the request body could not be encoded")
        }
    }
}

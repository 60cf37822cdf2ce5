import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

extension PayPalAdapter {
    /// Verifies a subscription (`PurchaseProof/Kind/paypalSubscription`, token `I-…`) with
    /// `GET /v1/billing/subscriptions/{id}`.
    func verifySubscription(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let (subscription, date) = try await fetchSubscription(id: try Self.orderId(from: proof.token))
        let purchase = try Self.purchase(
            from: subscription,
            expectedProductId: proof.productId,
            configuration: configuration,
            verifiedAt: date
        )
        try PurchaserBinding.check(proof, reported: purchase.purchaser, field: "custom_id")
        configuration.logger.debug(
            "paypal subscription verified",
            metadata: ["state": "\(purchase.state)", "environment": "\(purchase.environment)"]
        )
        return purchase
    }

    /// Reads a subscription.
    public func subscription(id: Secret<String>) async throws -> PayPal.Subscription {
        try await fetchSubscription(id: try Self.orderId(from: id)).subscription
    }

    func fetchSubscription(id: String) async throws -> (subscription: PayPal.Subscription, date: Date?) {
        let response = try await api.send(.get, path: "/v1/billing/subscriptions/\(id)")
        guard response.status.code == 200 else { throw api.error(for: response, subject: "subscription") }
        return (
            try api.http.decode(PayPal.Subscription.self, from: response.body), HTTPDate.of(response.head.headerFields)
        )
    }

    /// The normalized purchase a verified `BILLING.SUBSCRIPTION.*` webhook event (`ACTIVATED`, `SUSPENDED`,
    /// `CANCELLED`, `EXPIRED`, `PAYMENT.FAILED`, `UPDATED`, `RE-ACTIVATED`) or a `PAYMENT.SALE.COMPLETED` for a
    /// subscription reports: the subscription is read again from PayPal (a webhook resource may be partial). For a
    /// `PAYMENT.CAPTURE.*` event (`COMPLETED`, `REFUNDED`, `REVERSED`, `DENIED`, …) the order the capture belongs to
    /// is verified again (the event's `related_ids.order_id`, else `GET /v2/payments/captures/{id}`: a refund's
    /// resource names only its capture). `nil` for other events.
    public func purchase(for event: PayPal.Event) async throws -> VerifiedPurchase? {
        if event.eventType.hasPrefix("PAYMENT.CAPTURE."), let captureId = event.captureId {
            // A capture completed, refunded, reversed or denied: its order is read again (a refund's resource names
            // its capture only; the capture names the order).
            let orderId: String
            if let related = event.relatedOrderId {
                orderId = related
            } else {
                orderId = try await self.orderId(of: try Self.pathId(captureId, what: "capture"))
            }
            return try await verify(PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(orderId)))
        }
        // The event's resource may be partial (no billing_info): the subscription is read again from PayPal.
        let id =
            event.subscription?.id ?? (event.eventType == "PAYMENT.SALE.COMPLETED" ? event.saleSubscriptionId : nil)
        guard let id else { return nil }
        let (subscription, date) = try await fetchSubscription(id: try Self.orderId(from: Secret(id)))
        return try Self.purchase(
            from: subscription,
            expectedProductId: nil,
            configuration: configuration,
            verifiedAt: date
        )
    }
}

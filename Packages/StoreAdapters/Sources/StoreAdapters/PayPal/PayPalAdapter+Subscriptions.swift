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

    /// The normalized purchase a verified `BILLING.SUBSCRIPTION.*` webhook event reports (`ACTIVATED`,
    /// `SUSPENDED`, `CANCELLED`, `EXPIRED`, `PAYMENT.FAILED`, `UPDATED`, `RE-ACTIVATED`), read from the event's
    /// subscription; `PAYMENT.SALE.COMPLETED` for a subscription re-reads it (a renewal was paid); `nil` otherwise.
    public func purchase(for event: PayPal.Event) async throws -> VerifiedPurchase? {
        if let subscription = event.subscription {
            return try Self.purchase(
                from: subscription,
                expectedProductId: nil,
                configuration: configuration,
                verifiedAt: event.createTime.flatMap(PayPalDate.parse)
            )
        }
        if event.eventType == "PAYMENT.SALE.COMPLETED", let id = event.saleSubscriptionId {
            let (subscription, date) = try await fetchSubscription(id: try Self.orderId(from: Secret(id)))
            return try Self.purchase(
                from: subscription,
                expectedProductId: nil,
                configuration: configuration,
                verifiedAt: date
            )
        }
        return nil
    }
}

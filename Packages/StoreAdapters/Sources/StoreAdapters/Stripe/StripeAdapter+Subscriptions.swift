import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

extension StripeAdapter {
    /// Verifies a Billing subscription (`PurchaseProof/Kind/stripeSubscription`, token `sub_…`) with
    /// `GET /v1/subscriptions/{id}?expand[]=latest_invoice`.
    func verifySubscription(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let (subscription, storeDate) = try await fetchSubscription(id: proof.token)
        try checkApplication(subscription.metadata)
        let purchase = try Self.purchase(
            from: subscription,
            expectedProductId: proof.productId,
            configuration: configuration,
            verifiedAt: storeDate
        )
        try PurchaserBinding.check(
            proof,
            reported: purchase.purchaser,
            field: "metadata.\(configuration.purchaserMetadataKey)"
        )
        configuration.logger.debug(
            "stripe subscription verified",
            metadata: ["state": "\(purchase.state)", "environment": "\(purchase.environment)"]
        )
        return purchase
    }

    /// Reads a subscription with its latest invoice expanded.
    public func subscription(id: Secret<String>) async throws -> Stripe.Subscription {
        try await fetchSubscription(id: id).subscription
    }

    private func fetchSubscription(id: Secret<String>) async throws -> (subscription: Stripe.Subscription, date: Date?)
    {
        let token = id.revealed
        guard token.hasPrefix("sub_"), token.count > 4, token.count <= 255,
            token.utf8.dropFirst(4).allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "the token is not a subscription id")
        }
        var request = APIRequest.make(
            .get,
            baseURL: configuration.baseURL,
            path: "/v1/subscriptions/\(token)",
            query: [("expand[]", "latest_invoice")]
        )
        request.headerFields[.authorization] = "Bearer \(configuration.secretKey.revealed)"
        request.headerFields[.stripeVersion] = configuration.apiVersion
        request.headerFields[.accept] = "application/json"
        let response = try await http.send(request)
        guard response.status.code == 200 else { throw error(for: response, resource: "subscription") }
        return (try http.decode(Stripe.Subscription.self, from: response.body), HTTPDate.of(response.head.headerFields))
    }
}

extension StripeAdapter {
    /// Refuses an object for another app when ``Configuration/appMetadataKey`` and ``Configuration/appId`` are set.
    func checkApplication(_ metadata: [String: String]) throws {
        guard configuration.appMetadataKey != nil || configuration.appId != nil else { return }
        guard let key = configuration.appMetadataKey, let appId = configuration.appId else {
            throw StoreAdapterError(.misconfigured, store: .stripe, "set both appMetadataKey and appId, or neither")
        }
        guard metadata[key] == appId else {
            throw StoreAdapterError(
                .wrongApplication,
                store: .stripe,
                "the payment was made for another app",
                storeReason: "metadata.\(key)"
            )
        }
    }

    /// Captures an authorized PaymentIntent, idempotently (`Idempotency-Key: opencat-capture-<id>`).
    func capture(_ id: String) async throws -> (intent: Stripe.PaymentIntent, date: Date?) {
        var request = APIRequest.make(
            .post,
            baseURL: configuration.baseURL,
            path: "/v1/payment_intents/\(id)/capture",
            query: [("expand[]", "latest_charge")]
        )
        request.headerFields[.authorization] = "Bearer \(configuration.secretKey.revealed)"
        request.headerFields[.stripeVersion] = configuration.apiVersion
        request.headerFields[.accept] = "application/json"
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = "opencat-capture-\(id)"
        let response = try await http.send(request, body: Data())
        guard response.status.code == 200 else { throw error(for: response, resource: "PaymentIntent") }
        return (
            try http.decode(Stripe.PaymentIntent.self, from: response.body), HTTPDate.of(response.head.headerFields)
        )
    }

    /// The normalized purchase a verified webhook event reports, or `nil` for an event about something else:
    /// - `customer.subscription.*` (`created`, `updated`, `deleted`, `paused`, `resumed`, …): the subscription the
    ///   event names, read again from Stripe (`GET /v1/subscriptions/{id}`) and mapped as
    ///   ``purchase(from:expectedProductId:configuration:verifiedAt:)``. The snapshot inside the event is never
    ///   applied: Stripe does not deliver events in order, so an older `customer.subscription.updated` that arrives
    ///   after `customer.subscription.deleted` would otherwise revive a cancelled subscription. Whatever the order
    ///   of delivery, the result is the subscription's current state;
    /// - `invoice.paid`, `invoice.payment_failed`: the subscription the invoice bills, read again from Stripe (the
    ///   invoice alone does not say whether access continues), so a renewal extends and a failure enters billing
    ///   retry or grace;
    /// - `payment_intent.*`: the PaymentIntent in the event.
    ///
    /// Verify the event first (``StripeWebhookVerifier``). For a subscription or invoice event the result's
    /// `verifiedAt` is the HTTP `Date` of Stripe's answer (the event's time without one); for a PaymentIntent event
    /// it is the event's time.
    /// - Throws: ``StoreAdapterError`` (`invalidProof` for an event whose object has no subscription id,
    ///   `notFound` for a subscription Stripe no longer has, `wrongApplication`, the shared transport codes).
    public func purchase(for event: Stripe.Event) async throws -> VerifiedPurchase? {
        let subscriptionId: String?
        if event.type.rawValue.hasPrefix("customer.subscription.") {
            guard let id = event.subscription?.id ?? Self.objectId(of: event) else {
                throw StoreAdapterError(.invalidProof, store: .stripe, "the subscription event names no subscription")
            }
            subscriptionId = id
        } else if event.type == .invoicePaid || event.type == .invoicePaymentFailed {
            guard let id = event.invoiceSubscription else { return nil }
            subscriptionId = id
        } else {
            subscriptionId = nil
        }
        if let subscriptionId {
            // Stripe's current state, never the event's snapshot: events can arrive late and out of order.
            let (subscription, date) = try await fetchSubscription(id: Secret(subscriptionId))
            try checkApplication(subscription.metadata)
            return try Self.purchase(
                from: subscription,
                expectedProductId: nil,
                configuration: configuration,
                verifiedAt: date ?? event.createdDate
            )
        }
        if let intent = event.paymentIntent {
            try checkApplication(intent.metadata)
            return try Self.purchase(
                from: intent,
                expectedProductId: nil,
                configuration: configuration,
                verifiedAt: event.createdDate
            )
        }
        return nil
    }

    /// The `id` of an event's `data.object` (a subscription event whose object did not decode as a subscription).
    private static func objectId(of event: Stripe.Event) -> String? {
        struct Identified: Decodable { var id: String }
        return (try? JSONDecoder().decode(Identified.self, from: event.data.object))?.id
    }
}

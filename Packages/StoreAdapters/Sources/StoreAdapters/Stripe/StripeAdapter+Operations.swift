import Foundation
import HTTPTypes
import OpenCatCore

/// Stripe's operations: refunds (`POST /v1/refunds`, full or partial; read, listed and cancelled in
/// `StripeAdapter+Refunds.swift`), a customer's subscriptions and invoices (`StripeAdapter+CustomerHistory.swift`),
/// a customer's PaymentIntents (`GET /v1/payment_intents?customer=`), and cancelling a subscription
/// (`DELETE /v1/subscriptions/{id}`, or `cancel_at_period_end`). Each returns the purchase as Stripe reports it
/// afterwards, mapped as ``verify(_:)`` maps it.
extension StripeAdapter: StoreOperations {
    /// Stripe offers history, refunds, cancelling, pausing collection and resuming; the rest with the reason the
    /// matrix prints.
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        switch operation {
        case .transactionHistory, .refund, .cancelSubscription, .suspendSubscription, .resumeSubscription,
            .refundStatus, .refunds, .cancelRefund, .subscriptions, .invoices:
            .supported
        case .refundHistory:
            .unsupported("Stripe lists refunds by payment, not by customer (refunds)")
        case .extendSubscription:
            .unsupported("Stripe moves a renewal by a trial or billing-cycle anchor change, not an extension call")
        case .extendAllSubscriptions: .unsupported("Stripe has no mass extension")
        case .consume: .unsupported("a Stripe payment has nothing to consume")
        case .acknowledge: .unsupported("a Stripe payment needs no acknowledgement")
        case .revoke: .unsupported("Stripe cancels immediately and refunds separately (cancel, refund)")
        case .lookUpOrder:
            .unsupported(
                "Stripe has no order id a customer quotes; a PaymentIntent or Checkout Session is read by verify"
            )
        case .lookUpOrders, .productPurchase: .unsupported("only Google Play offers \(operation)")
        default: .unsupported("only the App Store offers \(operation)")
        }
    }

    /// Refunds a PaymentIntent (`payment_intent`, `amount` in minor units when partial, `Idempotency-Key`), then
    /// reads it again. A partial refund reads the payment first and refuses an amount in another currency. A PaymentIntent refunded in full already is ``StoreAdapterError/Code/alreadyDone``.
    public func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase {
        guard let id = Self.paymentIntentId(from: request.transactionId) else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a Stripe refund names a PaymentIntent (pi_…)")
        }
        var form: [(String, String)] = [("payment_intent", id)]
        if let amount = request.amount {
            // Stripe refunds in the payment's own currency (the refund takes no currency): a partial amount in
            // another one would be read in the wrong unit, so the payment is read first.
            let current = try await verify(PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(id)))
            guard let currency = current.price?.currency, currency.uppercased() == amount.currency.uppercased() else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .stripe,
                    "the amount's currency is not the payment's (\(current.price?.currency ?? "unknown"))",
                    storeReason: "currency"
                )
            }
            form.append(("amount", String(try Self.minorUnits(amount))))
        }
        var http = APIRequest.make(.post, baseURL: configuration.baseURL, path: "/v1/refunds")
        http.headerFields[HTTPField.Name("Idempotency-Key")!] = request.idempotencyKey
        let response = try await self.http.send(
            authorizedRequest(http, form: true),
            body: Data(APIRequest.query(form).utf8),
            idempotent: true
        )
        guard response.status.code == 200 else {
            let apiError = try? JSONDecoder().decode(Stripe.ErrorResponse.self, from: response.body).error
            if apiError?.code == "charge_already_refunded" {
                throw StoreAdapterError(
                    .alreadyDone,
                    store: .stripe,
                    "the payment is refunded already",
                    storeReason: apiError?.code,
                    httpStatus: response.status.code
                )
            }
            throw error(for: response, resource: "PaymentIntent")
        }
        return try await verify(PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(id)))
    }

    /// A customer's PaymentIntents (`customer=cus_…`), newest first, with their latest charge; those that are not an
    /// OpenCat product's (no product metadata) are left out of the page. The cursor is the last PaymentIntent id.
    public func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        try Self.checkCustomerId(customer)
        var query: [(String, String)] = [
            ("customer", customer), ("limit", String(max(1, min(limit, 100)))), ("expand[]", "data.latest_charge"),
        ]
        if let cursor { query.append(("starting_after", cursor)) }
        let request = APIRequest.make(.get, baseURL: configuration.baseURL, path: "/v1/payment_intents", query: query)
        let response = try await http.send(authorizedRequest(request, form: false))
        guard response.status.code == 200 else { throw error(for: response, resource: "customer") }
        let list = try http.decode(Stripe.List<Stripe.PaymentIntent>.self, from: response.body)
        let purchases = list.data.compactMap { intent in
            try? Self.purchase(from: intent, expectedProductId: nil, configuration: configuration)
        }
        return PurchasePage(purchases: purchases, nextCursor: list.hasMore ? list.data.last?.id : nil)
    }

    /// Cancels a subscription as a new request (a fresh request id): see
    /// ``cancelSubscription(id:atPeriodEnd:requestId:)``.
    public func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase {
        try await cancelSubscription(id: id, atPeriodEnd: atPeriodEnd, requestId: UUID().uuidString.lowercased())
    }

    /// Cancels a subscription: at once (`DELETE /v1/subscriptions/{id}`) or at the end of its period
    /// (`cancel_at_period_end=true`), then reads it again. An already cancelled one is
    /// ``StoreAdapterError/Code/alreadyDone``.
    ///
    /// The `Idempotency-Key` is `opencat-cancel-<id>-<atPeriodEnd>-<requestId>`: the HTTP client's retries of this
    /// request share it, and a later request (after the subscription was reactivated) has its own, so Stripe never
    /// replays an earlier cancellation's answer instead of cancelling again.
    public func cancelSubscription(id: String, atPeriodEnd: Bool, requestId: String) async throws -> VerifiedPurchase {
        try Self.checkSubscriptionId(id)
        guard (1...100).contains(requestId.utf8.count), requestId.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a request id is 1 to 100 visible ASCII characters")
        }
        var request = APIRequest.make(
            atPeriodEnd ? .post : .delete,
            baseURL: configuration.baseURL,
            path: "/v1/subscriptions/\(id)"
        )
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = "opencat-cancel-\(id)-\(atPeriodEnd)-\(requestId)"
        let body = atPeriodEnd ? Data("cancel_at_period_end=true".utf8) : nil
        let response = try await http.send(authorizedRequest(request, form: atPeriodEnd), body: body, idempotent: true)
        let proof = PurchaseProof(store: .stripe, kind: .stripeSubscription, token: Secret(id))
        guard response.status.code == 200 else {
            let apiError = try? JSONDecoder().decode(Stripe.ErrorResponse.self, from: response.body).error
            let alreadyDone = StoreAdapterError(
                .alreadyDone,
                store: .stripe,
                "the subscription is cancelled already",
                storeReason: apiError?.code,
                httpStatus: response.status.code
            )
            if response.status.code == 400,
                apiError?.code == "resource_missing" || apiError?.type == "invalid_request_error",
                apiError?.message?.contains("canceled") == true
            {
                throw alreadyDone
            }
            // Deleting a subscription cancelled already answers 404 resource_missing although it can still be
            // read: tell "cancelled already" from "never existed" by reading it.
            if !atPeriodEnd, response.status.code == 404, apiError?.code == "resource_missing",
                let current = try? await verify(proof), current.state == .expired || !current.willRenew
            {
                throw alreadyDone
            }
            throw error(for: response, resource: "subscription")
        }
        return try await verify(proof)
    }

    /// Resumes a paused subscription (Stripe's "Resume a subscription", `POST /v1/subscriptions/{id}/resume` with
    /// `billing_cycle_anchor=now`; <https://docs.stripe.com/api/subscriptions/resume>), then reads it again. Stripe
    /// starts a new period now and invoices it: the subscription is `active` once that invoice is paid, `past_due` if
    /// payment fails. `reason` is not sent (Stripe takes none). The `Idempotency-Key` is
    /// `opencat-resume-<id>-<uuid>`, shared by the HTTP client's retries of this call.
    ///
    /// Stripe refuses to resume a subscription whose status is not `paused` (400 `invalid_request_error`); it is
    /// read again: one whose payment collection is paused (``suspendSubscription(id:reason:)``) has
    /// `pause_collection` cleared and is read once more; an active or trialing one is
    /// ``StoreAdapterError/Code/alreadyDone``; one that cannot be resumed (cancelled) keeps Stripe's refusal
    /// (``StoreAdapterError/Code/invalidProof``).
    public func resumeSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        try Self.checkSubscriptionId(id)
        var request = APIRequest.make(.post, baseURL: configuration.baseURL, path: "/v1/subscriptions/\(id)/resume")
        request.headerFields[HTTPField.Name("Idempotency-Key")!] =
            "opencat-resume-\(id)-\(UUID().uuidString.lowercased())"
        let body = Data("billing_cycle_anchor=now".utf8)
        let response = try await http.send(authorizedRequest(request, form: true), body: body, idempotent: true)
        let proof = PurchaseProof(store: .stripe, kind: .stripeSubscription, token: Secret(id))
        guard response.status.code == 200 else {
            let apiError = try? JSONDecoder().decode(Stripe.ErrorResponse.self, from: response.body).error
            let current =
                response.status.code == 400 && apiError?.type == "invalid_request_error"
                ? try? await verify(proof) : nil
            if let current, current.storeStatus?.hasSuffix("/paused") == true {
                try await resumeCollection(id: id)
                return try await verify(proof)
            }
            if let current, current.state == .active {
                throw StoreAdapterError(
                    .alreadyDone,
                    store: .stripe,
                    "the subscription is not paused: it is \(current.storeStatus ?? "active") already",
                    storeReason: apiError?.code,
                    httpStatus: 400
                )
            }
            throw error(for: response, resource: "subscription")
        }
        return try await verify(proof)
    }

    /// Refuses what cannot be a subscription id in a request path (`sub_…`, at most 255 characters, no `/`).
    static func checkSubscriptionId(_ id: String) throws { try checkObjectId(id, prefix: "sub_", "subscription") }

    /// Refuses what cannot be the id of a Stripe object of one kind (`<prefix>…`, at most 255 characters, no `/`)
    /// before it goes into a request: ``StoreAdapterError/Code/invalidProof`` naming the kind.
    static func checkObjectId(_ id: String, prefix: String, _ kind: String) throws {
        guard id.hasPrefix(prefix), id.count <= 255, !id.contains("/") else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a Stripe \(kind) id starts with \(prefix)")
        }
    }

    /// An exact amount in the currency's minor units (Stripe's exponents).
    static func minorUnits(_ money: Money) throws -> Int64 {
        var scaled = money.amount
        for _ in 0..<Stripe.minorUnitExponent(forCurrency: money.currency) { scaled *= 10 }
        guard scaled > 0, let minor = Int64(exactly: NSDecimalNumber(decimal: scaled)), Decimal(minor) == scaled else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "the amount is not a positive whole minor amount")
        }
        return minor
    }
}

extension Stripe {
    /// A list answer (`{"object": "list", "data": […], "has_more": …}`).
    public struct List<Element: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        /// The page's objects.
        public var data: [Element]
        /// Whether more follow.
        public var hasMore: Bool

        private enum CodingKeys: String, CodingKey {
            case data
            case hasMore = "has_more"
        }
    }
}

import Foundation
import HTTPTypes
import MockStores
import OpenCatCore

/// Stripe refunds on the checkout's PaymentIntents (<https://docs.stripe.com/api/refunds/create>): `POST /v1/refunds`
/// with `payment_intent` and an optional `amount` in minor units (the rest of the charge without one), idempotent by
/// `Idempotency-Key`. The charge's `amount_refunded` and `refunded` follow, and a signed `charge.refunded` event goes
/// to the webhook endpoint, as Stripe sends it.
extension MockCheckout {
    /// `POST /v1/refunds`.
    func refund(_ request: MockRequest, state: inout State, webhooks: inout [Webhook]) -> MockResponse {
        let key = request.header("Idempotency-Key")
        if let key, let previous = state.stripeIdempotency[key] {
            guard previous.body == request.body else {
                return Self.stripeError(
                    "Keys for idempotent requests can only be used with the same parameters they were first used with.",
                    param: nil,
                    type: "idempotency_error"
                )
            }
            return previous.response
        }
        let intentId = request.formValue("payment_intent") ?? ""
        guard let sessionId = state.intentSessions[intentId], var session = state.sessions[sessionId],
            var intent = session.intent
        else {
            return Self.stripeError(
                "No such payment_intent: '\(intentId)'",
                param: "payment_intent",
                code: "resource_missing",
                status: 404
            )
        }
        let left = session.amountTotal - intent.amountRefunded
        guard left > 0 else {
            return Self.stripeError(
                "Charge \(intent.chargeId) has already been refunded.",
                param: nil,
                code: "charge_already_refunded"
            )
        }
        let asked = request.formValue("amount").flatMap { Int64($0) }
        if let text = request.formValue("amount"), asked == nil || asked! <= 0 {
            return Self.stripeError(
                "Invalid positive integer: \(text)",
                param: "amount",
                code: "parameter_invalid_integer"
            )
        }
        let amount = asked ?? left
        guard amount <= left else {
            return Self.stripeError(
                "Refund amount (\(amount)) is greater than unrefunded amount on charge (\(left))",
                param: "amount"
            )
        }
        intent.amountRefunded += amount
        session.intent = intent
        state.sessions[sessionId] = session
        let now = Self.unixTime(request.receivedAt)
        let refund: JSONValue = [
            "id": .string(Self.randomId("re_", count: 24)), "object": "refund", "amount": .integer(amount),
            "charge": .string(intent.chargeId), "created": .integer(now), "currency": .string(session.currency),
            "payment_intent": .string(intent.id), "reason": .null, "status": "succeeded",
        ]
        let response = MockResponse.json(200, refund)
        if let key { state.stripeIdempotency[key] = (request.body, response) }
        if let endpoint = configuration.stripeWebhook {
            webhooks.append(
                Self.stripeEvent(
                    "charge.refunded",
                    object: Self.chargeJSON(intent, of: session),
                    at: now,
                    to: endpoint.url,
                    secret: endpoint.secret
                )
            )
        }
        return response
    }

    /// A Stripe event of `type` about `object`, signed like Stripe (`Stripe-Signature: t=<unix>,v1=<hex>`).
    static func stripeEvent(_ type: String, object: JSONValue, at time: Int64, to url: URL, secret: Secret<String>)
        -> Webhook
    {
        let eventId = randomId("evt_", count: 24)
        let event: JSONValue = [
            "id": .string(eventId), "object": "event", "api_version": .string(stripeAPIVersion),
            "created": .integer(time), "data": ["object": object], "livemode": false, "pending_webhooks": 1,
            "request": ["id": .null, "idempotency_key": .null], "type": .string(type),
        ]
        let body = event.serialized()
        var headers = HTTPFields()
        headers[HTTPField.Name("Stripe-Signature")!] =
            "t=\(time),v1=\(stripeSignature(payload: body, timestamp: time, secret: secret))"
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.userAgent] = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
        return Webhook(store: .stripe, eventType: type, eventId: eventId, url: url, headers: headers, body: body)
    }
}

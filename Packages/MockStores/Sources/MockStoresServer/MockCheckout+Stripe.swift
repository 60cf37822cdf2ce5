import Crypto
import Foundation
import HTTPTypes
import MockStores
import OpenCatCore

/// A Checkout Session the mock made.
struct StripeSession: Sendable {
    /// One `line_items[i]` with inline `price_data`.
    struct LineItem: Sendable {
        var name: String
        var unitAmount: Int64
        var quantity: Int64
    }

    /// The PaymentIntent (and its charge) made when the buyer paid.
    struct Intent: Sendable {
        var id: String
        var chargeId: String
        var created: Int64
        /// What refunds gave back so far, in minor units.
        var amountRefunded: Int64 = 0
    }

    var id: String
    var created: Int64
    var url: String
    var successURL: String
    var cancelURL: String?
    var clientReferenceId: String?
    var customerEmail: String?
    var currency: String
    var items: [LineItem]
    var amountTotal: Int64
    var metadata: [String: String]
    var intentMetadata: [String: String]
    var intent: Intent?

    /// The session's lifetime (Stripe's default: 24 hours).
    static let lifetime: Int64 = 24 * 60 * 60
}

/// A refused request: the store-shaped error response to send instead.
struct CheckoutRefusal: Error {
    var response: MockResponse
}

extension MockCheckout {
    // MARK: Endpoints

    /// `POST /v1/checkout/sessions`.
    func createSession(_ request: MockRequest, base: String, state: inout State) -> MockResponse {
        let key = request.header("Idempotency-Key")
        if let key, let previous = state.stripeIdempotency[key] {
            guard previous.body == request.body else {
                return Self.stripeError(
                    "Keys for idempotent requests can only be used with the same parameters they were first used "
                        + "with. Try using a key other than '\(key)' if you meant to execute a different request.",
                    param: nil,
                    type: "idempotency_error"
                )
            }
            var replay = previous.response
            replay.headers[HTTPField.Name("Idempotent-Replayed")!] = "true"
            return replay
        }
        let session: StripeSession
        do {
            session = try Self.parseSession(request.formFields, created: Self.unixTime(request.receivedAt), base: base)
        } catch {
            return error.response
        }
        state.sessions[session.id] = session
        let response = MockResponse.json(200, Self.json(session, expand: []))
        // Stripe saves no idempotent result for a request that failed validation.
        if let key { state.stripeIdempotency[key] = (request.body, response) }
        return response
    }

    /// `GET /v1/checkout/sessions/{id}` (`expand[]=payment_intent`, `payment_intent.latest_charge`).
    func readSession(_ id: String, request: MockRequest, state: State) -> MockResponse {
        guard let session = state.sessions[id] else {
            return Self.stripeError(
                "No such checkout.session: '\(id)'",
                param: "session",
                code: "resource_missing",
                status: 404
            )
        }
        return .json(200, Self.json(session, expand: Self.expansions(request)))
    }

    /// `GET /v1/payment_intents/{id}` for a PaymentIntent a checkout made (`expand[]=latest_charge`).
    func readPaymentIntent(_ id: String, request: MockRequest, state: State) -> MockResponse {
        guard let sessionId = state.intentSessions[id], let session = state.sessions[sessionId],
            let intent = session.intent
        else {
            return Self.stripeError(
                "No such payment_intent: '\(id)'",
                param: "intent",
                code: "resource_missing",
                status: 404
            )
        }
        let expand = Self.expansions(request)
        return .json(200, Self.json(intent, of: session, expandCharge: expand.contains("latest_charge")))
    }

    /// `POST /checkout/pay/{id}`: the buyer pays. Idempotent: paying a paid session only redirects again.
    func pay(_ id: String, request: MockRequest, state: inout State, webhooks: inout [Webhook]) -> MockResponse {
        guard var session = state.sessions[id] else { return Self.notFoundPage() }
        if session.intent == nil {
            let now = Self.unixTime(request.receivedAt)
            let intent = StripeSession.Intent(
                id: Self.randomId("pi_", count: 24),
                chargeId: Self.randomId("ch_", count: 24),
                created: now
            )
            session.intent = intent
            state.sessions[id] = session
            state.intentSessions[intent.id] = id
            if let endpoint = configuration.stripeWebhook {
                webhooks.append(Self.stripeWebhook(for: session, at: now, to: endpoint.url, secret: endpoint.secret))
            }
        }
        return Self.redirect(to: Self.substitutingSessionId(in: session.successURL, id: id))
    }

    /// `GET /checkout/pay/{id}`: the hosted page.
    func stripePage(_ id: String, state: State) -> MockResponse {
        guard let session = state.sessions[id] else { return Self.notFoundPage() }
        return Self.stripePage(session)
    }

    // MARK: Parsing

    /// Reads a session from Stripe's bracketed form fields.
    static func parseSession(_ fields: [MockRequest.Field], created: Int64, base: String) throws(CheckoutRefusal)
        -> StripeSession
    {
        var values: [String: String] = [:]
        var metadata: [String: String] = [:]
        var intentMetadata: [String: String] = [:]
        var lineItems: [Int: [String: String]] = [:]
        for field in fields {
            if let key = bracketed(field.name, prefix: "metadata[") {
                metadata[key] = field.value
            } else if let key = bracketed(field.name, prefix: "payment_intent_data[metadata][") {
                intentMetadata[key] = field.value
            } else if field.name.hasPrefix("line_items[") {
                let rest = field.name.dropFirst("line_items[".count)
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]), (0..<100).contains(index)
                else { throw refusal("Invalid array", param: "line_items") }
                lineItems[index, default: [:]][String(rest[rest.index(after: close)...])] = field.value
            } else if values[field.name] == nil {
                values[field.name] = field.value
            }
        }
        guard let mode = values["mode"], !mode.isEmpty else {
            throw refusal("Missing required param: mode.", param: "mode", code: "parameter_missing")
        }
        guard mode == "payment" else {
            throw refusal("The mock checkout supports mode=payment only.", param: "mode")
        }
        guard let successURL = values["success_url"], !successURL.isEmpty else {
            throw refusal("Missing required param: success_url.", param: "success_url", code: "parameter_missing")
        }
        guard !lineItems.isEmpty else {
            throw refusal("Missing required param: line_items.", param: "line_items", code: "parameter_missing")
        }
        var items: [StripeSession.LineItem] = []
        var currency: String?
        var total: Int64 = 0
        for index in lineItems.keys.sorted() {
            let (item, itemCurrency) = try lineItem(lineItems[index]!, index: index)
            if let currency, currency != itemCurrency {
                throw refusal(
                    "All line items must use the same currency.",
                    param: "line_items[\(index)][price_data][currency]"
                )
            }
            currency = itemCurrency
            let (amount, overflow) = item.unitAmount.multipliedReportingOverflow(by: item.quantity)
            let (sum, overflowSum) = total.addingReportingOverflow(amount)
            guard !overflow, !overflowSum, sum <= 99_999_999 else {
                throw refusal("The total amount is too large.", param: "line_items")
            }
            total = sum
            items.append(item)
        }
        let id = randomId("cs_test_", count: 58)
        return StripeSession(
            id: id,
            created: created,
            url: "\(base)/checkout/pay/\(id)",
            successURL: successURL,
            cancelURL: values["cancel_url"].flatMap { $0.isEmpty ? nil : $0 },
            clientReferenceId: values["client_reference_id"].flatMap { $0.isEmpty ? nil : $0 },
            customerEmail: values["customer_email"].flatMap { $0.isEmpty ? nil : $0 },
            currency: currency!,
            items: items,
            amountTotal: total,
            metadata: metadata,
            intentMetadata: intentMetadata
        )
    }

    /// One line item with inline `price_data` (a `price` id is not supported: the mock has no catalogue).
    private static func lineItem(_ fields: [String: String], index: Int) throws(CheckoutRefusal)
        -> (StripeSession.LineItem, String)
    {
        let prefix = "line_items[\(index)]"
        if fields["[price]"] != nil {
            throw refusal("The mock checkout supports price_data only, not price ids.", param: "\(prefix)[price]")
        }
        guard let currency = fields["[price_data][currency]"]?.lowercased(), currency.count == 3,
            currency.allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            throw refusal(
                "Missing required param: \(prefix)[price_data][currency].",
                param: "\(prefix)[price_data][currency]",
                code: "parameter_missing"
            )
        }
        guard let text = fields["[price_data][unit_amount]"], let unitAmount = Int64(text), unitAmount >= 0 else {
            throw refusal(
                "Invalid integer: \(prefix)[price_data][unit_amount]",
                param: "\(prefix)[price_data][unit_amount]",
                code: "parameter_invalid_integer"
            )
        }
        guard let name = fields["[price_data][product_data][name]"], !name.isEmpty else {
            throw refusal(
                "Missing required param: \(prefix)[price_data][product_data][name].",
                param: "\(prefix)[price_data][product_data][name]",
                code: "parameter_missing"
            )
        }
        guard let quantityText = fields["[quantity]"], let quantity = Int64(quantityText), quantity > 0 else {
            throw refusal(
                "Invalid integer: \(prefix)[quantity]",
                param: "\(prefix)[quantity]",
                code: "parameter_invalid_integer"
            )
        }
        return (StripeSession.LineItem(name: name, unitAmount: unitAmount, quantity: quantity), currency)
    }

    /// The key of `prefix<key>]`, or `nil`.
    static func bracketed(_ name: String, prefix: String) -> String? {
        guard name.hasPrefix(prefix), name.hasSuffix("]"), name.count > prefix.count + 1 else { return nil }
        let key = name.dropFirst(prefix.count).dropLast()
        return key.contains("[") || key.contains("]") ? nil : String(key)
    }

    /// The `expand[]` values of a request's query.
    static func expansions(_ request: MockRequest) -> Set<String> {
        Set(request.queryItems.filter { $0.name == "expand[]" || $0.name.hasPrefix("expand[") }.map(\.value))
    }

    /// `success_url` with `{CHECKOUT_SESSION_ID}` (also percent-encoded, as `URL` writes it) replaced.
    static func substitutingSessionId(in url: String, id: String) -> String {
        url.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: id)
            .replacingOccurrences(of: "%7BCHECKOUT_SESSION_ID%7D", with: id, options: .caseInsensitive)
    }

    // MARK: Objects

    /// The Checkout Session object (<https://docs.stripe.com/api/checkout/sessions/object>).
    static func json(_ session: StripeSession, expand: Set<String>) -> JSONValue {
        var paymentIntent = JSONValue.null
        if let intent = session.intent {
            paymentIntent =
                expand.contains("payment_intent") || expand.contains("payment_intent.latest_charge")
                ? json(intent, of: session, expandCharge: expand.contains("payment_intent.latest_charge"))
                : .string(intent.id)
        }
        let paid = session.intent != nil
        return [
            "id": .string(session.id),
            "object": "checkout.session",
            "amount_subtotal": .integer(session.amountTotal),
            "amount_total": .integer(session.amountTotal),
            "cancel_url": session.cancelURL.map(JSONValue.string) ?? .null,
            "client_reference_id": session.clientReferenceId.map(JSONValue.string) ?? .null,
            "created": .integer(session.created),
            "currency": .string(session.currency),
            "customer": .null,
            "customer_details": paid ? ["email": session.customerEmail.map(JSONValue.string) ?? .null] : .null,
            "customer_email": session.customerEmail.map(JSONValue.string) ?? .null,
            "expires_at": .integer(session.created + StripeSession.lifetime),
            "livemode": false,
            "metadata": .object(session.metadata.mapValues(JSONValue.string)),
            "mode": "payment",
            "payment_intent": paymentIntent,
            "payment_method_types": ["card"],
            "payment_status": paid ? "paid" : "unpaid",
            "status": paid ? "complete" : "open",
            "success_url": .string(session.successURL),
            "ui_mode": "hosted",
            // Stripe clears the hosted page's URL once the session is complete.
            "url": paid ? .null : .string(session.url),
        ]
    }

    /// The succeeded PaymentIntent (<https://docs.stripe.com/api/payment_intents/object>).
    static func json(_ intent: StripeSession.Intent, of session: StripeSession, expandCharge: Bool) -> JSONValue {
        let metadata = JSONValue.object(session.intentMetadata.mapValues(JSONValue.string))
        return [
            "id": .string(intent.id),
            "object": "payment_intent",
            "amount": .integer(session.amountTotal),
            "amount_capturable": 0,
            "amount_received": .integer(session.amountTotal),
            "cancellation_reason": .null,
            "capture_method": "automatic_async",
            "confirmation_method": "automatic",
            "created": .integer(intent.created),
            "currency": .string(session.currency),
            "customer": .null,
            "description": .null,
            "last_payment_error": .null,
            "latest_charge": expandCharge ? chargeJSON(intent, of: session) : .string(intent.chargeId),
            "livemode": false,
            "metadata": metadata,
            "payment_method_types": ["card"],
            "status": "succeeded",
        ]
    }

    /// The PaymentIntent's charge (<https://docs.stripe.com/api/charges/object>), with what refunds gave back.
    static func chargeJSON(_ intent: StripeSession.Intent, of session: StripeSession) -> JSONValue {
        [
            "id": .string(intent.chargeId),
            "object": "charge",
            "amount": .integer(session.amountTotal),
            "amount_captured": .integer(session.amountTotal),
            "amount_refunded": .integer(intent.amountRefunded),
            "captured": true,
            "created": .integer(intent.created),
            "currency": .string(session.currency),
            "disputed": false,
            "livemode": false,
            "metadata": .object(session.intentMetadata.mapValues(JSONValue.string)),
            "paid": true,
            "payment_intent": .string(intent.id),
            "refunded": .bool(intent.amountRefunded >= session.amountTotal),
            "status": "succeeded",
        ]
    }

    /// The `checkout.session.completed` event, signed like Stripe: `Stripe-Signature: t=<unix>,v1=<hex>` where
    /// the signature is HMAC-SHA256 under the endpoint secret of `"<t>.<payload>"`.
    static func stripeWebhook(for session: StripeSession, at time: Int64, to url: URL, secret: Secret<String>)
        -> Webhook
    {
        stripeEvent("checkout.session.completed", object: json(session, expand: []), at: time, to: url, secret: secret)
    }

    /// The hex HMAC-SHA256 of `"<timestamp>.<payload>"` under the secret (Stripe's `v1` scheme).
    static func stripeSignature(payload: Data, timestamp: Int64, secret: Secret<String>) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.revealed.utf8)))
        return hex(Data(mac))
    }

    /// Lower-case hex.
    static func hex(_ bytes: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Stripe's error body (`{"error": {"type", "message", "param", "code"}}`).
    static func stripeError(
        _ message: String,
        param: String?,
        code: String? = nil,
        type: String = "invalid_request_error",
        status: Int = 400
    ) -> MockResponse {
        var error: [String: JSONValue] = ["type": .string(type), "message": .string(message)]
        if let param { error["param"] = .string(param) }
        if let code {
            error["code"] = .string(code)
            error["doc_url"] = .string(
                "https://stripe.com/docs/error-codes/\(code.replacingOccurrences(of: "_", with: "-"))"
            )
        }
        return .json(status, ["error": .object(error)])
    }

    private static func refusal(_ message: String, param: String, code: String? = nil) -> CheckoutRefusal {
        CheckoutRefusal(response: stripeError(message, param: param, code: code))
    }
}

import Crypto
import Foundation
import HTTPTypes
import MockStores
import OpenCatCore

/// An order the mock made.
struct PayPalOrder: Sendable {
    /// The order's status (PayPal's names).
    enum Status: String, Sendable {
        case created = "CREATED"
        case payerActionRequired = "PAYER_ACTION_REQUIRED"
        case approved = "APPROVED"
        case completed = "COMPLETED"
    }

    /// A purchase unit, with its capture once the order is captured.
    struct Unit: Sendable {
        var referenceId: String
        var customId: String?
        var description: String?
        var invoiceId: String?
        var currency: String
        var value: String
        var merchantId: String
        var captureId: String?
        /// When the unit was captured.
        var captureTime: String?
        /// The refunds of the unit's capture, oldest first.
        var refunds: [PayPalRefund] = []
        /// The unit's `items`, as sent (their total checked against `amount.breakdown.item_total`).
        var items: JSONValue? = nil
        var breakdown: JSONValue? = nil
    }

    var id: String
    var status: Status
    var units: [Unit]
    var returnURL: String?
    var cancelURL: String?
    /// Whether the order was created with `payment_source.paypal` (rather than `application_context`).
    var viaPaymentSource: Bool
    var createTime: String
    var updateTime: String?
    var payerId: String?
}

extension MockCheckout {
    // MARK: Endpoints

    /// `POST /v2/checkout/orders`.
    func createOrder(_ request: MockRequest, base: String, state: inout State) -> MockResponse {
        let key = request.header("PayPal-Request-Id").map { "create:\($0)" }
        if let key, let reply = state.payPalReplies[key] { return reply }
        let order: PayPalOrder
        do {
            order = try Self.parseOrder(
                request.json,
                time: Self.isoTime(request.receivedAt),
                merchantId: configuration.payPalMerchantId
            )
        } catch {
            return error.response
        }
        state.orders[order.id] = order
        let full = request.header("Prefer")?.contains("return=representation") == true
        let response = MockResponse.json(201, full ? Self.json(order, base: base) : Self.minimalJSON(order, base: base))
        if let key { state.payPalReplies[key] = response }
        return response
    }

    /// `GET /v2/checkout/orders/{id}`.
    func readOrder(_ id: String, base: String, state: State) -> MockResponse {
        guard let order = state.orders[id] else { return Self.orderNotFound(id) }
        return .json(200, Self.json(order, base: base))
    }

    /// `POST /v2/checkout/orders/{id}/capture`: an approved order becomes `COMPLETED`; the same
    /// `PayPal-Request-Id` gets the same answer.
    func capture(_ id: String, request: MockRequest, base: String, state: inout State) -> MockResponse {
        guard var order = state.orders[id] else { return Self.orderNotFound(id) }
        let key = request.header("PayPal-Request-Id").map { "capture:\(id):\($0)" }
        if let key, let reply = state.payPalReplies[key] { return reply }
        switch order.status {
        case .completed:
            return Self.unprocessable(
                "ORDER_ALREADY_CAPTURED",
                "Order already captured.If 'intent=CAPTURE' only one capture per order is allowed."
            )
        case .created, .payerActionRequired:
            return Self.unprocessable(
                "ORDER_NOT_APPROVED",
                "Payer has not yet approved the Order for payment. Please redirect the payer to the 'rel':'approve' "
                    + "url returned as part of the HATEOAS links within the Create Order call or provide a valid "
                    + "payment_source in the request."
            )
        case .approved:
            break
        }
        let time = Self.isoTime(request.receivedAt)
        for index in order.units.indices {
            order.units[index].captureId = Self.randomId("", count: 17, alphabet: Self.upperAlphanumerics)
            order.units[index].captureTime = time
        }
        order.status = .completed
        order.updateTime = time
        state.orders[id] = order
        let response = MockResponse.json(201, Self.json(order, base: base))
        if let key { state.payPalReplies[key] = response }
        return response
    }

    /// `GET /checkoutnow?token={id}`: the approval page.
    func payPalPage(_ token: String?, state: State) -> MockResponse {
        guard let token, let order = state.orders[token] else { return Self.notFoundPage() }
        return Self.payPalPage(order)
    }

    /// `POST /checkoutnow?token={id}`: the payer approves. Idempotent: approving again only redirects again.
    func approve(
        _ token: String?,
        request: MockRequest,
        base: String,
        state: inout State,
        webhooks: inout [Webhook]
    ) -> MockResponse {
        guard let token, var order = state.orders[token] else { return Self.notFoundPage() }
        if order.status == .created || order.status == .payerActionRequired {
            order.status = .approved
            order.payerId = Self.randomId("", count: 13, alphabet: Self.upperAlphanumerics)
            order.updateTime = Self.isoTime(request.receivedAt)
            state.orders[token] = order
            if let url = configuration.payPalWebhook {
                webhooks.append(payPalWebhook(for: order, base: base, at: request.receivedAt, to: url, state: &state))
            }
        }
        guard let returnURL = order.returnURL, let payerId = order.payerId else { return Self.approvedPage(order) }
        return Self.redirect(to: Self.appendingQuery(to: returnURL, [("token", order.id), ("PayerID", payerId)]))
    }

    /// `POST /v1/notifications/verify-webhook-signature`: `SUCCESS` for a delivery this mock sent, unchanged.
    func verifyWebhookSignature(_ request: MockRequest, state: State) -> MockResponse {
        guard let body = request.json, body.objectValue != nil else { return Self.malformedJSON() }
        for field in [
            "auth_algo", "cert_url", "transmission_id", "transmission_sig", "transmission_time", "webhook_id",
        ]
        where body[field]?.stringValue?.isEmpty != false {
            return Self.payPalError(
                400,
                name: "VALIDATION_ERROR",
                message: "Invalid request - see details",
                issue: "MISSING_REQUIRED_PARAMETER",
                description: "A required field is missing.",
                field: field
            )
        }
        guard let event = body["webhook_event"], event.objectValue != nil else {
            return Self.payPalError(
                400,
                name: "VALIDATION_ERROR",
                message: "Invalid request - see details",
                issue: "MISSING_REQUIRED_PARAMETER",
                description: "A required field is missing.",
                field: "webhook_event"
            )
        }
        var verified = false
        if let id = body["transmission_id"]?.stringValue, let sent = state.transmissions[id] {
            verified =
                ConstantTime.equals(sent.signature, body["transmission_sig"]?.stringValue ?? "")
                && sent.time == body["transmission_time"]?.stringValue && sent.event == event
        }
        return .json(200, ["verification_status": verified ? "SUCCESS" : "FAILURE"])
    }

    // MARK: Parsing

    /// Reads an order from the create request's JSON.
    static func parseOrder(_ body: JSONValue?, time: String, merchantId: String) throws(CheckoutRefusal)
        -> PayPalOrder
    {
        guard let body, body.objectValue != nil else { throw CheckoutRefusal(response: malformedJSON()) }
        guard let intent = body["intent"]?.stringValue else { throw invalid("/intent", missing: true) }
        guard intent == "CAPTURE" else { throw invalid("/intent", value: intent) }
        guard let units = body["purchase_units"]?.arrayValue, (1...10).contains(units.count) else {
            throw invalid("/purchase_units", missing: body["purchase_units"] == nil)
        }
        var parsed: [PayPalOrder.Unit] = []
        for (index, unit) in units.enumerated() {
            let path = "/purchase_units/\(index)"
            guard unit.objectValue != nil else { throw invalid(path) }
            guard let currency = unit["amount"]?["currency_code"]?.stringValue else {
                throw invalid("\(path)/amount/currency_code", missing: true)
            }
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw invalid("\(path)/amount/currency_code", value: currency)
            }
            guard let value = unit["amount"]?["value"]?.stringValue else {
                throw invalid("\(path)/amount/value", missing: true)
            }
            guard isAmount(value) else { throw invalid("\(path)/amount/value", value: value) }
            try checkItems(unit, path: path, currency: currency, value: value)
            parsed.append(
                PayPalOrder.Unit(
                    referenceId: unit["reference_id"]?.stringValue ?? "default",
                    customId: unit["custom_id"]?.stringValue,
                    description: unit["description"]?.stringValue,
                    invoiceId: unit["invoice_id"]?.stringValue,
                    currency: currency,
                    value: value,
                    merchantId: unit["payee"]?["merchant_id"]?.stringValue ?? merchantId,
                    items: unit["items"],
                    breakdown: unit["amount"]?["breakdown"]
                )
            )
        }
        let paypal = body["payment_source"]?["paypal"]
        let context = paypal?["experience_context"] ?? body["application_context"]
        return PayPalOrder(
            id: randomId("", count: 17, alphabet: upperAlphanumerics),
            status: paypal != nil ? .payerActionRequired : .created,
            units: parsed,
            returnURL: context?["return_url"]?.stringValue,
            cancelURL: context?["cancel_url"]?.stringValue,
            viaPaymentSource: paypal != nil,
            createTime: time
        )
    }

    /// A unit's `items` as PayPal checks them: each has a name, a whole `quantity` and a `unit_amount` in the unit's
    /// currency; with items, `amount.breakdown.item_total` is required and must be the sum of quantity × unit amount
    /// (422 `ITEM_TOTAL_MISMATCH`), and the amount must equal it (422 `AMOUNT_MISMATCH`; the mock knows no shipping,
    /// tax or discount).
    static func checkItems(_ unit: JSONValue, path: String, currency: String, value: String) throws(CheckoutRefusal) {
        guard let items = unit["items"] else { return }
        guard let list = items.arrayValue, !list.isEmpty else { throw invalid("\(path)/items", value: nil) }
        var total = Decimal(0)
        for (index, item) in list.enumerated() {
            let itemPath = "\(path)/items/\(index)"
            guard item["name"]?.stringValue?.isEmpty == false else { throw invalid("\(itemPath)/name", missing: true) }
            guard let quantity = item["quantity"]?.stringValue, let count = Int(quantity), (1...99_999).contains(count)
            else { throw invalid("\(itemPath)/quantity", missing: item["quantity"] == nil) }
            guard item["unit_amount"]?["currency_code"]?.stringValue == currency,
                let unitValue = item["unit_amount"]?["value"]?.stringValue, isAmount(unitValue),
                let price = Decimal(string: unitValue, locale: Locale(identifier: "en_US_POSIX"))
            else { throw invalid("\(itemPath)/unit_amount", missing: item["unit_amount"] == nil) }
            total += price * Decimal(count)
        }
        guard let itemTotal = unit["amount"]?["breakdown"]?["item_total"]?["value"]?.stringValue else {
            throw invalid("\(path)/amount/breakdown/item_total", missing: true)
        }
        let posix = Locale(identifier: "en_US_POSIX")
        guard Decimal(string: itemTotal, locale: posix) == total else {
            throw CheckoutRefusal(
                response: unprocessable(
                    "ITEM_TOTAL_MISMATCH",
                    "Should equal sum of (unit_amount * quantity) across all items."
                )
            )
        }
        guard Decimal(string: value, locale: posix) == total else {
            throw CheckoutRefusal(
                response: unprocessable("AMOUNT_MISMATCH", "Should equal item_total + tax_total + shipping + handling.")
            )
        }
    }

    /// PayPal's amount pattern: up to 10 integer digits, optionally a point and up to 3 decimals.
    static func isAmount(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard let whole = parts.first, (1...10).contains(whole.count), digits(whole) else { return false }
        guard parts.count == 2 else { return true }
        return (1...3).contains(parts[1].count) && digits(parts[1])
    }

    // MARK: Objects

    /// The whole order (<https://developer.paypal.com/docs/api/orders/v2/#orders_get>).
    static func json(_ order: PayPalOrder, base: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(order.id),
            "intent": "CAPTURE",
            "status": .string(order.status.rawValue),
            "purchase_units": .array(order.units.map { json($0, order: order, base: base) }),
            "create_time": .string(order.createTime),
            "links": links(order, base: base),
        ]
        if let time = order.updateTime { object["update_time"] = .string(time) }
        if let payerId = order.payerId {
            object["payer"] = [
                "name": ["given_name": "Mock", "surname": "Buyer"],
                "email_address": "buyer@opencat-mock.invalid",
                "payer_id": .string(payerId),
                "address": ["country_code": "US"],
            ]
            object["payment_source"] = [
                "paypal": [
                    "email_address": "buyer@opencat-mock.invalid",
                    "account_id": .string(payerId),
                    "account_status": "VERIFIED",
                    "name": ["given_name": "Mock", "surname": "Buyer"],
                    "address": ["country_code": "US"],
                ]
            ]
        } else if order.viaPaymentSource {
            object["payment_source"] = ["paypal": [:]]
        }
        return .object(object)
    }

    /// The minimal create answer: id, status, links (and `payment_source` for the `payment_source` form).
    static func minimalJSON(_ order: PayPalOrder, base: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(order.id), "status": .string(order.status.rawValue), "links": links(order, base: base),
        ]
        if order.viaPaymentSource { object["payment_source"] = ["paypal": [:]] }
        return .object(object)
    }

    static func json(_ unit: PayPalOrder.Unit, order: PayPalOrder, base: String) -> JSONValue {
        var unitAmount: [String: JSONValue] = ["currency_code": .string(unit.currency), "value": .string(unit.value)]
        if let breakdown = unit.breakdown { unitAmount["breakdown"] = breakdown }
        var object: [String: JSONValue] = [
            "reference_id": .string(unit.referenceId),
            "amount": .object(unitAmount),
            "payee": ["merchant_id": .string(unit.merchantId), "email_address": "merchant@opencat-mock.invalid"],
        ]
        if let customId = unit.customId { object["custom_id"] = .string(customId) }
        if let description = unit.description { object["description"] = .string(description) }
        if let invoiceId = unit.invoiceId { object["invoice_id"] = .string(invoiceId) }
        if let items = unit.items { object["items"] = items }
        if let capture = captureJSON(unit, order: order, base: base) {
            var payments: [String: JSONValue] = ["captures": [capture]]
            if !unit.refunds.isEmpty {
                payments["refunds"] = .array(unit.refunds.map { refundJSON($0, unit: unit, base: base) })
            }
            object["payments"] = .object(payments)
        }
        return .object(object)
    }

    /// The HATEOAS links PayPal gives for the order's status.
    private static func links(_ order: PayPalOrder, base: String) -> JSONValue {
        let orderURL = "\(base)/v2/checkout/orders/\(order.id)"
        let approveURL = "\(base)/checkoutnow?token=\(order.id)"
        switch order.status {
        case .payerActionRequired:
            return [link(orderURL, "self", "GET"), link(approveURL, "payer-action", "GET")]
        case .created:
            return [
                link(orderURL, "self", "GET"), link(approveURL, "approve", "GET"), link(orderURL, "update", "PATCH"),
                link("\(orderURL)/capture", "capture", "POST"),
            ]
        case .approved:
            return [
                link(orderURL, "self", "GET"), link(orderURL, "update", "PATCH"),
                link("\(orderURL)/capture", "capture", "POST"),
            ]
        case .completed:
            return [link(orderURL, "self", "GET")]
        }
    }

    static func link(_ href: String, _ rel: String, _ method: String) -> JSONValue {
        ["href": .string(href), "rel": .string(rel), "method": .string(method)]
    }

    // MARK: Webhooks

    /// The `CHECKOUT.ORDER.APPROVED` event of an order.
    func payPalWebhook(for order: PayPalOrder, base: String, at date: Date, to url: URL, state: inout State)
        -> Webhook
    {
        payPalWebhook(
            "CHECKOUT.ORDER.APPROVED",
            resourceType: "checkout-order",
            resourceVersion: "2.0",
            summary: "An order has been approved by buyer",
            resource: Self.json(order, base: base),
            base: base,
            at: date,
            to: url,
            state: &state
        )
    }

    /// An event with PayPal's transmission headers, recorded so that `verify-webhook-signature` can confirm it.
    func payPalWebhook(
        _ type: String,
        resourceType: String,
        resourceVersion: String,
        summary: String,
        resource: JSONValue,
        base: String,
        at date: Date,
        to url: URL,
        state: inout State
    ) -> Webhook {
        let eventId =
            "WH-" + Self.randomId("", count: 17, alphabet: Self.upperAlphanumerics) + "-"
            + Self.randomId("", count: 17, alphabet: Self.upperAlphanumerics)
        let time = Self.isoTime(date)
        let event: JSONValue = [
            "id": .string(eventId),
            "event_version": "1.0",
            "create_time": .string(time),
            "resource_type": .string(resourceType),
            "resource_version": .string(resourceVersion),
            "event_type": .string(type),
            "summary": .string(summary),
            "resource": resource,
            "links": [
                Self.link("\(base)/v1/notifications/webhooks-events/\(eventId)", "self", "GET"),
                Self.link("\(base)/v1/notifications/webhooks-events/\(eventId)/resend", "resend", "POST"),
            ],
        ]
        let body = event.serialized()
        let transmissionId = UUID().uuidString.lowercased()
        var signed = Data("\(transmissionId)|\(time)|".utf8)
        signed.append(Data(SHA256.hash(data: body)))
        let signature = Data(HMAC<SHA256>.authenticationCode(for: signed, using: transmissionKey))
            .base64EncodedString()
        state.transmissions[transmissionId] = Transmission(time: time, signature: signature, event: event)
        var headers = HTTPFields()
        headers[HTTPField.Name("PAYPAL-AUTH-ALGO")!] = "SHA256withRSA"
        headers[HTTPField.Name("PAYPAL-CERT-URL")!] = "\(base)/v1/notifications/certs/CERT-opencat-mock"
        headers[HTTPField.Name("PAYPAL-TRANSMISSION-ID")!] = transmissionId
        headers[HTTPField.Name("PAYPAL-TRANSMISSION-SIG")!] = signature
        headers[HTTPField.Name("PAYPAL-TRANSMISSION-TIME")!] = time
        headers[.contentType] = "application/json"
        headers[.userAgent] = "PayPal/AUHD-214.0-58844195"
        return Webhook(store: .paypal, eventType: type, eventId: eventId, url: url, headers: headers, body: body)
    }

    // MARK: Errors

    /// PayPal's error body (`name`, `message`, `debug_id`, `details[]`, `links`).
    static func payPalError(
        _ status: Int,
        name: String,
        message: String,
        issue: String,
        description: String,
        field: String? = nil,
        value: String? = nil,
        location: String? = nil
    ) -> MockResponse {
        var detail: [String: JSONValue] = ["issue": .string(issue), "description": .string(description)]
        if let field { detail["field"] = .string(field) }
        if let value { detail["value"] = .string(value) }
        if let location { detail["location"] = .string(location) } else if field != nil { detail["location"] = "body" }
        return .json(
            status,
            [
                "name": .string(name),
                "message": .string(message),
                "debug_id": .string(randomId("", count: 13, alphabet: "0123456789abcdef")),
                "details": [.object(detail)],
                "links": [
                    link("https://developer.paypal.com/docs/api/orders/v2/#error-\(issue)", "information_link", "GET")
                ],
            ]
        )
    }

    static func orderNotFound(_ id: String) -> MockResponse { notFound("order_id", id) }

    /// PayPal's 404 for an id in the path that names nothing (`order_id`, `capture_id`).
    static func notFound(_ field: String, _ id: String) -> MockResponse {
        payPalError(
            404,
            name: "RESOURCE_NOT_FOUND",
            message: "The specified resource does not exist.",
            issue: "INVALID_RESOURCE_ID",
            description: "Specified resource ID does not exist. Please check the resource ID and try again.",
            field: field,
            value: id,
            location: "path"
        )
    }

    static func unprocessable(_ issue: String, _ description: String) -> MockResponse {
        payPalError(
            422,
            name: "UNPROCESSABLE_ENTITY",
            message:
                "The requested action could not be performed, semantically incorrect, or failed business validation.",
            issue: issue,
            description: description
        )
    }

    static func malformedJSON() -> MockResponse {
        payPalError(
            400,
            name: "INVALID_REQUEST",
            message: "Request is not well-formed, syntactically incorrect, or violates schema.",
            issue: "MALFORMED_REQUEST_JSON",
            description: "The request JSON is not well formed."
        )
    }

    static func invalid(_ field: String, missing: Bool = false, value: String? = nil) -> CheckoutRefusal {
        CheckoutRefusal(
            response: payPalError(
                400,
                name: "INVALID_REQUEST",
                message: "Request is not well-formed, syntactically incorrect, or violates schema.",
                issue: missing ? "MISSING_REQUIRED_PARAMETER" : "INVALID_PARAMETER_VALUE",
                description: missing
                    ? "A required field / parameter is missing."
                    : "The value of a field is either too short or too long, or not supported by the mock.",
                field: field,
                value: value
            )
        )
    }
}

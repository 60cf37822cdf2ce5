import Foundation
import HTTPTypes
import MockStores
import OpenCatCore

/// A refund of a PayPal capture.
struct PayPalRefund: Sendable {
    var id: String
    /// The amount in the capture's smallest unit (its value's decimals).
    var minor: Int64
    var createTime: String
}

extension PayPalOrder.Unit {
    /// The capture's status: `COMPLETED`, `PARTIALLY_REFUNDED` or `REFUNDED`.
    var captureStatus: String {
        let refunded = refunds.reduce(0) { $0 + $1.minor }
        if refunded == 0 { return "COMPLETED" }
        return refunded >= capturedMinor ? "REFUNDED" : "PARTIALLY_REFUNDED"
    }

    /// The decimals of the captured value (PayPal's currency precision, as the order was made).
    var scale: Int { value.split(separator: ".", maxSplits: 1).dropFirst().first?.count ?? 0 }

    /// The captured amount in the smallest unit.
    var capturedMinor: Int64 { MockCheckout.minor(value, scale: scale) ?? 0 }
}

/// PayPal capture refunds (<https://developer.paypal.com/docs/api/payments/v2/#captures_refund>) on the checkout's
/// orders: `GET /v2/payments/captures/{id}` (with `supplementary_data.related_ids.order_id`) and
/// `POST /v2/payments/captures/{id}/refund` (an empty body refunds what is left; `amount` refunds part of it;
/// `PayPal-Request-Id` gets the same answer again). The capture becomes `PARTIALLY_REFUNDED` or `REFUNDED`, the order
/// lists its `payments.refunds`, and a `PAYMENT.CAPTURE.REFUNDED` event (a `refund` resource whose `up` link names the
/// capture) goes to the PayPal webhook endpoint.
extension MockCheckout {
    /// `GET /v2/payments/captures/{id}`.
    func readCapture(_ id: String, base: String, state: State) -> MockResponse {
        guard let (order, index) = Self.capture(id, in: state),
            let capture = Self.captureJSON(
                order.units[index],
                order: order,
                base: base
            )
        else { return Self.captureNotFound(id) }
        var object = capture.objectValue ?? [:]
        object["supplementary_data"] = ["related_ids": ["order_id": .string(order.id)]]
        return .json(200, .object(object))
    }

    /// `POST /v2/payments/captures/{id}/refund`.
    func refundCapture(
        _ id: String,
        request: MockRequest,
        base: String,
        state: inout State,
        webhooks: inout [Webhook]
    ) -> MockResponse {
        let key = request.header("PayPal-Request-Id").map { "refund:\(id):\($0)" }
        if let key, let reply = state.payPalReplies[key] { return reply }
        guard let (found, index) = Self.capture(id, in: state) else { return Self.captureNotFound(id) }
        var order = found
        var unit = order.units[index]
        let left = unit.capturedMinor - unit.refunds.reduce(0) { $0 + $1.minor }
        guard left > 0 else {
            return Self.unprocessable("CAPTURE_FULLY_REFUNDED", "The capture has already been fully refunded")
        }
        let amount: Int64
        switch Self.refundAmount(request.json, unit: unit) {
        case .failure(let refusal): return refusal.response
        case .success(let asked): amount = asked ?? left
        }
        guard amount <= left else {
            return Self.unprocessable(
                "REFUND_AMOUNT_EXCEEDED",
                "The refund amount must be less than or equal to the capture amount that has not yet been refunded."
            )
        }
        let time = Self.isoTime(request.receivedAt)
        let refund = PayPalRefund(
            id: Self.randomId("", count: 17, alphabet: Self.upperAlphanumerics),
            minor: amount,
            createTime: time
        )
        unit.refunds.append(refund)
        order.units[index] = unit
        order.updateTime = time
        state.orders[order.id] = order
        let resource = Self.refundJSON(refund, unit: unit, base: base)
        let response = MockResponse.json(201, resource)
        if let key { state.payPalReplies[key] = response }
        if let url = configuration.payPalWebhook {
            let value = Self.decimal(refund.minor, scale: unit.scale)
            webhooks.append(
                payPalWebhook(
                    "PAYMENT.CAPTURE.REFUNDED",
                    resourceType: "refund",
                    resourceVersion: "2.0",
                    summary: "A \(value) \(unit.currency) capture payment was refunded",
                    resource: resource,
                    base: base,
                    at: request.receivedAt,
                    to: url,
                    state: &state
                )
            )
        }
        return response
    }

    /// The refund's amount in minor units (`nil`: all that is left), or PayPal's refusal of the body.
    static func refundAmount(_ body: JSONValue?, unit: PayPalOrder.Unit) -> Result<Int64?, CheckoutRefusal> {
        guard let body, body.objectValue != nil else { return .failure(CheckoutRefusal(response: malformedJSON())) }
        guard let amount = body["amount"] else { return .success(nil) }
        guard let currency = amount["currency_code"]?.stringValue, let value = amount["value"]?.stringValue else {
            return .failure(CheckoutRefusal(response: invalid("/amount", missing: true).response))
        }
        guard currency == unit.currency else {
            return .failure(
                CheckoutRefusal(
                    response: unprocessable(
                        "REFUND_CURRENCY_MISMATCH",
                        "Refund must be in the same currency as the capture."
                    )
                )
            )
        }
        guard isAmount(value), let minor = minor(value, scale: unit.scale), minor > 0 else {
            return .failure(CheckoutRefusal(response: invalid("/amount/value", value: value).response))
        }
        return .success(minor)
    }

    /// A capture as PayPal shows it (in an order, or alone with `supplementary_data` added).
    static func captureJSON(_ unit: PayPalOrder.Unit, order: PayPalOrder, base: String) -> JSONValue? {
        guard let captureId = unit.captureId else { return nil }
        let time = unit.captureTime ?? order.createTime
        var capture: [String: JSONValue] = [
            "id": .string(captureId),
            "status": .string(unit.captureStatus),
            "amount": ["currency_code": .string(unit.currency), "value": .string(unit.value)],
            "final_capture": true,
            "seller_protection": [
                "status": "ELIGIBLE", "dispute_categories": ["ITEM_NOT_RECEIVED", "UNAUTHORIZED_TRANSACTION"],
            ],
            "create_time": .string(time),
            "update_time": .string(unit.refunds.last?.createTime ?? time),
            "links": [
                link("\(base)/v2/payments/captures/\(captureId)", "self", "GET"),
                link("\(base)/v2/payments/captures/\(captureId)/refund", "refund", "POST"),
                link("\(base)/v2/checkout/orders/\(order.id)", "up", "GET"),
            ],
        ]
        if let customId = unit.customId { capture["custom_id"] = .string(customId) }
        if let invoiceId = unit.invoiceId { capture["invoice_id"] = .string(invoiceId) }
        return .object(capture)
    }

    /// A refund as PayPal shows it: its `up` link names the capture.
    static func refundJSON(_ refund: PayPalRefund, unit: PayPalOrder.Unit, base: String) -> JSONValue {
        let amount: JSONValue = [
            "currency_code": .string(unit.currency), "value": .string(decimal(refund.minor, scale: unit.scale)),
        ]
        var object: [String: JSONValue] = [
            "id": .string(refund.id),
            "status": "COMPLETED",
            "amount": amount,
            "seller_payable_breakdown": ["gross_amount": amount, "net_amount": amount],
            "create_time": .string(refund.createTime),
            "update_time": .string(refund.createTime),
            "links": [
                link("\(base)/v2/payments/refunds/\(refund.id)", "self", "GET"),
                link("\(base)/v2/payments/captures/\(unit.captureId ?? "")", "up", "GET"),
            ],
        ]
        if let invoiceId = unit.invoiceId { object["invoice_id"] = .string(invoiceId) }
        if let customId = unit.customId { object["custom_id"] = .string(customId) }
        return .object(object)
    }

    /// The order and unit a capture id belongs to.
    static func capture(_ id: String, in state: State) -> (PayPalOrder, Int)? {
        for order in state.orders.values {
            if let index = order.units.firstIndex(where: { $0.captureId == id }) { return (order, index) }
        }
        return nil
    }

    /// A decimal string with at most `scale` decimals in minor units (`nil`: more decimals, or too large).
    static func minor(_ value: String, scale: Int) -> Int64? {
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first.flatMap({ Int64($0) }) else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= scale, fraction.allSatisfy(\.isASCII) else { return nil }
        let padded = fraction + String(repeating: "0", count: scale - fraction.count)
        var power: Int64 = 1
        for _ in 0..<scale { power *= 10 }
        let (product, overflow) = whole.multipliedReportingOverflow(by: power)
        guard !overflow, let decimals = padded.isEmpty ? 0 : Int64(padded) else { return nil }
        return product + decimals
    }

    /// Minor units as a decimal string with `scale` decimals.
    static func decimal(_ minor: Int64, scale: Int) -> String {
        guard scale > 0 else { return String(minor) }
        var power: Int64 = 1
        for _ in 0..<scale { power *= 10 }
        let fraction = String(minor % power)
        return "\(minor / power)." + String(repeating: "0", count: scale - fraction.count) + fraction
    }

    static func captureNotFound(_ id: String) -> MockResponse { notFound("capture_id", id) }
}

import Crypto
import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import Testing

/// The checkout simulator over real loopback sockets: a second `MockStoreServer` receives the webhooks (its
/// `waitForRequests` waits without sleeping).
struct MockCheckoutTests {
    static let webhookSecret = "whsec_opencatmocktestsecret0001"
    static let stripeAuth = ["Authorization": "Bearer \(TestKeys.stripeKey)"]
    static let formType = ["Content-Type": "application/x-www-form-urlencoded"]

    /// A receiver for webhooks, and a store server whose checkout sends them there.
    static func withCheckout(_ body: (MockStoreServer, MockStoreServer, MockCheckout) async throws -> Void)
        async throws
    {
        let hooks = ["/hooks/stripe", "/hooks/paypal"].map { path in
            Cassette.Interaction(
                request: .init(method: "POST", path: path),
                response: .init(status: 200, json: ["received": true]),
                times: 10,
                minTimes: 0
            )
        }
        try await MockStoreServer.withRunningServer(cassettes: [.script(.stripe, hooks)]) { receiver in
            let checkout = MockCheckout(
                configuration: .init(
                    stripeWebhook: (
                        url: receiver.baseURL.appendingPathComponent("hooks/stripe"), secret: Secret(webhookSecret)
                    ),
                    payPalWebhook: receiver.baseURL.appendingPathComponent("hooks/paypal")
                )
            )
            try await MockStoreServer.withRunningServer(credentials: TestKeys.credentials, checkout: checkout) {
                server in
                try await body(server, receiver, checkout)
            }
        }
    }

    static func sessionForm(successURL: String = "https://shop.example/return?session_id={CHECKOUT_SESSION_ID}")
        -> String
    {
        APIRequest.query([
            ("mode", "payment"),
            ("success_url", successURL),
            ("cancel_url", "https://shop.example/cancel"),
            ("client_reference_id", "user-1"),
            ("customer_email", "buyer@example.com"),
            ("line_items[0][price_data][currency]", "usd"),
            ("line_items[0][price_data][unit_amount]", "499"),
            ("line_items[0][price_data][product_data][name]", "10 keys <pack>"),
            ("line_items[0][quantity]", "2"),
            ("metadata[product_id]", "keys_10"),
            ("payment_intent_data[metadata][product_id]", "keys_10"),
            ("payment_intent_data[metadata][app_user_id]", "user-1"),
        ])
    }

    static func createSession(_ server: MockStoreServer, key: String = "key-1", form: String = sessionForm())
        async throws -> HTTPTransportResponse
    {
        try await Loopback.send(
            .post,
            server,
            "/v1/checkout/sessions",
            headers: stripeAuth.merging(formType) { $1 }.merging(["Idempotency-Key": key]) { $1 },
            body: form
        )
    }

    // MARK: Stripe

    @Test func stripeSessionIsPaidOnTheHostedPageAndASignedWebhookArrives() async throws {
        try await Self.withCheckout { server, receiver, checkout in
            let created = try await Self.createSession(server)
            #expect(created.status.code == 200)
            let session = try #require(created.json)
            let id = try #require(session["id"]?.stringValue)
            #expect(id.hasPrefix("cs_test_"))
            #expect(session["object"] == "checkout.session")
            #expect(session["status"] == "open")
            #expect(session["payment_status"] == "unpaid")
            #expect(session["amount_total"] == 998)
            #expect(session["currency"] == "usd")
            #expect(session["client_reference_id"] == "user-1")
            #expect(session["customer_email"] == "buyer@example.com")
            #expect(session["metadata"]?["product_id"] == "keys_10")
            #expect(session["payment_intent"] == .null)
            #expect(session["livemode"] == false)
            #expect(session["expires_at"]?.int64Value == session["created"]?.int64Value.map { $0 + 86_400 })
            let url = try #require(session["url"]?.stringValue)
            #expect(url == "\(server.baseURL.absoluteString)/checkout/pay/\(id)")

            // The same Idempotency-Key gets the same session.
            let replay = try await Self.createSession(server)
            #expect(replay.json?["id"]?.stringValue == id)
            #expect(replay.head.headerFields[HTTPField.Name("Idempotent-Replayed")!] == "true")

            let page = try await Loopback.send(.get, server, "/checkout/pay/\(id)")
            #expect(page.status.code == 200)
            #expect(page.head.headerFields[.contentType] == "text/html; charset=utf-8")
            for fragment in [
                "<html lang=\"en\">", "<title>", "name=\"viewport\"", "<main>", "id=\"pay\"", "9.98 USD",
                "10 keys &lt;pack&gt; × 2", "action=\"/checkout/pay/\(id)\"", "href=\"https://shop.example/cancel\"",
            ] {
                #expect(page.text.contains(fragment), "\(fragment)")
            }
            #expect(!page.text.contains("<script"))

            let paid = try await Loopback.send(.post, server, "/checkout/pay/\(id)", headers: Self.formType, body: "")
            #expect(paid.status.code == 303)
            #expect(paid.head.headerFields[.location] == "https://shop.example/return?session_id=\(id)")

            let read = try await Loopback.send(.get, server, "/v1/checkout/sessions/\(id)", headers: Self.stripeAuth)
            #expect(read.json?["status"] == "complete")
            #expect(read.json?["payment_status"] == "paid")
            let intentId = try #require(read.json?["payment_intent"]?.stringValue)
            #expect(intentId.hasPrefix("pi_"))

            let intent = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/\(intentId)?expand%5B%5D=latest_charge",
                headers: Self.stripeAuth
            )
            #expect(intent.status.code == 200)
            let object = try #require(intent.json)
            #expect(object["status"] == "succeeded")
            #expect(object["amount"] == 998)
            #expect(object["amount_received"] == 998)
            #expect(object["currency"] == "usd")
            #expect(object["livemode"] == false)
            #expect(object["metadata"] == ["product_id": "keys_10", "app_user_id": "user-1"])
            #expect(object["latest_charge"]?["status"] == "succeeded")
            #expect(object["latest_charge"]?["paid"] == true)
            #expect(object["latest_charge"]?["amount_refunded"] == 0)

            try await receiver.waitForRequests(1)
            let delivery = try #require(receiver.receivedRequests.first)
            #expect(delivery.path == "/hooks/stripe")
            let header = try #require(delivery.header("Stripe-Signature"))
            let parts = Dictionary(
                header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
                    .map { ($0[0], $0[1]) },
                uniquingKeysWith: { first, _ in first }
            )
            let timestamp = try #require(parts["t"])
            var signed = Data("\(timestamp).".utf8)
            signed.append(delivery.body)
            let expected = HMAC<SHA256>.authenticationCode(
                for: signed,
                using: SymmetricKey(data: Data(Self.webhookSecret.utf8))
            ).map { String(format: "%02x", $0) }.joined()
            #expect(parts["v1"] == expected)
            let event = try #require(delivery.json)
            #expect(event["type"] == "checkout.session.completed")
            #expect(event["object"] == "event")
            #expect(event["id"]?.stringValue?.hasPrefix("evt_") == true)
            #expect(event["data"]?["object"]?["id"]?.stringValue == id)
            #expect(event["data"]?["object"]?["payment_status"] == "paid")
            #expect(event["data"]?["object"]?["payment_intent"]?.stringValue == intentId)

            // Paying again only redirects again.
            let again = try await Loopback.send(.post, server, "/checkout/pay/\(id)", headers: Self.formType, body: "")
            #expect(again.status.code == 303)
            #expect(checkout.deliveries.allSatisfy { $0.eventType == "checkout.session.completed" })
        }
    }

    @Test func stripeRefusesBadAuthBadParamsAndUnknownIds() async throws {
        try await Self.withCheckout { server, _, _ in
            let missing = try await Loopback.send(
                .post,
                server,
                "/v1/checkout/sessions",
                headers: Self.formType,
                body: Self.sessionForm()
            )
            #expect(missing.status.code == 401)
            let wrong = try await Loopback.send(
                .post,
                server,
                "/v1/checkout/sessions",
                headers: Self.formType.merging(["Authorization": "Bearer sk_test_wrongkey12345678"]) { $1 },
                body: Self.sessionForm()
            )
            #expect(wrong.status.code == 401)
            #expect(wrong.json?["error"]?["type"] == "invalid_request_error")
            #expect(server.exchanges.map(\.handling) == [.rejectedByAuth(.stripe), .rejectedByAuth(.stripe)])

            let noItems = try await Loopback.send(
                .post,
                server,
                "/v1/checkout/sessions",
                headers: Self.stripeAuth.merging(Self.formType) { $1 },
                body: "mode=payment&success_url=https%3A%2F%2Fshop.example%2F"
            )
            #expect(noItems.status.code == 400)
            #expect(noItems.json?["error"]?["param"] == "line_items")

            let changed = try await Self.createSession(server, key: "key-2")
            #expect(changed.status.code == 200)
            let reused = try await Self.createSession(server, key: "key-2", form: Self.sessionForm(successURL: "x"))
            #expect(reused.status.code == 400)
            #expect(reused.json?["error"]?["type"] == "idempotency_error")

            let unknown = try await Loopback.send(
                .get,
                server,
                "/v1/checkout/sessions/cs_test_unknown",
                headers: Self.stripeAuth
            )
            #expect(unknown.status.code == 404)
            #expect(unknown.json?["error"]?["code"] == "resource_missing")
            let page = try await Loopback.send(.get, server, "/checkout/pay/cs_test_unknown")
            #expect(page.status.code == 404)
            #expect(page.text.contains("<html lang=\"en\">"))
        }
    }

    @Test func stripeSubstitutesAPercentEncodedSessionIdPlaceholder() async throws {
        try await Self.withCheckout { server, _, _ in
            let created = try await Self.createSession(
                server,
                form: Self.sessionForm(successURL: "https://shop.example/r?session_id=%7BCHECKOUT_SESSION_ID%7D")
            )
            let id = try #require(created.json?["id"]?.stringValue)
            let paid = try await Loopback.send(.post, server, "/checkout/pay/\(id)", headers: Self.formType, body: "")
            #expect(paid.head.headerFields[.location] == "https://shop.example/r?session_id=\(id)")
        }
    }

    @Test func withoutACheckoutTheEndpointsAreUnmatched() async throws {
        try await MockStoreServer.withRunningServer(credentials: TestKeys.credentials) { server in
            let response = try await Self.createSession(server)
            #expect(response.status.code == 599)
            #expect(server.unmatchedRequests.count == 1)
        }
    }

    // MARK: PayPal

    static func payPalToken(_ server: MockStoreServer) async throws -> String {
        let basic = Data("mock-client-id:mock-client-secret".utf8).base64EncodedString()
        let response = try await Loopback.send(
            .post,
            server,
            "/v1/oauth2/token",
            headers: ["Authorization": "Basic \(basic)"].merging(formType) { $1 },
            body: "grant_type=client_credentials"
        )
        return try #require(response.json?["access_token"]?.stringValue)
    }

    static let orderBody: JSONValue = [
        "intent": "CAPTURE",
        "purchase_units": [
            [
                "reference_id": "keys_10", "custom_id": "user-1", "description": "10 keys",
                "amount": ["currency_code": "USD", "value": "4.99"],
            ]
        ],
        "payment_source": [
            "paypal": [
                "experience_context": [
                    "return_url": "https://shop.example/paypal/return",
                    "cancel_url": "https://shop.example/paypal/cancel",
                ]
            ]
        ],
    ]

    @Test func payPalOrderIsApprovedNotifiedAndCapturedOnce() async throws {
        try await Self.withCheckout { server, receiver, _ in
            let token = try await Self.payPalToken(server)
            let auth = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
            let created = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders",
                headers: auth.merging(["PayPal-Request-Id": "create-1"]) { $1 },
                body: Self.orderBody.canonicalText
            )
            #expect(created.status.code == 201)
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(created.json?["status"] == "PAYER_ACTION_REQUIRED")
            let payerAction = created.json?["links"]?.arrayValue?.first { $0["rel"] == "payer-action" }
            #expect(payerAction?["href"]?.stringValue == "\(server.baseURL.absoluteString)/checkoutnow?token=\(id)")
            let replay = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders",
                headers: auth.merging(["PayPal-Request-Id": "create-1"]) { $1 },
                body: Self.orderBody.canonicalText
            )
            #expect(replay.json?["id"]?.stringValue == id)

            let early = try await Loopback.send(.post, server, "/v2/checkout/orders/\(id)/capture", headers: auth)
            #expect(early.status.code == 422)
            #expect(early.json?["details"]?[0]?["issue"] == "ORDER_NOT_APPROVED")

            let page = try await Loopback.send(.get, server, "/checkoutnow?token=\(id)")
            #expect(page.status.code == 200)
            for fragment in ["<html lang=\"en\">", "<title>", "<main>", "id=\"approve\"", "4.99 USD", "10 keys"] {
                #expect(page.text.contains(fragment), "\(fragment)")
            }
            #expect(!page.text.contains("<script"))

            let approved = try await Loopback.send(
                .post,
                server,
                "/checkoutnow?token=\(id)",
                headers: Self.formType,
                body: ""
            )
            #expect(approved.status.code == 303)
            let location = try #require(approved.head.headerFields[.location])
            #expect(location.hasPrefix("https://shop.example/paypal/return?token=\(id)&PayerID="))

            let order = try await Loopback.send(.get, server, "/v2/checkout/orders/\(id)", headers: auth)
            #expect(order.json?["status"] == "APPROVED")
            #expect(location.hasSuffix("PayerID=\(order.json?["payer"]?["payer_id"]?.stringValue ?? "?")"))

            try await receiver.waitForRequests(1)
            let delivery = try #require(receiver.receivedRequests.first)
            #expect(delivery.path == "/hooks/paypal")
            #expect(delivery.json?["event_type"] == "CHECKOUT.ORDER.APPROVED")
            #expect(delivery.json?["resource_type"] == "checkout-order")
            #expect(delivery.json?["resource"]?["id"]?.stringValue == id)
            #expect(delivery.json?["resource"]?["status"] == "APPROVED")

            // PayPalWebhookVerifier's request: the transmission headers, the webhook id, the raw event.
            func verification(event: Data) -> String {
                var fields: [String: JSONValue] = ["webhook_id": "WH-CONFIGURED"]
                for (header, field) in [
                    ("PAYPAL-AUTH-ALGO", "auth_algo"), ("PAYPAL-CERT-URL", "cert_url"),
                    ("PAYPAL-TRANSMISSION-ID", "transmission_id"), ("PAYPAL-TRANSMISSION-SIG", "transmission_sig"),
                    ("PAYPAL-TRANSMISSION-TIME", "transmission_time"),
                ] {
                    fields[field] = .string(delivery.header(header) ?? "")
                }
                let head = JSONValue.object(fields).canonicalText.dropLast()
                return String(head) + #","webhook_event":"# + String(decoding: event, as: UTF8.self) + "}"
            }
            let verified = try await Loopback.send(
                .post,
                server,
                "/v1/notifications/verify-webhook-signature",
                headers: auth,
                body: verification(event: delivery.body)
            )
            #expect(verified.json == ["verification_status": "SUCCESS"])
            let tampered = String(decoding: delivery.body, as: UTF8.self).replacingOccurrences(
                of: "An order has been approved by buyer",
                with: "An order has been approved by someone"
            )
            let refused = try await Loopback.send(
                .post,
                server,
                "/v1/notifications/verify-webhook-signature",
                headers: auth,
                body: verification(event: Data(tampered.utf8))
            )
            #expect(refused.json == ["verification_status": "FAILURE"])

            let captureHeaders = auth.merging(
                ["PayPal-Request-Id": "opencat-capture-\(id)", "Prefer": "return=representation"]
            ) { $1 }
            let captured = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders/\(id)/capture",
                headers: captureHeaders,
                body: "{}"
            )
            #expect(captured.status.code == 201)
            let unit = captured.json?["purchase_units"]?[0]
            #expect(captured.json?["status"] == "COMPLETED")
            #expect(unit?["reference_id"] == "keys_10")
            #expect(unit?["custom_id"] == "user-1")
            #expect(unit?["payee"]?["merchant_id"] == .string(MockCheckout.defaultPayPalMerchantId))
            let capture = unit?["payments"]?["captures"]?[0]
            #expect(capture?["status"] == "COMPLETED")
            #expect(capture?["amount"] == ["currency_code": "USD", "value": "4.99"])
            #expect(capture?["final_capture"] == true)
            #expect(capture?["create_time"]?.stringValue != nil)
            #expect(capture?["update_time"]?.stringValue != nil)

            let repeated = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders/\(id)/capture",
                headers: captureHeaders,
                body: "{}"
            )
            #expect(repeated.status.code == 201)
            #expect(repeated.body == captured.body)
            let other = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders/\(id)/capture",
                headers: auth.merging(["PayPal-Request-Id": "another"]) { $1 },
                body: "{}"
            )
            #expect(other.status.code == 422)
            #expect(other.json?["details"]?[0]?["issue"] == "ORDER_ALREADY_CAPTURED")

            let completed = try await Loopback.send(.get, server, "/v2/checkout/orders/\(id)", headers: auth)
            #expect(completed.json?["status"] == "COMPLETED")
        }
    }

    /// A captured order's capture is read with its order id, refunded in part and then in full, once per
    /// `PayPal-Request-Id`, never beyond what was captured; each refund is announced with `PAYMENT.CAPTURE.REFUNDED`.
    @Test func payPalCapturesAreRefundedInPartThenInFullWithTheirWebhooks() async throws {
        try await Self.withCheckout { server, receiver, _ in
            let token = try await Self.payPalToken(server)
            let auth = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
            let created = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders",
                headers: auth,
                body: Self.orderBody.canonicalText
            )
            let id = try #require(created.json?["id"]?.stringValue)
            _ = try await Loopback.send(.post, server, "/checkoutnow?token=\(id)", headers: Self.formType, body: "")
            let captured = try await Loopback.send(.post, server, "/v2/checkout/orders/\(id)/capture", headers: auth)
            let captureId = try #require(
                captured.json?["purchase_units"]?[0]?["payments"]?["captures"]?[0]?["id"]?.stringValue
            )
            let read = try await Loopback.send(.get, server, "/v2/payments/captures/\(captureId)", headers: auth)
            #expect(read.status.code == 200)
            #expect(read.json?["supplementary_data"]?["related_ids"]?["order_id"]?.stringValue == id)
            #expect(read.json?["status"] == "COMPLETED")

            func refund(_ body: JSONValue, key: String) async throws -> HTTPTransportResponse {
                try await Loopback.send(
                    .post,
                    server,
                    "/v2/payments/captures/\(captureId)/refund",
                    headers: auth.merging(["PayPal-Request-Id": key]) { $1 },
                    body: body.canonicalText
                )
            }
            let part: JSONValue = ["amount": ["value": "1.99", "currency_code": "USD"]]
            let first = try await refund(part, key: "refund-1")
            #expect(first.status.code == 201)
            #expect(first.json?["status"] == "COMPLETED")
            #expect(first.json?["amount"] == ["currency_code": "USD", "value": "1.99"])
            let up = first.json?["links"]?.arrayValue?.first { $0["rel"] == "up" }?["href"]?.stringValue
            #expect(up?.hasSuffix("/v2/payments/captures/\(captureId)") == true)
            #expect(try await refund(part, key: "refund-1").body == first.body)
            let partly = try await Loopback.send(.get, server, "/v2/payments/captures/\(captureId)", headers: auth)
            #expect(partly.json?["status"] == "PARTIALLY_REFUNDED")

            let tooMuch = try await refund(["amount": ["value": "3.01", "currency_code": "USD"]], key: "refund-2")
            #expect(tooMuch.status.code == 422)
            #expect(tooMuch.json?["details"]?[0]?["issue"] == "REFUND_AMOUNT_EXCEEDED")
            let euros = try await refund(["amount": ["value": "1.00", "currency_code": "EUR"]], key: "refund-3")
            #expect(euros.json?["details"]?[0]?["issue"] == "REFUND_CURRENCY_MISMATCH")
            let rest = try await refund([:], key: "refund-4")
            #expect(rest.status.code == 201)
            #expect(rest.json?["amount"]?["value"] == "3.00")
            let order = try await Loopback.send(.get, server, "/v2/checkout/orders/\(id)", headers: auth)
            let payments = order.json?["purchase_units"]?[0]?["payments"]
            #expect(payments?["captures"]?[0]?["status"] == "REFUNDED")
            #expect(
                payments?["refunds"]?.arrayValue?.compactMap { $0["amount"]?["value"]?.stringValue } == [
                    "1.99", "3.00",
                ]
            )
            let again = try await refund([:], key: "refund-5")
            #expect(again.status.code == 422)
            #expect(again.json?["details"]?[0]?["issue"] == "CAPTURE_FULLY_REFUNDED")
            let unknown = try await Loopback.send(.get, server, "/v2/payments/captures/NOPE", headers: auth)
            #expect(unknown.status.code == 404)
            #expect(unknown.json?["name"] == "RESOURCE_NOT_FOUND")

            // The approval's event, then one per refund made.
            try await receiver.waitForRequests(3)
            let refunds = receiver.receivedRequests.filter { $0.json?["event_type"] == "PAYMENT.CAPTURE.REFUNDED" }
            #expect(refunds.count == 2)
            #expect(refunds.allSatisfy { $0.json?["resource_type"] == "refund" })
            #expect(
                refunds.compactMap { $0.json?["resource"]?["amount"]?["value"]?.stringValue }.sorted() == [
                    "1.99", "3.00",
                ]
            )
        }
    }

    @Test func payPalRefusesMissingOrUnissuedTokensAndUnknownOrders() async throws {
        try await Self.withCheckout { server, _, _ in
            let missing = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders",
                headers: ["Content-Type": "application/json"],
                body: Self.orderBody.canonicalText
            )
            #expect(missing.status.code == 401)
            #expect(missing.json?["name"] == "AUTHENTICATION_FAILURE")
            let unissued = try await Loopback.send(
                .post,
                server,
                "/v1/notifications/verify-webhook-signature",
                headers: ["Authorization": "Bearer not-issued", "Content-Type": "application/json"],
                body: "{}"
            )
            #expect(unissued.status.code == 401)
            #expect(server.exchanges.map(\.handling) == [.rejectedByAuth(.paypal), .rejectedByAuth(.paypal)])

            let token = try await Self.payPalToken(server)
            let unknown = try await Loopback.send(
                .get,
                server,
                "/v2/checkout/orders/UNKNOWN0000000000",
                headers: ["Authorization": "Bearer \(token)"]
            )
            #expect(unknown.status.code == 404)
            #expect(unknown.json?["details"]?[0]?["issue"] == "INVALID_RESOURCE_ID")
            let invalid = try await Loopback.send(
                .post,
                server,
                "/v2/checkout/orders",
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: #"{"intent":"CAPTURE","purchase_units":[{"amount":{"currency_code":"USD","value":"4.999.1"}}]}"#
            )
            #expect(invalid.status.code == 400)
            #expect(invalid.json?["details"]?[0]?["field"] == "/purchase_units/0/amount/value")
            let page = try await Loopback.send(.get, server, "/checkoutnow?token=UNKNOWN")
            #expect(page.status.code == 404)
        }
    }
}

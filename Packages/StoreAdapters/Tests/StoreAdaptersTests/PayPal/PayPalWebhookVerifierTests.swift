import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct PayPalWebhookVerifierTests {
    private typealias Fixtures = PayPalTestFixtures
    private static let verifyPath = "\(PayPalTestFixtures.base)/v1/notifications/verify-webhook-signature"
    private static let signature = "lmI95Jx3OpenCatFAKEtransmissionSIG+/=="

    /// A `CHECKOUT.ORDER.APPROVED` delivery with odd but valid formatting: tabs, key order, escapes, `10.0`.
    private static let rawEvent = Data(
        "{\"resource\":{\"status\":\"APPROVED\",\"id\":\"\(PayPalTestFixtures.orderId)\",\"intent\":\"CAPTURE\",\t\"purchase_units\":[{\"reference_id\":\"pro.lifetime\",\"amount\":{\"value\":\"10.00\",\"currency_code\":\"USD\"},\"description\":\"caf\\u00e9 \\/ \\\"1 year\\\"\"}]},\n\"id\":\"WH-1V203642KU442722T-3S346483MF8733038\", \"event_version\":\"1.0\",\"resource_type\":\"checkout-order\",\"event_type\":\"CHECKOUT.ORDER.APPROVED\",\"summary\":\"An order has been approved by buyer\",\"create_time\":\"2024-03-01T10:00:00.404Z\",\"resource_version\":\"2.0\",\"amount\":10.0}\n"
            .utf8
    )

    private static let headers: [String: String] = [
        "paypal-auth-algo": "SHA256withRSA",
        "PAYPAL-CERT-URL": "https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77",
        "Paypal-Transmission-Id": "69cd13f0-d67a-11e5-baa3-778b53f4ae55",
        "PAYPAL-TRANSMISSION-SIG": signature,
        "PAYPAL-TRANSMISSION-TIME": "2023-11-14T22:13:21Z",  // the test clock starts at 22:13:20
        "Content-Type": "application/json",
    ]

    private func transport(status: String = "SUCCESS") -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.post, Self.verifyPath, exact: true, json: #"{"verification_status": "\#(status)"}"#)
        return transport
    }

    @Test func genuineDeliveryIsConfirmedAndDecoded() async throws {
        let transport = transport()
        let verifier = try Fixtures.adapter(transport).webhookVerifier()
        let event = try await verifier.verify(rawEvent: Self.rawEvent, headers: Self.headers)

        #expect(event.id == "WH-1V203642KU442722T-3S346483MF8733038")
        #expect(event.eventType == "CHECKOUT.ORDER.APPROVED")
        #expect(event.resourceType == "checkout-order")
        #expect(event.order?.id == Fixtures.orderId)
        #expect(event.order?.status == .approved)
        #expect(event.order?.purchaseUnits?.first?.referenceId == "pro.lifetime")
        #expect(event.capture == nil)
        let resource = String(decoding: try #require(event.resource), as: UTF8.self)
        #expect(resource.hasPrefix(#"{"status":"APPROVED""#))
        #expect(String(decoding: Self.rawEvent, as: UTF8.self).contains(resource))
    }

    @Test func verificationRequestCarriesTheRawEventByteForByte() async throws {
        let transport = transport()
        _ = try await Fixtures.adapter(transport).webhookVerifier().verify(
            rawEvent: Self.rawEvent,
            headers: Self.headers
        )

        let request = try #require(transport.requests(matching: "verify-webhook-signature").first)
        #expect(request.request.method == .post)
        #expect(request.request.headerFields[.authorization] == "Bearer \(Fixtures.accessToken)")
        #expect(request.request.headerFields[.contentType] == "application/json")
        let body = try #require(request.body)
        var suffix = Data(#""webhook_event":"#.utf8)
        suffix.append(Self.rawEvent)
        suffix.append(UInt8(ascii: "}"))
        #expect(body.suffix(suffix.count) == suffix)

        let fields = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(fields["auth_algo"] as? String == "SHA256withRSA")
        #expect(fields["cert_url"] as? String == Self.headers["PAYPAL-CERT-URL"])
        #expect(fields["transmission_id"] as? String == "69cd13f0-d67a-11e5-baa3-778b53f4ae55")
        #expect(fields["transmission_sig"] as? String == Self.signature)
        #expect(fields["transmission_time"] as? String == "2023-11-14T22:13:21Z")
        #expect(fields["webhook_id"] as? String == "1JE4291016473214C")
        #expect(fields["webhook_event"] is [String: Any])
        #expect(!request.bodyText.contains(#"\/notifications"#))
    }

    @Test func headerValuesAreJSONEscaped() throws {
        let body = try PayPalWebhookVerifier.requestBody(
            fields: [("auth_algo", #"a"b\c"#)],
            rawEvent: Data("{}".utf8)
        )
        #expect(String(decoding: body, as: UTF8.self) == #"{"auth_algo":"a\"b\\c","webhook_event":{}}"#)
    }

    @Test func failureStatusIsVerificationFailed() async throws {
        let transport = transport(status: "FAILURE")
        await #expect(throws: PayPalWebhookError(.verificationFailed, "PayPal did not confirm the delivery (FAILURE)"))
        {
            try await Fixtures.adapter(transport).webhookVerifier().verify(
                rawEvent: Self.rawEvent,
                headers: Self.headers
            )
        }
    }

    @Test(arguments: PayPalWebhookVerifier.transmissionHeaders.map(\.header))
    func missingTransmissionHeaderIsRejectedWithoutAskingPayPal(header: String) async throws {
        let transport = transport()
        let headers = Self.headers.filter { $0.key.uppercased() != header }
        let error = await #expect(throws: PayPalWebhookError.self) {
            try await Fixtures.adapter(transport).webhookVerifier().verify(rawEvent: Self.rawEvent, headers: headers)
        }
        #expect(error?.code == .missingHeader)
        #expect(transport.requests.isEmpty)
    }

    /// Security issue item 2 (PayPal part): no verifier without a webhook id.
    @Test(arguments: [nil, "", "  "] as [String?])
    func missingOrBlankWebhookIdIsMisconfigured(webhookId: String?) throws {
        let transport = transport()
        let adapter = Fixtures.adapter(transport, webhookId: webhookId)
        let error = #expect(throws: StoreAdapterError.self) { try adapter.webhookVerifier() }
        #expect(error?.code == .misconfigured)
        #expect(throws: StoreAdapterError.self) { try PayPalWebhookVerifier(configuration: adapter.configuration) }
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: ["", "not json", #"{"id": "WH-1"}"#, #"{"id": "WH-1", "event_type": "X"} trailing"#, "[1]"])
    func bodyThatIsNotAnEventIsMalformedWithoutAskingPayPal(body: String) async throws {
        let transport = transport()
        let error = await #expect(throws: PayPalWebhookError.self) {
            try await Fixtures.adapter(transport).webhookVerifier().verify(
                rawEvent: Data(body.utf8),
                headers: Self.headers
            )
        }
        #expect(error?.code == .malformedPayload)
        #expect(transport.requests.isEmpty)
    }

    @Test func verifierSharesTheAdaptersAccessToken() async throws {
        let transport = transport()
        transport.on(.get, Fixtures.orderPath, exact: true, json: Fixtures.order(status: "CREATED"))
        let adapter = Fixtures.adapter(transport)
        _ = try await adapter.verify(Fixtures.proof())
        _ = try await adapter.webhookVerifier().verify(rawEvent: Self.rawEvent, headers: Self.headers)
        #expect(transport.requests(matching: "/oauth2/token").count == 1)
    }

    @Test func standaloneVerifierUsesTheConfiguredWebhookId() async throws {
        let transport = transport()
        let configuration = Fixtures.adapter(transport).configuration
        let verifier = try PayPalWebhookVerifier(configuration: configuration, webhookId: "OTHERHOOK")
        var fields = HTTPFields()
        for (name, value) in Self.headers { fields[HTTPField.Name(name)!] = value }
        _ = try await verifier.verify(rawEvent: Self.rawEvent, headers: fields)
        #expect(verifier.webhookId == "OTHERHOOK")
        #expect(
            transport.requests(matching: "verify-webhook-signature").first?.bodyText.contains(
                #""webhook_id":"OTHERHOOK""#
            ) == true
        )
    }

    @Test func captureEventsDecodeTheCapture() async throws {
        let raw = Data(
            #"{"id": "WH-3", "event_type": "PAYMENT.CAPTURE.COMPLETED", "resource_type": "capture", "resource": {"id": "5VK462069F664902F", "status": "COMPLETED", "amount": {"value": "10.00", "currency_code": "USD"}, "custom_id": "user-7"}}"#
                .utf8
        )
        let event = try await Fixtures.adapter(transport()).webhookVerifier().verify(
            rawEvent: raw,
            headers: Self.headers
        )
        #expect(event.capture?.status == .completed)
        #expect(event.capture?.amount?.exact == Money(decimalString: "10.00", currency: "USD"))
        #expect(event.order == nil)
    }

    @Test func payPalErrorsWhileVerifyingAreStoreAdapterErrors() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .post,
            Self.verifyPath,
            exact: true,
            status: 400,
            json: Fixtures.error(name: "VALIDATION_ERROR", issue: "INVALID_PARAMETER_SYNTAX")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).webhookVerifier().verify(
                rawEvent: Self.rawEvent,
                headers: Self.headers
            )
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "VALIDATION_ERROR/INVALID_PARAMETER_SYNTAX (debug_id 81db5c4ddfa35)")
        #expect(transport.requests(matching: "verify-webhook-signature").count == 1)
    }

    @Test func rejectionsNeverShowCredentialsTokensOrSignatures() async throws {
        let recorder = LogCapture()
        var texts: [String] = []
        for status in ["FAILURE", "SUCCESS"] {
            let adapter = Fixtures.adapter(transport(status: status), logger: recorder)
            do {
                _ = try await adapter.webhookVerifier().verify(rawEvent: Self.rawEvent, headers: Self.headers)
            } catch {
                texts.append(String(describing: error))
            }
            do {
                _ = try await adapter.webhookVerifier().verify(rawEvent: Data("{".utf8), headers: Self.headers)
            } catch {
                texts.append(String(describing: error))
            }
        }
        #expect(texts.count == 3)
        for text in texts + [recorder.text] {
            #expect(!text.contains(Fixtures.clientSecret))
            #expect(!text.contains(Fixtures.accessToken))
            #expect(!text.contains(Self.signature))
        }
    }

    /// Security issue item 13: an old (or far-future) transmission is refused before PayPal is asked.
    @Test(arguments: [
        "2023-11-14T22:08:19Z", "2023-11-14T22:18:21Z", "2024-03-01T10:00:01Z", "yesterday", "2023-11-14 22:13:20",
    ])
    func transmissionOutsideToleranceIsStaleWithoutAskingPayPal(time: String) async throws {
        let transport = transport()
        var headers = Self.headers
        headers["PAYPAL-TRANSMISSION-TIME"] = time
        let error = await #expect(throws: PayPalWebhookError.self) {
            try await Fixtures.adapter(transport).webhookVerifier().verify(rawEvent: Self.rawEvent, headers: headers)
        }
        #expect(error?.code == .staleTransmission)
        #expect(transport.requests.isEmpty)
    }

    @Test func toleranceBoundaryAndDisabledCheck() async throws {
        let clock = ManualClock(
            start: Date(timeIntervalSince1970: 1_700_000_001 + 300),
            autoAdvance: true,
            holdsDuringExternalWork: true
        )
        let adapter = Fixtures.adapter(transport(), clock: clock)
        _ = try await adapter.webhookVerifier().verify(rawEvent: Self.rawEvent, headers: Self.headers)
        clock.advance(by: .seconds(1))
        await #expect(throws: PayPalWebhookError.self) {
            try await adapter.webhookVerifier().verify(rawEvent: Self.rawEvent, headers: Self.headers)
        }
        _ = try await adapter.webhookVerifier(tolerance: nil).verify(rawEvent: Self.rawEvent, headers: Self.headers)
    }

    /// Security issue item 13: the replay hook sees each confirmed transmission id and can refuse a repeat.
    @Test func replayHookRefusesASecondDeliveryOfTheSameTransmission() async throws {
        let seen = SeenTransmissions()
        let transport = transport()
        let verifier = try Fixtures.adapter(transport).webhookVerifier(isReplay: { await seen.insert($0) })
        _ = try await verifier.verify(rawEvent: Self.rawEvent, headers: Self.headers)
        let error = await #expect(throws: PayPalWebhookError.self) {
            try await verifier.verify(rawEvent: Self.rawEvent, headers: Self.headers)
        }
        #expect(error?.code == .replayed)
        #expect(await seen.ids == ["69cd13f0-d67a-11e5-baa3-778b53f4ae55"])
    }

    @Test func replayHookIsNotAskedAboutDeliveriesPayPalRefuses() async throws {
        let seen = SeenTransmissions()
        let verifier = try Fixtures.adapter(transport(status: "FAILURE")).webhookVerifier(isReplay: {
            await seen.insert($0)
        })
        await #expect(throws: PayPalWebhookError.self) {
            try await verifier.verify(rawEvent: Self.rawEvent, headers: Self.headers)
        }
        #expect(await seen.ids.isEmpty)
    }
}

/// A replay store for tests: remembers ids, answers whether one was already there.
private actor SeenTransmissions {
    private(set) var ids: [String] = []
    func insert(_ id: String) -> Bool {
        if ids.contains(id) { return true }
        ids.append(id)
        return false
    }
}

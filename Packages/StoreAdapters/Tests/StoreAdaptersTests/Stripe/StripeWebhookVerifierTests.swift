import Crypto
import Foundation
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct StripeWebhookVerifierTests {
    private static let secret = "whsec_opencatFAKEsecretNOTREAL0123456789"
    private static let signedAt: Int64 = 1_700_000_000
    private static let now = Date(timeIntervalSince1970: TimeInterval(signedAt) + 30)
    /// A `payment_intent.succeeded` event; the object has a nested brace and an escaped quote in a string.
    private static let payload = Data(
        """
        {
          "id": "evt_3OpenCatTestEvent01",
          "object": "event",
          "api_version": "2024-06-20",
          "created": 1700000000,
          "livemode": false,
          "type": "payment_intent.succeeded",
          "data": {
            "object": {"id": "pi_3OpenCatTestIntent0001", "object": "payment_intent", "amount": 999,
                       "amount_received": 999, "currency": "usd", "status": "succeeded", "livemode": false,
                       "created": 1700000000, "description": "a \\"quoted\\" {brace}",
                       "metadata": {"product_id": "pro.monthly"}, "latest_charge": "ch_1"}
          },
          "pending_webhooks": 1,
          "request": {"id": null, "idempotency_key": null}
        }
        """.utf8
    )

    private static func signature(_ payload: Data, secret: String = secret, at timestamp: Int64 = signedAt) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    private static func header(_ payload: Data = payload, secret: String = secret, at timestamp: Int64 = signedAt)
        -> String
    {
        "t=\(timestamp),v1=\(signature(payload, secret: secret, at: timestamp))"
    }

    private let verifier = try! StripeWebhookVerifier(secret: Secret(Self.secret))

    private func rejection(
        _ verifier: StripeWebhookVerifier? = nil,
        payload: Data = Self.payload,
        header: String?,
        now: Date = Self.now
    ) -> StripeWebhookError? {
        do {
            _ = try (verifier ?? self.verifier).verify(payload: payload, signatureHeader: header, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func validSignatureYieldsTheEventWithItsRawObject() throws {
        let event = try verifier.verify(payload: Self.payload, signatureHeader: Self.header(), now: Self.now)
        #expect(event.id == "evt_3OpenCatTestEvent01")
        #expect(event.type == .paymentIntentSucceeded)
        #expect(event.livemode == false)
        #expect(event.apiVersion == "2024-06-20")
        #expect(event.createdDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(event.paymentIntent?.id == "pi_3OpenCatTestIntent0001")
        #expect(event.paymentIntent?.status == .succeeded)
        let raw = String(decoding: event.data.object, as: UTF8.self)
        #expect(raw.hasPrefix(#"{"id": "pi_3OpenCatTestIntent0001""#))
        #expect(raw.hasSuffix(#""latest_charge": "ch_1"}"#))
        #expect(String(decoding: Self.payload, as: UTF8.self).contains(raw))
        #expect(event.data.previousAttributes == nil)
    }

    @Test func wrongSecretIsASignatureMismatch() {
        let error = rejection(header: Self.header(secret: "whsec_someoneElsesSecret"))
        #expect(error?.code == .signatureMismatch)
    }

    @Test func tamperedBodyIsASignatureMismatch() {
        var tampered = String(decoding: Self.payload, as: UTF8.self)
        tampered = tampered.replacingOccurrences(of: "\"amount\": 999", with: "\"amount\": 99900")
        let error = rejection(payload: Data(tampered.utf8), header: Self.header())
        #expect(error?.code == .signatureMismatch)
    }

    @Test func staleTimestampIsOutsideTolerance() {
        let late = Date(timeIntervalSince1970: TimeInterval(Self.signedAt) + 301)
        #expect(rejection(header: Self.header(), now: late)?.code == .timestampOutsideTolerance)
        let justInTime = Date(timeIntervalSince1970: TimeInterval(Self.signedAt) + 300)
        #expect(rejection(header: Self.header(), now: justInTime) == nil)
    }

    @Test func timestampFarInTheFutureIsOutsideTolerance() {
        let early = Date(timeIntervalSince1970: TimeInterval(Self.signedAt) - 301)
        #expect(rejection(header: Self.header(), now: early)?.code == .timestampOutsideTolerance)
    }

    @Test func toleranceIsConfigurableAndCanBeDisabled() throws {
        let strict = try StripeWebhookVerifier(secret: Secret(Self.secret), tolerance: .seconds(10))
        #expect(rejection(strict, header: Self.header())?.code == .timestampOutsideTolerance)
        let lenient = try StripeWebhookVerifier(secret: Secret(Self.secret), tolerance: nil)
        #expect(rejection(lenient, header: Self.header(), now: Date(timeIntervalSince1970: 2_000_000_000)) == nil)
    }

    @Test func anyOfSeveralV1SignaturesMayMatch() {
        let rotated =
            "t=\(Self.signedAt),v1=\(Self.signature(Self.payload, secret: "whsec_oldSecret")),v1=\(Self.signature(Self.payload))"
        #expect(rejection(header: rotated) == nil)
        let bothWrong =
            "t=\(Self.signedAt),v1=\(Self.signature(Self.payload, secret: "whsec_a")),v1=\(Self.signature(Self.payload, secret: "whsec_b"))"
        #expect(rejection(header: bothWrong)?.code == .signatureMismatch)
    }

    @Test func verifierWithSeveralSecretsAcceptsEither() throws {
        let rolling = try StripeWebhookVerifier(secrets: [Secret("whsec_newSecretRolledIn0001"), Secret(Self.secret)])
        #expect(rejection(rolling, header: Self.header()) == nil)
        #expect(rejection(rolling, header: Self.header(secret: "whsec_newSecretRolledIn0001")) == nil)
        #expect(rejection(rolling, header: Self.header(secret: "whsec_other"))?.code == .signatureMismatch)
    }

    /// Security issue item 2: HMAC under an empty key is computable by anyone, so no verifier may exist without a
    /// real secret.
    @Test(arguments: [
        "", "   ", "\n", "whsec_", "whsec_short", "sk_test_opencatFAKEkeyNOTREAL0123456789", "whsec_has space inside00",
    ])
    func unusableSecretIsRefusedAsMisconfigured(secret: String) throws {
        let error = try #require(throws: StoreAdapterError.self) { try StripeWebhookVerifier(secret: Secret(secret)) }
        #expect(error.code == .misconfigured)
        #expect(error.store == .stripe)
        #expect(secret.count < 8 || !error.description.contains(secret))
    }

    @Test func emptySecretListIsRefused() {
        #expect(throws: StoreAdapterError.self) { try StripeWebhookVerifier(secrets: []) }
        #expect(throws: StoreAdapterError.self) {
            try StripeWebhookVerifier(secrets: [Secret(Self.secret), Secret("")])
        }
    }

    /// Security issue item 18: extreme dates and timestamps are rejected, never trap.
    @Test func extremeTimestampsAndDatesAreRejectedWithoutTrapping() throws {
        let farFuture = Date(timeIntervalSince1970: TimeInterval(Int64.max))
        let farPast = Date(timeIntervalSince1970: TimeInterval(Int64.min))
        #expect(rejection(header: Self.header(), now: farFuture)?.code == .timestampOutsideTolerance)
        #expect(rejection(header: Self.header(), now: farPast)?.code == .timestampOutsideTolerance)
        let maxHeader = Self.header(at: Int64.max)
        #expect(rejection(header: maxHeader, now: farPast)?.code == .timestampOutsideTolerance)
        #expect(rejection(header: maxHeader, now: Self.now)?.code == .timestampOutsideTolerance)
        #expect(rejection(header: maxHeader, now: farFuture) == nil)
        let wide = try StripeWebhookVerifier(secret: Secret(Self.secret), tolerance: .seconds(Int64.max))
        #expect(rejection(wide, header: Self.header(), now: farFuture) == nil)
        #expect(StripeWebhookVerifier.describe(seconds: -.infinity) == "more than 10^15 s")
        #expect(StripeWebhookVerifier.describe(seconds: -1.8e19) == "more than 10^15 s")
        #expect(StripeWebhookVerifier.describe(seconds: 30.4) == "30 s")
    }

    @Test func headerWithoutV1IsNoSignatures() {
        let v0Only = "t=\(Self.signedAt),v0=\(Self.signature(Self.payload))"
        #expect(rejection(header: v0Only)?.code == .noSignatures)
    }

    @Test(arguments: [nil, "", "   "] as [String?])
    func absentHeaderIsMissingHeader(header: String?) {
        #expect(rejection(header: header)?.code == .missingHeader)
    }

    @Test(arguments: ["v1=abcdef", "t=soon,v1=abcdef", "t=-5,v1=abcdef", "garbage"])
    func headerWithoutAReadableTimestampIsMalformed(header: String) {
        #expect(rejection(header: header)?.code == .malformedHeader)
    }

    /// Limits on hostile headers and payloads: bounded work, a clear error, never a trap.
    @Test func oversizedHeadersAndPayloadsAreRefusedBeforeAnyHashing() {
        let valid = Self.header()
        let manySignatures = valid + String(repeating: ",v1=00", count: 40)
        #expect(rejection(header: manySignatures)?.code == .malformedHeader)
        let long = valid + ",junk=" + String(repeating: "a", count: 5_000)
        #expect(rejection(header: long)?.code == .malformedHeader)
        let huge = Data(repeating: UInt8(ascii: " "), count: StripeWebhookVerifier.maximumPayloadBytes + 1)
        #expect(rejection(payload: huge, header: Self.header(huge))?.code == .malformedPayload)
        // Two secrets' signatures (a rolling secret) and unknown elements stay well inside the limits.
        #expect(rejection(header: valid + ",v1=" + String(repeating: "0", count: 64) + ",v0=abc") == nil)
    }

    @Test func headerElementsMayCarrySpacesAndUnknownSchemes() {
        let header = " t=\(Self.signedAt) , v1=\(Self.signature(Self.payload).uppercased()) , v2=zzz, junk"
        #expect(rejection(header: header) == nil)
    }

    @Test func genuinePayloadThatIsNotAnEventIsMalformedPayload() {
        let payload = Data(#"{"hello": "world"}"#.utf8)
        #expect(rejection(payload: payload, header: Self.header(payload))?.code == .malformedPayload)
    }

    @Test func clockSuppliesNowWhenNoDateIsGiven() throws {
        let clock = ManualClock(start: Self.now)
        let verifier = try StripeWebhookVerifier(secret: Secret(Self.secret), clock: clock)
        _ = try verifier.verify(payload: Self.payload, signatureHeader: Self.header())
        clock.advance(by: .seconds(600))
        #expect(throws: StripeWebhookError.self) {
            try verifier.verify(payload: Self.payload, signatureHeader: Self.header())
        }
    }

    @Test func chargeEventsDecodeTheCharge() throws {
        let payload = Data(
            #"{"id": "evt_2", "type": "charge.refunded", "created": 1700000000, "livemode": true, "data": {"object": {"id": "ch_1", "object": "charge", "amount": 999, "amount_refunded": 999, "refunded": true, "currency": "usd"}, "previous_attributes": {"refunded": false}}}"#
                .utf8
        )
        let event = try verifier.verify(payload: payload, signatureHeader: Self.header(payload), now: Self.now)
        #expect(event.charge?.refunded == true)
        #expect(event.paymentIntent == nil)
        #expect(String(decoding: try #require(event.data.previousAttributes), as: UTF8.self) == #"{"refunded": false}"#)
    }

    @Test func rejectionsNeverShowTheSecretOrTheSignatures() throws {
        let recorder = LogCapture()
        let verifier = try StripeWebhookVerifier(secret: Secret(Self.secret), logger: recorder.logger)
        let good = Self.signature(Self.payload)
        let wrong = Self.signature(Self.payload, secret: "whsec_wrong")
        let headers = [
            "t=\(Self.signedAt),v1=\(wrong)",
            "t=\(Self.signedAt + 10_000),v1=\(Self.signature(Self.payload, at: Self.signedAt + 10_000))",
            "t=\(Self.signedAt),v0=\(good)",
            "v1=\(good)",
        ]
        var texts: [String] = []
        for header in headers {
            let error = rejection(verifier, header: header)
            #expect(error != nil)
            texts.append(String(describing: error))
        }
        #expect(recorder.recorded.count == headers.count)
        for text in texts + [recorder.text] {
            #expect(!text.contains(Self.secret))
            #expect(!text.contains(good))
            #expect(!text.contains(wrong))
        }
    }

    @Test func jsonSlicerKeepsEscapesAndNesting() throws {
        let json = Data(#"{"a\"b": 1, "data" : { "x": "}\\", "object" :[1, {"y": "]"}] , "z": null } }"#.utf8)
        let object = try #require(JSONMemberSlicer.value(at: ["data", "object"], in: json))
        #expect(String(decoding: object, as: UTF8.self) == #"[1, {"y": "]"}]"#)
        #expect(JSONMemberSlicer.value(at: ["data", "z"], in: json) == Data("null".utf8))
        #expect(JSONMemberSlicer.value(at: ["data", "missing"], in: json) == nil)
        #expect(JSONMemberSlicer.value(at: ["a\"b"], in: json) == Data("1".utf8))
    }
}

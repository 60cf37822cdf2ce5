import Foundation
import HTTPTypes
import OpenCatCore
import Testing

/// Standard Webhooks signatures, checked against the specification's published test vector (what makes a receiver's
/// library accept ours) and against the ways a delivery can be wrong.
struct StandardWebhooksTests {
    // The published vector (the specification and its reference libraries).
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp: Int64 = 1_614_265_330
    static let payload = Data(#"{"test": 2432232314}"#.utf8)
    static let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    static let signedAt = Date(timeIntervalSince1970: TimeInterval(timestamp))

    static func headers(signature: String = expected, id: String = id, timestamp: String = "\(timestamp)")
        -> HTTPFields
    {
        var fields = HTTPFields()
        fields[StandardWebhooks.idHeader] = id
        fields[StandardWebhooks.timestampHeader] = timestamp
        fields[StandardWebhooks.signatureHeader] = signature
        return fields
    }

    @Test func thePublishedVectorSignsAndVerifiesWithOrWithoutThePrefix() throws {
        for text in [Self.secret, String(Self.secret.dropFirst("whsec_".count))] {
            let secret = try StandardWebhookSecret(text)
            #expect(
                StandardWebhooks.signature(
                    id: Self.id,
                    timestamp: Self.timestamp,
                    payload: Self.payload,
                    secret: secret
                )
                    == Self.expected
            )
            let delivery = try StandardWebhooks.verify(
                payload: Self.payload,
                headers: Self.headers(),
                secrets: [secret],
                now: Self.signedAt
            )
            #expect(delivery.id == Self.id && delivery.timestamp == Self.signedAt)
        }
        let signed = StandardWebhooks.headers(
            id: Self.id,
            timestamp: Self.signedAt,
            payload: Self.payload,
            secrets: [try StandardWebhookSecret(Self.secret)]
        )
        #expect(signed == Self.headers())
    }

    @Test func aRotatedSecretVerifiesUnderEitherAndOtherVersionsAreIgnored() throws {
        let old = try StandardWebhookSecret(Self.secret)
        let new = StandardWebhookSecret()
        let both = StandardWebhooks.headers(
            id: "msg_1",
            timestamp: Self.signedAt,
            payload: Self.payload,
            secrets: [old, new]
        )
        #expect(both[StandardWebhooks.signatureHeader]?.split(separator: " ").count == 2)
        for secrets in [[old], [new], [StandardWebhookSecret(), new]] {
            _ = try StandardWebhooks.verify(payload: Self.payload, headers: both, secrets: secrets, now: Self.signedAt)
        }
        let mixed = Self.headers(signature: "v1a,bm9wZQ== v2,abc " + Self.expected)
        _ = try StandardWebhooks.verify(payload: Self.payload, headers: mixed, secrets: [old], now: Self.signedAt)
    }

    @Test func wrongDeliveriesAreRefusedWithTheirReason() throws {
        let secret = try StandardWebhookSecret(Self.secret)
        func code(_ headers: HTTPFields, payload: Data = Self.payload, now: Date = Self.signedAt)
            -> StandardWebhookError.Code?
        {
            let refused = #expect(throws: StandardWebhookError.self) {
                try StandardWebhooks.verify(payload: payload, headers: headers, secrets: [secret], now: now)
            }
            return refused?.code
        }
        #expect(code(Self.headers(), payload: Data(#"{"test": 2432232315}"#.utf8)) == .noMatchingSignature)
        #expect(code(Self.headers(id: "msg_other")) == .noMatchingSignature)
        #expect(code(Self.headers(signature: "v1,bm9wZQ==")) == .noMatchingSignature)
        #expect(code(Self.headers(signature: "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")) == .noMatchingSignature)
        #expect(code(Self.headers(timestamp: "1614265330.5")) == .invalidTimestamp)
        #expect(code(Self.headers(timestamp: "-1")) == .invalidTimestamp)
        #expect(code(Self.headers(), now: Self.signedAt.addingTimeInterval(301)) == .timestampOutOfTolerance)
        #expect(code(Self.headers(), now: Self.signedAt.addingTimeInterval(-301)) == .timestampOutOfTolerance)
        #expect(code(Self.headers(id: "")) == .missingHeader)
        var missing = Self.headers()
        missing[StandardWebhooks.signatureHeader] = nil
        #expect(code(missing) == .missingHeader)
        for bad in ["whsec_", "whsec_not base64!", "", "whsec_" + Data(count: 2000).base64EncodedString()] {
            let refused = #expect(throws: StandardWebhookError.self) { try StandardWebhookSecret(bad) }
            #expect(refused?.code == .invalidSecret)
        }
    }

    @Test func aSecretNeverPrintsAndAGeneratedOneRoundTrips() throws {
        let secret = StandardWebhookSecret()
        #expect(secret.key.revealed.count == 32)
        let text = secret.serialized.revealed
        #expect(text.hasPrefix("whsec_"))
        #expect(try StandardWebhookSecret(text).key.revealed == secret.key.revealed)
        #expect(!"\(secret)".contains(secret.key.revealed.base64EncodedString()))
        #expect(!"\(secret.serialized)".contains("whsec_"))
        let error = StandardWebhookError(.noMatchingSignature, "no signature matches the payload")
        #expect(!error.description.contains(Self.expected))
    }
}

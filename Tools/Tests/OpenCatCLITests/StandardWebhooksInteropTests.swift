import Foundation
import HTTPTypes
import OpenCatCore
import Testing
import ToolsTestSupport

/// OpenCatCore's Standard Webhooks signatures, checked by an independent implementation: Python's `standardwebhooks`
/// package (Tools/ci/standard_webhooks_check.py) verifies what the kernel signs, and the kernel verifies what it signs —
/// over payloads with non-ASCII text, JSON escapes and rotated secrets.
struct StandardWebhooksInteropTests {
    static func check(_ mode: String, _ deliveries: [[String: Any]]) async throws -> [String: Any] {
        try await standardWebhooksCheck(mode, deliveries)
    }

    static let payloads = [
        #"{"type":"key_pack.purchased","data":{"keys":11}}"#, #"{"text":"Crème brûlée — 寿司 🍣"}"#,
        #"{"escaped":"line\nbreak \"quoted\" \\ slash"}"#, "{}",
    ]

    @Test func pythonsStandardWebhooksVerifiesWhatTheKernelSigns() async throws {
        let now = Date()
        var deliveries: [[String: Any]] = []
        for (index, payload) in Self.payloads.enumerated() {
            let secrets = [StandardWebhookSecret(), StandardWebhookSecret(randomBytes: 64)]
            let id = "msg_" + UUID().uuidString.lowercased()
            let headers = StandardWebhooks.headers(
                id: id,
                timestamp: now,
                payload: Data(payload.utf8),
                secrets: secrets
            )
            // A receiver holding either secret (the old or the new one) accepts the delivery.
            deliveries.append([
                "secret": secrets[index % 2].serialized.revealed, "id": id,
                "timestamp": Int(headers[StandardWebhooks.timestampHeader] ?? "") ?? 0, "payload": payload,
                "signature": headers[StandardWebhooks.signatureHeader] ?? "",
            ])
        }
        let answer = try await Self.check("verify", deliveries)
        #expect(answer["verified"] as? Int == Self.payloads.count, "\(answer)")
        #expect((answer["failures"] as? [String])?.isEmpty == true, "\(answer)")

        // A changed byte is refused by Python too: the check is not a rubber stamp.
        var tampered = deliveries[0]
        tampered["payload"] = #"{"type":"key_pack.purchased","data":{"keys":12}}"#
        let refused = try await Self.check("verify", [tampered])
        #expect(refused["verified"] as? Int == 0)
    }

    @Test func theKernelVerifiesWhatPythonsStandardWebhooksSigns() async throws {
        let now = Date()
        let secret = StandardWebhookSecret()
        let seconds = Int(now.timeIntervalSince1970)
        let deliveries: [[String: Any]] = Self.payloads.enumerated().map { index, payload in
            ["secret": secret.serialized.revealed, "id": "msg_\(index)", "timestamp": seconds, "payload": payload]
        }
        let answer = try await Self.check("sign", deliveries)
        let signatures = try #require(answer["signatures"] as? [String])
        #expect(signatures.count == Self.payloads.count)
        for (index, signature) in signatures.enumerated() {
            var headers = HTTPFields()
            headers[StandardWebhooks.idHeader] = "msg_\(index)"
            headers[StandardWebhooks.timestampHeader] = String(seconds)
            headers[StandardWebhooks.signatureHeader] = signature
            let delivery = try StandardWebhooks.verify(
                payload: Data(Self.payloads[index].utf8),
                headers: headers,
                secrets: [secret],
                now: now
            )
            #expect(delivery.id == "msg_\(index)")
        }
    }
}

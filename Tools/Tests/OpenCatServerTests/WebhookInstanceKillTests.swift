import Foundation
import HTTPTypes
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Testing
import ToolsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Two `opencat-server` processes on one PostgreSQL database deliver one endpoint's events; one is killed (SIGKILL)
/// while deliveries are in flight (the receiver holds them). Every event reaches the receiver, and an event that
/// arrives twice is one the killed instance was sending, sent again with the same webhook-id and body.
struct WebhookInstanceKillTests {
    static let events = 30

    @Test func anInstanceKilledMidDeliveryLosesNoEventAndRepeatsOnlyWhatItWasSending() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { base in
            try await ServerTestPostgres.withDatabase(1) { url, stores in
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-hooks-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                try Data(StandardWebhookSecret().serialized.revealed.utf8).write(to: folder.appendingPathComponent("s"))
                let config = folder.appendingPathComponent("server.json")
                try Data(
                    """
                    {"openCat": {"apiKeySHA256": ["\(BearerTokens.hash("ocat_public"))"],
                     "secretKeySHA256": ["\(BearerTokens.hash("ocat_sk_kill"))"]},
                     "webhooks": {"allowPrivateNetworks": true, "timeoutSeconds": 5, "endpoints": [
                       {"id": "backend", "url": "\(base.appendingPathComponent("held").absoluteString)", "secretFile": "s"}]}}
                    """.utf8
                ).write(to: config)
                let arguments = ["--port", "0", "--database", url, "--config", config.path]
                let transport = AsyncHTTPClientTransport()
                defer { Task { try? await transport.shutdown() } }
                var ids: [String] = []
                try await ServerProcess.run(arguments) { _, survivorPort in
                    try await ServerProcess.run(arguments) { victim, victimPort in
                        for index in 0..<Self.events {
                            ids.append(
                                try await Self.test(
                                    port: index.isMultiple(of: 2) ? survivorPort : victimPort,
                                    transport
                                )
                            )
                        }
                        // An instance sends at most four at once: five held means both instances are mid-delivery.
                        try await waitUntil("deliveries of both instances held in flight") { receiver.held.count >= 5 }
                        try victim.send(SIGKILL)
                        receiver.openGate()
                    }
                    try await waitUntil("every event delivered after the kill", within: .seconds(120)) {
                        Set(receiver.delivered("/held").map(\.id)).isSuperset(of: ids)
                    }
                    // What the killed instance had claimed is taken up by the survivor once its lease runs out: the
                    // books say delivered for every event.
                    try await waitUntil("every delivery recorded as delivered", within: .seconds(120)) {
                        let records = try await stores[0].webhookDeliveries(endpoint: "backend", limit: 100)
                        return records.count == Self.events && records.allSatisfy { $0.state == "delivered" }
                    }
                }
                let requests = receiver.requests("/held")
                #expect(Set(requests.map(\.id)) == Set(ids), "no event lost, none made up")
                // A repeat is a retry: the same id with the same body (the killed instance's claims, or an answer
                // that came after its sender's timeout on a loaded machine).
                for (_, copies) in Dictionary(grouping: requests, by: \.id) where copies.count > 1 {
                    #expect(Set(copies.map(\.body)).count == 1, "a retry is the same event")
                }
                #expect(requests.count > Self.events, "the killed instance's deliveries were sent again")
            }
        }
    }

    /// Queues a test event through one instance's API; its id.
    static func test(port: Int, _ transport: AsyncHTTPClientTransport) async throws -> String {
        var request = HTTPRequest(
            method: .post,
            scheme: "http",
            authority: "127.0.0.1:\(port)",
            path: "/v1/webhooks/endpoints/backend/test"
        )
        request.headerFields[.authorization] = "Bearer ocat_sk_kill"
        var id: String?
        try await waitUntil("the configured endpoint takes a test event") {
            let response = try await transport.send(request, body: nil)
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            id = object?["event_id"] as? String
            return response.status.code == 202
        }
        return try #require(id)
    }
}

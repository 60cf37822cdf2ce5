import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import OpenCatServer

// The console's webhooks pages against a running server: an endpoint added on the form shows its secret once, the
// server's own delivery worker sends a test event and a purchase's event signed with it, an event is resent with the
// same id, a rotated secret signs beside the old one, an endpoint is turned off and on — all audited.
@Suite struct ConsoleWebhooksTests {
    static var development: WebhookSettings {
        var settings = WebhookSettings()
        settings.allowPrivateNetworks = true
        return settings
    }

    /// The delivery of an event type the receiver got, verified with `secrets` as of the server's clock.
    static func delivery(
        _ receiver: WebhookReceiver,
        type: String,
        secrets: [StandardWebhookSecret],
        now: Date
    ) throws -> WebhookReceiver.Received? {
        guard let item = receiver.delivered("/ok").last(where: { WebhookDeliveryTests.type(of: $0.body) == type })
        else { return nil }
        try item.verify(secrets, now: now)
        return item
    }

    @Test(arguments: Backend.allCases)
    func anEndpointAddedInTheConsoleReceivesSignedEventsAndIsManagedThere(backend: Backend) async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { base in
            try await PortalHarness.run(backend, webhooks: Self.development) { portal in
                let ops = try await portal.operatorSignIn()
                let list = try await ops.get("/console/webhooks")
                #expect(list.status == 200 && list.html.contains(id: "no-endpoints"))
                let csrf = try #require(list.html.fields(form: "add-endpoint")["csrf"])
                for (url, events) in [
                    ("ftp://example.com/x", ""), ("https://u:p@example.com/", ""), (base.absoluteString, "bogus"),
                ] {
                    let refused = try await ops.post(
                        "/console/webhooks",
                        ["csrf": csrf, "app": "cat", "url": url, "events": events]
                    )
                    #expect(refused.status == 400, "\(url) \(events)")
                }
                let added = try await ops.post(
                    "/console/webhooks",
                    ["csrf": csrf, "app": "cat", "url": base.appendingPathComponent("ok").absoluteString, "events": ""]
                )
                let secretText = try #require(added.html.text(id: "endpoint-secret"))
                let secret = try StandardWebhookSecret(secretText)
                // Its longest run of letters and digits (HTML escaping leaves those as they are).
                let runs = secretText.dropFirst(6).split { !($0.isLetter || $0.isNumber) }
                let mark = String(runs.max { $0.count < $1.count } ?? "")
                try #require(mark.count >= 6)
                let page = portal.local(
                    added.html.element(id: "continue").flatMap { HTMLText.attribute("href", of: $0) }
                )
                let endpoint = try await ops.get(page)
                #expect(endpoint.status == 200 && !endpoint.body.contains(mark), "the secret is shown once")
                #expect(!(try await ops.get("/console/webhooks")).body.contains(mark))

                let sent = try await ops.post(page + "/test", ["csrf": csrf])
                #expect(portal.local(sent.location).hasSuffix("notice=test-sent"))
                let now = portal.clock.now
                try await waitUntil("the test event delivered") {
                    try Self.delivery(receiver, type: "test", secrets: [secret], now: now) != nil
                }
                _ = try await portal.buyApplePack(user: 3, transaction: "2000000000000301")
                try await waitUntil("the key pack's event delivered") {
                    try Self.delivery(receiver, type: "key_pack_purchased", secrets: [secret], now: now) != nil
                }
                let bought = try #require(
                    try Self.delivery(receiver, type: "key_pack_purchased", secrets: [secret], now: now)
                )
                #expect(bought.body.contains("\"app_user_id\":\"user-3\"") && bought.body.contains("\"keys\":12"))

                let resent = try await ops.post(page + "/resend", ["csrf": csrf, "event": bought.id])
                #expect(portal.local(resent.location).hasSuffix("notice=resent"))
                try await waitUntil("the event sent again with its id") {
                    receiver.delivered("/ok").filter { $0.id == bought.id }.count == 2
                }

                let rotated = try await ops.post(page + "/rotate", ["csrf": csrf])
                let newSecret = try StandardWebhookSecret(try #require(rotated.html.text(id: "endpoint-secret")))
                #expect(rotated.html.contains(id: "secret-once"))
                _ = try await ops.post(page + "/test", ["csrf": csrf])
                try await waitUntil("a test event signed with both secrets") {
                    receiver.delivered("/ok").filter { WebhookDeliveryTests.type(of: $0.body) == "test" }.count == 2
                }
                let second = try #require(try Self.delivery(receiver, type: "test", secrets: [newSecret], now: now))
                _ = try Self.delivery(receiver, type: "test", secrets: [secret], now: now)
                #expect(second.signature.split(separator: " ").count == 2)

                _ = try await ops.post(page + "/disable", ["csrf": csrf])
                #expect((try await ops.get(page)).html.text(id: "endpoint-state") == "off")
                _ = try await ops.post(page + "/enable", ["csrf": csrf])
                let after = try await ops.get(page)
                #expect(after.html.text(id: "endpoint-state") == "on")
                #expect(after.html.rows(table: "deliveries").count == 3)
                let audit = try await ops.get("/console/audit")
                for action in [
                    "webhook_endpoint_added", "webhook_test_sent", "webhook_event_resent", "webhook_secret_rotated",
                    "webhook_endpoint_disabled", "webhook_endpoint_enabled",
                ] {
                    #expect(audit.body.contains(action), "\(action)")
                }
            }
        }
    }

    @Test func theAppsBackendRegistersAnEndpointWithItsSecretKeyAndGetsItsSecretOnce() async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { base in
            try await PortalHarness.run(.sqlite, webhooks: Self.development) { portal in
                let path = "/v1/webhooks/endpoints"
                let url = base.appendingPathComponent("ok").absoluteString
                let (publicStatus, _) = try await portal.openCatPost(path, ["url": url], key: ServerFixture.apiKey)
                #expect(publicStatus == 403, "the public app key cannot")
                let (bad, badBody) = try await portal.openCatPost(
                    path,
                    ["url": url, "events": ["renewal", "nonsense"]],
                    key: ServerFixture.secretKey
                )
                #expect(bad == 400 && "\(badBody)".contains("nonsense"))
                let (created, endpoint) = try await portal.openCatPost(
                    path,
                    ["url": url, "app": "cat", "events": ["test", "key_pack_purchased"]],
                    key: ServerFixture.secretKey
                )
                #expect(created == 201)
                let secret = try StandardWebhookSecret(try #require(endpoint["secret"] as? String))
                let id = try #require(endpoint["id"] as? String)
                let (listed, list) = try await portal.openCatGet(path, key: ServerFixture.secretKey)
                let entries = try #require(list["endpoints"] as? [[String: Any]])
                #expect(listed == 200 && entries.count == 1 && entries[0]["secret"] == nil)
                #expect(entries[0]["events"] as? [String] == ["key_pack_purchased", "test"])
                let (queued, _) = try await portal.openCatPost(path + "/\(id)/test", [:], key: ServerFixture.secretKey)
                #expect(queued == 202)
                let now = portal.clock.now
                try await waitUntil("the test event delivered") {
                    try Self.delivery(receiver, type: "test", secrets: [secret], now: now) != nil
                }
            }
        }
    }
}

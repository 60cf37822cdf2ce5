import Foundation
import HTTPTypes
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatTesting
import Testing
import ToolsTestSupport

@testable import OpenCatServer

// Events out, the delivery: signed the Standard Webhooks way (Python's standardwebhooks verifies every delivery),
// retried with the same webhook-id until a 2xx, a 410 turns the endpoint off, days of failures too, a receiver down
// for an hour gets everything after, two instances never send one event twice, a killed instance's claim is taken
// up again, and no loopback, private address or redirect is reached unless development mode allows it.
@Suite(.serialized) struct WebhookDeliveryTests {
    static let day: TimeInterval = 86_400

    /// Causes ten events (key packs bought) as of the store's clock.
    static func causeEvents(_ store: any LedgerStore, count: Int = 10, prefix: String = "pi") async throws {
        for index in 0..<count {
            _ = try await store.redeem(
                store: "stripe",
                transactionId: "\(prefix)_\(index)",
                userId: "user-\(index)",
                grant: KeyGrant(keys: 10)
            )
        }
    }

    @Test(arguments: Backend.allCases)
    func everyDeliveryIsSignedAndPythonsStandardWebhooksVerifiesIt(backend: Backend) async throws {
        let receiver = WebhookReceiver()
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        try await backend.withStores(now: { Date() }) { stores in
            let store = stores[0]
            try await receiver.run { base in
                let url = base.appendingPathComponent("ok").absoluteString
                let secret = try await registerEndpoint(store, id: "ep", url: url)
                // A rotated secret: both sign until the window ends, so a receiver on either one verifies.
                let rotated = StandardWebhookSecret()
                _ = try await store.rotateWebhookSecret(
                    "ep",
                    to: rotated.serialized.revealed,
                    overlapUntil: Date().addingTimeInterval(3600),
                    by: "ops"
                )
                try await causeEveryEventType(store, now: Date(), testEndpoint: "ep")
                let total = everyEventTypeOnce.values.reduce(0, +)
                let dispatcher = testDispatcher(store, transport: transport, now: { Date() })
                try await waitUntil("every event delivered") {
                    try await dispatcher.deliverDue()
                    return receiver.delivered("/ok").count >= total
                }
                let delivered = receiver.delivered("/ok")
                #expect(Set(delivered.map(\.id)).count == total, "each event once")
                let types = Dictionary(grouping: delivered.compactMap { Self.type(of: $0.body) }, by: { $0 })
                #expect(types.mapValues(\.count) == everyEventTypeOnce, "each type once per cause")
                #expect(delivered.allSatisfy { $0.signature.split(separator: " ").count == 2 }, "old and new secret")
                // Python's standardwebhooks verifies every delivery under the old secret, and each under the new.
                let checks =
                    delivered.map { Self.pythonDelivery($0, secret: secret) }
                    + delivered.map { Self.pythonDelivery($0, secret: rotated) }
                let answer = try await standardWebhooksCheck("verify", checks)
                #expect(answer["verified"] as? Int == 2 * total, "\(answer)")
                for item in delivered { try item.verify([rotated, secret]) }
                let records = try await store.webhookDeliveries(endpoint: "ep", limit: 50)
                #expect(records.allSatisfy { $0.state == "delivered" && $0.lastStatus == 200 && $0.attempts == 1 })
            }
        }
    }

    static func type(of body: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["type"] as? String
    }

    static func pythonDelivery(_ item: WebhookReceiver.Received, secret: StandardWebhookSecret) -> [String: Any] {
        [
            "secret": secret.serialized.revealed, "id": item.id, "timestamp": Int(item.timestamp) ?? 0,
            "payload": item.body, "signature": item.signature,
        ]
    }

    @Test(arguments: Backend.allCases)
    func retriesKeepTheWebhookIdUntilA2xxAndA410TurnsTheEndpointOff(backend: Backend) async throws {
        try await DeliveryWorld.run(backend) { world in
            let (store, receiver, clock) = (world.store, world.receiver, world.clock)
            try await registerEndpoint(store, id: "flaky", url: world.url("flaky"))
            try await registerEndpoint(store, id: "gone", url: world.url("gone"))
            try await Self.causeEvents(store, count: 1)
            let dispatcher = world.dispatcher()
            // Two failures, 5 s then 20 s apart (jitter 1), then the receiver is back.
            try await dispatcher.deliverDue()
            clock.advance(4)
            #expect(try await dispatcher.deliverDue() == 0, "not due before its backoff")
            clock.advance(1)
            try await dispatcher.deliverDue()
            receiver.recover()
            clock.advance(20)
            try await dispatcher.deliverDue()
            let attempts = receiver.requests("/flaky")
            #expect(attempts.map(\.status) == [503, 503, 204])
            #expect(Set(attempts.map(\.id)).count == 1, "the same webhook-id on every attempt")
            let flaky = try #require(try await store.webhookDeliveries(endpoint: "flaky", limit: 5).first)
            #expect(flaky.state == "delivered" && flaky.attempts == 3 && flaky.lastStatus == 204)

            #expect(receiver.requests("/gone").count == 1)
            let gone = try #require(try await store.webhookEndpoints().first { $0.id == "gone" })
            #expect(gone.disabledAt != nil && gone.disabledReason == "the endpoint answered 410 Gone")
            #expect(
                try await store.auditLog(limit: 10).contains {
                    $0.action == "webhook_endpoint_disabled" && $0.subject == "gone"
                }
            )
            // Off: later events are not written for it, and nothing more is sent.
            try await Self.causeEvents(store, count: 1, prefix: "later")
            clock.advance(3600)
            try await dispatcher.deliverDue()
            #expect(receiver.requests("/gone").count == 1)
            #expect(try await store.webhookDeliveries(endpoint: "gone", limit: 5).count == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func aReceiverDownForAnHourGetsEveryEventAfterItRecovers(backend: Backend) async throws {
        try await DeliveryWorld.run(backend) { world in
            let (store, receiver, clock) = (world.store, world.receiver, world.clock)
            try await registerEndpoint(store, id: "down", url: world.url("down"))
            let dispatcher = world.dispatcher()
            // Events keep coming while the receiver is down for an hour.
            for minute in stride(from: 0, to: 60, by: 5) {
                try await Self.causeEvents(store, count: 1, prefix: "m\(minute)")
                try await dispatcher.deliverDue()
                clock.advance(300)
            }
            #expect(receiver.delivered("/down").isEmpty && !receiver.requests("/down").isEmpty)
            receiver.recover()
            for _ in 0..<24 {
                try await dispatcher.deliverDue()
                clock.advance(600)
            }
            let delivered = receiver.delivered("/down")
            #expect(delivered.count == 12 && Set(delivered.map(\.id)).count == 12, "every event, once each")
            let failedIds = Set(receiver.requests("/down").filter { $0.status != 204 }.map(\.id))
            #expect(failedIds.isSubset(of: Set(delivered.map(\.id))), "only retries of the same ids")
            let endpoint = try #require(try await store.webhookEndpoints().first)
            #expect(endpoint.failingSince == nil && endpoint.disabledAt == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func retriesEndAfterTheWindowAndDaysOfFailuresTurnTheEndpointOff(backend: Backend) async throws {
        try await DeliveryWorld.run(backend) { world in
            let (store, receiver, clock) = (world.store, world.receiver, world.clock)
            // The receiver never recovers: every attempt is a 503.
            try await registerEndpoint(store, id: "dead", url: world.url("down"))
            try await Self.causeEvents(store, count: 1)
            let start = clock.now
            let dispatcher = world.dispatcher()
            var lastAttempt = start
            for _ in 0..<40 {
                if try await dispatcher.deliverDue() > 0 { lastAttempt = clock.now }
                clock.advance(3600)
            }
            let record = try #require(try await store.webhookDeliveries(endpoint: "dead", limit: 5).first)
            #expect(record.state == "failed" && record.lastStatus == 503)
            #expect(record.attempts >= 8 && receiver.requests("/down").count == Int(record.attempts))
            #expect(lastAttempt.timeIntervalSince(start) >= 24 * 3600, "retried over at least 24 hours")
            // Five days with no 2xx turn it off, with an audit entry.
            for day in 0..<5 {
                try await Self.causeEvents(store, count: 1, prefix: "d\(day)")
                for _ in 0..<6 {
                    try await dispatcher.deliverDue()
                    clock.advance(4 * 3600)
                }
            }
            let endpoint = try #require(try await store.webhookEndpoints().first)
            #expect(endpoint.disabledReason == "no 2xx answer for 5 days")
            #expect(try await store.auditLog(limit: 10).contains { $0.action == "webhook_endpoint_disabled" })
        }
    }

    @Test func twoInstancesNeverSendOneEventTwiceAndAKilledClaimIsTakenUpWithItsId() async throws {
        let receiver = WebhookReceiver()
        receiver.recover()
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await Backend.postgresql.withStores(2, now: { clock.now }) { stores in
            try await receiver.run { base in
                try await registerEndpoint(stores[0], id: "ep", url: base.appendingPathComponent("once").absoluteString)
                try await Self.causeEvents(stores[0], count: 60)
                let one = testDispatcher(stores[0], transport: transport, now: { clock.now })
                let two = testDispatcher(stores[1], transport: transport, now: { clock.now })
                async let first: Void = Self.drain(one)
                async let second: Void = Self.drain(two)
                _ = try await (first, second)
                let received = receiver.requests("/once")
                #expect(received.count == 60 && Set(received.map(\.id)).count == 60, "each event sent once")

                // An instance claims an event and dies before it answers: the other takes it up after the lease,
                // with the same webhook-id.
                try await Self.causeEvents(stores[0], count: 1, prefix: "killed")
                let claimed = try await stores[0].claimWebhookDeliveries(limit: 10, lease: 45)
                #expect(claimed.count == 1)
                #expect(try await two.deliverDue() == 0, "claimed: not sent twice meanwhile")
                clock.advance(46)
                #expect(try await two.deliverDue() == 1)
                let last = try #require(receiver.requests("/once").last)
                #expect(last.id == claimed[0].eventId)
                // The dead instance's late answer (had it come back) changes nothing.
                try await stores[0].finishWebhookAttempt(
                    claimed[0],
                    result: .failed(status: 500, error: nil),
                    settings: WebhookSettings(),
                    jitter: 1
                )
                let records = try await stores[1].webhookDeliveries(endpoint: "ep", limit: 100)
                #expect(records.count == 61 && records.allSatisfy { $0.state == "delivered" })
            }
        }
    }

    static func drain(_ dispatcher: WebhookDispatcher) async throws {
        while try await dispatcher.deliverDue(limit: 5) > 0 {}
    }

    @Test func loopbackPrivateAddressesAndCredentialsAreRefusedOutsideDevelopment() async throws {
        let policy = WebhookAddressPolicy(allowPrivateNetworks: false)
        let refused = [
            "http://example.com/hook", "https://127.0.0.1/hook", "https://10.1.2.3/", "https://172.20.0.1/",
            "https://192.168.1.1/", "https://169.254.169.254/latest/meta-data", "https://[::1]/",
            "https://[::ffff:127.0.0.1]/", "https://[fd00::1]/", "https://[fe80::1]/", "https://0.0.0.0/",
            "https://100.64.0.1/", "https://localhost/", "https://api.localhost/", "https://user:pw@example.com/",
            "ftp://example.com/", "/relative", "https://[64:ff9b::7f00:1]/",
        ]
        for url in refused {
            #expect(throws: WebhookAddressPolicy.Refusal.self, "\(url)") { try policy.check(url) }
        }
        #expect(throws: Never.self) { try policy.check("https://hooks.example.com/opencat") }
        #expect(throws: Never.self) { try policy.check("https://93.184.216.34/") }
        let development = WebhookAddressPolicy(allowPrivateNetworks: true)
        #expect(throws: Never.self) { try development.check("http://127.0.0.1:8080/hook") }
        // A public name that resolves to a private address is refused before every attempt.
        let rebinding = WebhookAddressPolicy(allowPrivateNetworks: false) { _ in ["93.184.216.34", "10.0.0.7"] }
        await #expect(throws: WebhookAddressPolicy.Refusal.self) {
            try await rebinding.checkResolved(URL(string: "https://hooks.example.com/")!)
        }
        let publicOnly = WebhookAddressPolicy(allowPrivateNetworks: false) { _ in
            ["93.184.216.34", "2606:2800:220:1::1"]
        }
        await #expect(throws: Never.self) {
            try await publicOnly.checkResolved(URL(string: "https://hooks.example.com/")!)
        }
        let resolved = try await WebhookAddressPolicy.systemResolve("localhost")
        #expect(
            resolved.allSatisfy { WebhookAddressPolicy.specialRange($0) == "a loopback address" } && !resolved.isEmpty
        )
    }

    @Test(arguments: Backend.allCases)
    func aLoopbackReceiverIsNotReachedOutsideDevelopmentAndRedirectsAreNotFollowed(backend: Backend) async throws {
        try await DeliveryWorld.run(backend) { world in
            let (store, receiver, clock) = (world.store, world.receiver, world.clock)
            // Registered in development, delivered by a server that is not: refused before any connection.
            try await registerEndpoint(store, id: "local", url: world.url("ok"))
            try await registerEndpoint(
                store,
                id: "moved",
                url: world.url("redirect")
            )
            try await Self.causeEvents(store, count: 1)
            let production = world.dispatcher(allowPrivate: false)
            try await production.deliverDue()
            #expect(receiver.requests("/ok").isEmpty && receiver.requests("/redirect").isEmpty)
            let local = try #require(try await store.webhookDeliveries(endpoint: "local", limit: 1).first)
            #expect(local.state == "pending" && local.lastError?.hasPrefix("refused") == true)
            // In development it is reached; a 302 is an answer, not a way elsewhere.
            clock.advance(60)
            let development = world.dispatcher()
            try await development.deliverDue()
            #expect(receiver.requests("/ok").count == 1 && receiver.requests("/redirect").count == 1)
            #expect(receiver.requests("/elsewhere").isEmpty, "the redirect was not followed")
            let moved = try #require(try await store.webhookDeliveries(endpoint: "moved", limit: 1).first)
            #expect(moved.state == "pending" && moved.lastStatus == 302)
        }
    }

    @Test func aSlowReceiverIsCutOffAtTheTimeout() async throws {
        let receiver = WebhookReceiver()
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        try await Backend.sqlite.withStores(now: { Date() }) { stores in
            try await receiver.run { base in
                try await registerEndpoint(
                    stores[0],
                    id: "slow",
                    url: base.appendingPathComponent("hang").absoluteString
                )
                try await Self.causeEvents(stores[0], count: 1)
                let dispatcher = testDispatcher(stores[0], transport: transport, timeoutSeconds: 1, now: { Date() })
                try await dispatcher.deliverDue()
                let record = try #require(try await stores[0].webhookDeliveries(endpoint: "slow", limit: 1).first)
                #expect(record.state == "pending" && record.lastError == "timed out")
            }
        }
    }
}

import Foundation
import OpenCatCore
import Testing

@testable import OpenCatServer

// Events out, the outbox: each cause writes its event once, in the transaction of the change (a change that rolls
// back writes none, a replayed store event writes nothing), for the endpoints that asked for its type — on SQLite and
// PostgreSQL.
@Suite struct WebhookOutboxTests {
    @Test func subscriptionChangesMeanTheirEvents() {
        let day: TimeInterval = 86_400
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let first = subscription("t1", expires: now)
        let cases: [(TransactionInfo?, TransactionInfo?, TransactionInfo, [WebhookEventType])] = [
            (nil, nil, first, [.initialPurchase]),
            (nil, first, subscription("t2", expires: now + 30 * day), [.renewal]),
            (
                nil, first, subscription("t2", product: "pro.yearly", expires: now + 365 * day),
                [.productChange, .renewal]
            ),
            (first, nil, subscription("t1", expires: now + 30 * day), [.renewal]),
            (first, nil, subscription("t1", expires: now, willRenew: false), [.cancellation]),
            (subscription("t1", expires: now, willRenew: false), nil, first, [.uncancellation]),
            (first, nil, subscription("t1", expires: now, status: .expired), [.expiration]),
            (first, nil, subscription("t1", expires: now, status: .billingRetry), [.billingIssue]),
            (first, nil, subscription("t1", expires: now, status: .gracePeriod), [.gracePeriod]),
            (first, nil, subscription("t1", expires: now, status: .refunded), [.refund]),
            (
                subscription("t1", expires: now, status: .refunded), nil,
                subscription("t1", expires: now, status: .refunded), []
            ),
            (first, nil, first, []),
            // One notification, several changes: one event per change, on the same row or a new one.
            (first, nil, subscription("t1", expires: now + 30 * day, willRenew: false), [.renewal, .cancellation]),
            (nil, first, subscription("t2", expires: now + 30 * day, willRenew: false), [.renewal, .cancellation]),
            (
                first, nil, subscription("t1", product: "pro.yearly", expires: now + 365 * day, willRenew: false),
                [.productChange, .renewal, .cancellation]
            ),
            (nil, first, subscription("t2", expires: now + 7 * day, status: .billingRetry), [.billingIssue]),
            (
                nil, subscription("t1", expires: now, willRenew: false), subscription("t2", expires: now + 30 * day),
                [.renewal, .uncancellation]
            ),
            // The same expiry read back from storage (milliseconds) is no renewal.
            (first, nil, subscription("t1", expires: now.addingTimeInterval(0.000_4)), []),
        ]
        for (before, previous, after, expected) in cases {
            #expect(SubscriptionChange.events(before: before, previous: previous, after: after) == expected)
        }
    }

    @Test(arguments: Backend.allCases)
    func eachCauseWritesOneEventOfItsTypeInItsOwnTransaction(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await backend.withStores(now: { clock.now }) { stores in
            let store = stores[0]
            try await registerEndpoint(store, id: "all", url: "https://example.com/all")
            try await registerEndpoint(store, id: "renewals", url: "https://example.com/r", types: [.renewal])
            try await causeEveryEventType(store, now: clock.now, testEndpoint: "all")
            // A share the wallet cannot cover rolls back, and its event with it.
            await #expect(throws: LedgerError.self) {
                try await store.transfer(
                    from: "ana",
                    to: "ben",
                    amount: 500,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: "s2"
                )
            }

            let all = try await store.webhookDeliveries(endpoint: "all", limit: 100)
            let counts = Dictionary(grouping: all, by: \.eventType.rawValue).mapValues(\.count)
            #expect(counts == everyEventTypeOnce)
            #expect(all.allSatisfy { $0.state == "pending" && $0.attempts == 0 })
            let renewals = try await store.webhookDeliveries(endpoint: "renewals", limit: 100)
            #expect(renewals.map(\.eventType) == [.renewal])
            try await checkPayloads(store)
        }
    }

    /// The payloads say who, what, how much and when: exact minor units, the store's ids and time.
    func checkPayloads(_ store: any LedgerStore) async throws {
        let rows = try await store.transaction(locking: []) { connection in
            try await connection.rows("SELECT type, payload FROM webhook_events ORDER BY seq")
        }
        var byType: [String: [String: Any]] = [:]
        for row in rows {
            let payload = try #require(row["payload"]?.text)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
            #expect(object["version"] as? Int == 1)
            #expect((object["id"] as? String)?.hasPrefix("msg_") == true)
            byType[row["type"]?.text ?? ""] = object["data"] as? [String: Any]
        }
        let initial = try #require(byType["initial_purchase"])
        #expect(initial["app_user_id"] as? String == "ana" && initial["store"] as? String == "apple")
        #expect(initial["transaction_id"] as? String == "t1" && initial["environment"] as? String == "sandbox")
        #expect((initial["price"] as? [String: Any])?["amount_minor"] as? Int == 499)
        #expect((initial["price"] as? [String: Any])?["currency"] as? String == "USD")
        let pack = try #require(byType["key_pack_purchased"])
        #expect(pack["keys"] as? Int == 11 && pack["product_id"] as? String == "keys_10")
        let change = try #require(byType["product_change"])
        #expect(
            change["previous_product_id"] as? String == "pro.monthly" && change["product_id"] as? String == "pro.yearly"
        )
        let shared = try #require(byType["keys_shared"])
        #expect(shared["recipient"] as? String == "ben" && shared["keys"] as? Int == 2)
        // The last refund written is the key pack's partial one: 2.50 of 4.99, ceil(11 × 2.50 / 4.99) = 6 keys back.
        // Every event carries the store's time and environment: the key pack's refund, its purchase's environment.
        for (type, data) in byType where !["test", "keys_shared", "promotional_grant"].contains(type) {
            #expect(data["store_time"] is String && data["environment"] is String, "\(type)")
        }
        #expect(byType["refund"]?["environment"] as? String == "sandbox")
        let refund = try #require(byType["refund"]?["refund"] as? [String: Any])
        #expect(refund["whole"] as? Bool == false && refund["keys_clawed_back"] as? Int == 6)
        #expect((refund["amount"] as? [String: Any])?["amount_minor"] as? Int == 250)
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// `purchase(for:)` on `customer.subscription.*` events applies Stripe's current subscription, read again from the
/// API, never the event's snapshot: Stripe does not deliver events in order.
struct StripeSubscriptionEventTests {
    private typealias Fixtures = StripeTestFixtures
    static let subscriptionId = "sub_OpenCatLateEvent01"
    static let path = "/stripe/v1/subscriptions/\(subscriptionId)"

    /// A subscription object as Stripe renders it (in an event's `data.object` or from the API).
    static func subscription(status: String, endedAt: Int64? = nil) -> String {
        """
        {"id":"\(subscriptionId)","object":"subscription","status":"\(status)","livemode":true,"created":1700000000,
         "start_date":1700000000,"current_period_start":1700000000,"current_period_end":1702592000,
         "cancel_at_period_end":false,"ended_at":\(endedAt.map(String.init) ?? "null"),
         "metadata":{"product_id":"pro","app_user_id":"u1"},
         "items":{"data":[{"id":"si_1","quantity":1,"price":{"id":"price_1","currency":"usd","unit_amount":999}}]},
         "latest_invoice":{"id":"in_1","status":"paid"}}
        """
    }

    static func event(_ id: String, type: String, created: Int64, object: String) throws -> Stripe.Event {
        let payload = """
            {"id":"\(id)","object":"event","type":"\(type)","created":\(created),"livemode":true,
             "api_version":"2024-06-20","data":{"object":\(object)}}
            """
        return try Stripe.Event(payload: Data(payload.utf8))
    }

    /// Stripe's API answers the subscription as it is now: cancelled.
    static func cancelledOnStripe() -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            headers: ["Date": "Sat, 02 Dec 2023 10:00:00 GMT"],
            json: subscription(status: "canceled", endedAt: 1_701_500_000)
        )
        return transport
    }

    @Test func aLateOlderUpdatedEventAfterDeletedDoesNotReviveTheSubscription() async throws {
        let transport = Self.cancelledOnStripe()
        let adapter = Fixtures.adapter(transport)
        let deleted = try Self.event(
            "evt_deleted",
            type: "customer.subscription.deleted",
            created: 1_701_500_000,
            object: Self.subscription(status: "canceled", endedAt: 1_701_500_000)
        )
        // Rendered before the deletion (status active), delivered after it.
        let lateUpdated = try Self.event(
            "evt_updated_old",
            type: "customer.subscription.updated",
            created: 1_701_000_000,
            object: Self.subscription(status: "active")
        )

        let afterDeleted = try #require(try await adapter.purchase(for: deleted))
        #expect(afterDeleted.state == .expired && !afterDeleted.willRenew)

        let afterLate = try #require(try await adapter.purchase(for: lateUpdated))
        #expect(afterLate.state == .expired)
        #expect(!afterLate.willRenew)
        #expect(afterLate.storeStatus == "canceled")
        #expect(afterLate.originalTransactionId == Self.subscriptionId)
        // Stripe's answer vouches for the state, not the stale event.
        #expect(afterLate.verifiedAt == HTTPDate.parse("Sat, 02 Dec 2023 10:00:00 GMT"))

        let reads = transport.requests(matching: "/v1/subscriptions/")
        #expect(reads.count == 2)
        #expect(reads.allSatisfy { $0.request.method == .get && $0.path.hasPrefix(Self.path + "?") })
        #expect(reads.allSatisfy { $0.request.headerFields[.authorization] == "Bearer \(Fixtures.secretKey)" })
    }

    @Test(arguments: [
        "customer.subscription.created", "customer.subscription.updated", "customer.subscription.paused",
        "customer.subscription.resumed", "customer.subscription.trial_will_end",
    ])
    func everySubscriptionEventIsReadAgain(type: String) async throws {
        let transport = Self.cancelledOnStripe()
        let event = try Self.event(
            "evt_1",
            type: type,
            created: 1_700_000_100,
            object: Self.subscription(status: "active")
        )
        let purchase = try #require(try await Fixtures.adapter(transport).purchase(for: event))
        #expect(purchase.state == .expired)
        #expect(transport.requests(matching: "/v1/subscriptions/").count == 1)
    }

    @Test func anEventWhoseSnapshotDoesNotDecodeIsStillReadById() async throws {
        let transport = Self.cancelledOnStripe()
        let event = try Self.event(
            "evt_2",
            type: "customer.subscription.updated",
            created: 1_700_000_100,
            object: #"{"id":"\#(Self.subscriptionId)","object":"subscription","status":12}"#
        )
        #expect(event.subscription == nil)
        let purchase = try #require(try await Fixtures.adapter(transport).purchase(for: event))
        #expect(purchase.state == .expired)
    }

    @Test func aSubscriptionEventWithoutAnIdIsRefused() async throws {
        let transport = ScriptedTransport()
        let event = try Self.event("evt_3", type: "customer.subscription.updated", created: 1, object: "{}")
        let error = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).purchase(for: event)
        }
        #expect(error.code == .invalidProof)
        #expect(transport.requests.isEmpty)
    }

    @Test func aSubscriptionStripeNoLongerHasIsNotFound() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            Self.path,
            status: 404,
            json: Fixtures.error(
                type: "invalid_request_error",
                code: "resource_missing",
                message: "No such subscription"
            )
        )
        let event = try Self.event(
            "evt_4",
            type: "customer.subscription.updated",
            created: 1,
            object: Self.subscription(status: "active")
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport, maxAttempts: 1).purchase(for: event)
        }
        #expect(error.code == .notFound)
    }

    /// Cancel, reactivate, cancel again within a day: each cancellation is its own request, with its own
    /// `Idempotency-Key` (the caller's request id, or a fresh one), so Stripe cancels again instead of replaying the
    /// first answer; the HTTP client's retries of one request keep its key.
    @Test func cancellingAgainAfterAReactivationSendsANewIdempotencyKey() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Self.path, json: Self.subscription(status: "active"))
        transport.on(.get, Self.path, json: Self.subscription(status: "active"))
        let adapter = Fixtures.adapter(transport)
        _ = try await adapter.cancelSubscription(id: Self.subscriptionId, atPeriodEnd: true, requestId: "req-1")
        _ = try await adapter.cancelSubscription(id: Self.subscriptionId, atPeriodEnd: true, requestId: "req-2")
        _ = try await adapter.cancelSubscription(id: Self.subscriptionId, atPeriodEnd: true)
        _ = try await adapter.cancelSubscription(id: Self.subscriptionId, atPeriodEnd: true)
        let keys = transport.requests.filter { $0.request.method == .post }.compactMap {
            $0.request.headerFields[HTTPField.Name("Idempotency-Key")!]
        }
        #expect(keys.count == 4 && Set(keys).count == 4, "\(keys)")
        #expect(
            keys.prefix(2) == [
                "opencat-cancel-\(Self.subscriptionId)-true-req-1", "opencat-cancel-\(Self.subscriptionId)-true-req-2",
            ]
        )
        let bad = try await #require(throws: StoreAdapterError.self) {
            try await adapter.cancelSubscription(id: Self.subscriptionId, atPeriodEnd: true, requestId: "has space")
        }
        #expect(bad.code == .invalidProof)
    }
}

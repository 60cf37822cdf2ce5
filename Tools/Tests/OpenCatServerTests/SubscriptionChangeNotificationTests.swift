import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

@testable import OpenCatServer

/// One store notification, several changes (docs/SECURITY.md, "Events to the integrator's backend"): a Stripe
/// renewal that also turns auto-renew off is a new invoice (a new transaction) with `cancel_at_period_end`, and emits
/// `renewal` and `cancellation`, each with the store's time and environment — on SQLite and PostgreSQL.
struct SubscriptionChangeNotificationTests {
    typealias Binding = ServerBuyerBindingTests

    /// The subscription in its `period`-th month (0: the first), paid by invoice `in_change<period>`.
    static func subscription(period: Int64, cancelAtPeriodEnd: Bool) -> String {
        let start = Int64(ServerFixture.signedDate.timeIntervalSince1970) - 60
        let from = start + period * 30 * 86_400
        return """
            {"id":"\(Binding.subscriptionId)","object":"subscription","status":"active","livemode":true,
            "created":\(start),"start_date":\(start),"current_period_start":\(from),
            "current_period_end":\(from + 30 * 86_400),"cancel_at_period_end":\(cancelAtPeriodEnd),"ended_at":null,
            "metadata":{"product_id":"\(ServerFixture.proProduct)","app_user_id":"app-user-1"},
            "items":{"data":[{"id":"si_buyer1","quantity":1,"price":{"id":"price_pro","currency":"usd",
            "unit_amount":999}}]},"latest_invoice":{"id":"in_change\(period)","status":"paid"}}
            """
    }

    @Test(arguments: Backend.allCases)
    func aStripeRenewalThatTurnsAutoRenewOffEmitsRenewalAndCancellation(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        let path = "/v1/subscriptions/\(Binding.subscriptionId)"
        stripeAPI.on(.get, path, exact: true, times: 1, json: Self.subscription(period: 0, cancelAtPeriodEnd: false))
        stripeAPI.on(.get, path, exact: true, json: Self.subscription(period: 1, cancelAtPeriodEnd: true))
        let stripe = StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_subscriptionchange"),
                baseURL: URL(string: "https://api.stripe.test")!,
                httpClient: HTTPClient(transport: stripeAPI, clock: clock.manual)
            )
        )
        let webhooks = try StripeWebhookVerifier(secret: Binding.stripeSecret, clock: clock.manual)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [stripe], stripeWebhooks: webhooks)
            _ = try await registerEndpoint(stores[0], id: "all", url: "https://example.com/all")
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let api = ServerOpenCatAPITests()
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "stripe", "kind": "stripeSubscription",
                    "proof": Binding.subscriptionId,
                ]
                #expect(try await api.post(client, "/v1/receipts", receipt).0 == .ok)
                // A month later Stripe renews it, and the subscriber has turned auto-renew off: one event.
                clock.advance(30 * 86_400)
                let signed = Binding.signedEvent(
                    "evt_change_renewed",
                    type: "customer.subscription.updated",
                    created: clock.now,
                    object: Self.subscription(period: 1, cancelAtPeriodEnd: true),
                    now: clock.now
                )
                let status = try await Binding.deliver(signed, to: client).0
                #expect(status == .ok)
            }
            let rows = try await stores[0].transaction(locking: []) { connection in
                try await connection.rows("SELECT type, payload FROM webhook_events ORDER BY seq")
            }
            #expect(rows.map { $0["type"]?.text } == ["initial_purchase", "renewal", "cancellation"])
            for row in rows {
                let payload = try #require(row["payload"]?.text)
                let data = try #require(
                    (try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])?["data"]
                        as? [String: Any]
                )
                #expect(data["store_time"] is String && data["environment"] as? String == "production")
            }
        }
    }
}

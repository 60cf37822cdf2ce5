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

/// One store notification, several changes (docs/SECURITY.md, "Events to the integrator's backend"), in each store's
/// own shape, through its notification route: a Stripe renewal that also turns auto-renew off (a new invoice with
/// `cancel_at_period_end`), an App Store `DID_RENEW` whose renewal info says auto-renew is off or whose transaction
/// is another product, a Google `SUBSCRIPTION_RENEWED` whose re-read subscription no longer renews — one event per
/// change, each with the store's time and environment, on SQLite and PostgreSQL.
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

    /// The events the outbox holds, in order; each carries `store_time` and `environment` (production).
    static func events(_ ledger: any LedgerStore) async throws -> [String?] {
        let rows = try await ledger.transaction(locking: []) { connection in
            try await connection.rows("SELECT type, payload FROM webhook_events ORDER BY seq")
        }
        for row in rows {
            let payload = try #require(row["payload"]?.text)
            let object = try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
            let data = try #require(object?["data"] as? [String: Any])
            #expect(data["store_time"] is String && data["environment"] as? String == "production", "\(payload)")
        }
        return rows.map { $0["type"]?.text }
    }

    /// Posts a body to one of the server's notification routes; its status.
    static func notify(_ client: some TestClientProtocol, _ path: String, _ body: Data) async throws
        -> HTTPResponse.Status
    {
        try await client.execute(
            uri: path,
            method: .post,
            headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: body)
        ) { response in response.status }
    }

    @Test(arguments: Backend.allCases)
    func anAppStoreRenewalNamesEachChangeItsRenewalInfoAndTransactionReveal(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let start = ServerFixture.signedDate
        let day: TimeInterval = 86_400
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock)
            _ = try await registerEndpoint(stores[0], id: "all", url: "https://example.com/all")
            let app = Application(router: fixture.server.router())
            @Sendable func transaction(_ id: String, product: String = ServerFixture.proProduct, period: Double)
                -> String
            {
                fixture.appleTransaction(
                    id: id,
                    productId: product,
                    originalId: "7000000000000001",
                    expires: start + (period + 1) * 30 * day,
                    purchaseDate: start + period * 30 * day - 60,
                    signed: clock.now
                )
            }
            @Sendable func renewal(on: Bool, product: String = ServerFixture.proProduct) -> JWSRenewalInfoDecodedPayload
            {
                JWSRenewalInfoDecodedPayload(
                    originalTransactionId: "7000000000000001",
                    autoRenewProductId: product,
                    productId: product,
                    rawAutoRenewStatus: on ? 1 : 0,
                    signedDate: clock.now,
                    rawEnvironment: "Production"
                )
            }
            try await app.test(.router) { client in
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "apple", "kind": "appleSignedTransaction",
                    "proof": transaction("7000000000000001", period: 0),
                ]
                #expect(try await ServerOpenCatAPITests().post(client, "/v1/receipts", receipt).0 == .ok)
                clock.advance(3_600)
                let enabled = try fixture.appleNotification(
                    type: "DID_CHANGE_RENEWAL_STATUS",
                    subtype: "AUTO_RENEW_ENABLED",
                    uuid: "uuid-change-1",
                    transaction: transaction("7000000000000001", period: 0),
                    renewal: renewal(on: true),
                    signed: clock.now
                )
                #expect(try await Self.notify(client, "/v1/notifications/apple", enabled) == .ok)
                // Renewed, and its renewal info says the subscriber has turned auto-renew off since.
                clock.advance(30 * day)
                let renewedOff = try fixture.appleNotification(
                    type: "DID_RENEW",
                    uuid: "uuid-change-2",
                    transaction: transaction("7000000000000002", period: 1),
                    renewal: renewal(on: false),
                    signed: clock.now
                )
                #expect(try await Self.notify(client, "/v1/notifications/apple", renewedOff) == .ok)
                // Renewed into another product of the group (a downgrade takes effect at renewal), auto-renew on.
                clock.advance(30 * day)
                let yearly = "dev.opencat.pro.yearly"
                let renewedAs = try fixture.appleNotification(
                    type: "DID_RENEW",
                    uuid: "uuid-change-3",
                    transaction: transaction("7000000000000003", product: yearly, period: 2),
                    renewal: renewal(on: true, product: yearly),
                    signed: clock.now
                )
                #expect(try await Self.notify(client, "/v1/notifications/apple", renewedAs) == .ok)
            }
            #expect(
                try await Self.events(stores[0]) == [
                    "initial_purchase", "uncancellation", "renewal", "cancellation", "product_change", "renewal",
                    "uncancellation",
                ]
            )
        }
    }

    /// A Google subscription as `purchases.subscriptionsv2.get` answers it in its `period`-th month.
    static func googleSubscription(period: Int, autoRenew: Bool) -> String {
        let expiry = ServerFixture.signedDate.addingTimeInterval(Double(period + 1) * 30 * 86_400)
        return """
            {"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"US",
            "startTime":"\(Date.ISO8601FormatStyle().format(ServerFixture.signedDate.addingTimeInterval(-60)))",
            "subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "externalAccountIdentifiers":{"obfuscatedExternalAccountId":"app-user-1"},
            "lineItems":[{"productId":"\(ServerFixture.proProduct)",
            "expiryTime":"\(Date.ISO8601FormatStyle().format(expiry))",
            "autoRenewingPlan":{"autoRenewEnabled":\(autoRenew),
            "recurringPrice":{"currencyCode":"USD","units":"6","nanos":990000000}},
            "offerDetails":{"basePlanId":"monthly"},"latestSuccessfulOrderId":"GPA.3301-0000-0000-07001..\(period)"}]}
            """
    }

    @Test(arguments: Backend.allCases)
    func aGoogleRenewalWhoseSubscriptionNoLongerRenewsEmitsRenewalAndCancellation(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let play = ServerFixture.play()
        let path = "/androidpublisher/v3/applications/dev.opencat.server.tests/purchases/subscriptionsv2/tokens/"
        play.on(.get, path, times: 1, json: Self.googleSubscription(period: 0, autoRenew: true))
        play.on(.get, path, json: Self.googleSubscription(period: 1, autoRenew: false))
        let google = try ServerFixture.google(play, clock: clock)
        let pushToken = "push-token-subscriptionchange"
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(
                ledger: stores[0],
                clock: clock,
                stores: [google],
                googlePushToken: pushToken
            )
            _ = try await registerEndpoint(stores[0], id: "all", url: "https://example.com/all")
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "google", "kind": "googleSubscriptionPurchaseToken",
                    "proof": "play-sub-token-1", "productId": ServerFixture.proProduct,
                ]
                #expect(try await ServerOpenCatAPITests().post(client, "/v1/receipts", receipt).0 == .ok)
                // A month later Google renews it; the subscriber has turned auto-renew off meanwhile.
                clock.advance(30 * 86_400)
                let push = try StoreOrderReplayTests.push("136969346946", type: 2, at: clock.now)
                #expect(try await Self.notify(client, "/v1/notifications/google?token=\(pushToken)", push) == .ok)
            }
            #expect(try await Self.events(stores[0]) == ["initial_purchase", "renewal", "cancellation"])
        }
    }
}

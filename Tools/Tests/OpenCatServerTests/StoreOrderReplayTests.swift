import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// Store notifications replayed out of order on every store that sends them: an older notice delivered after a newer
/// one never brings back the state the newer one ended. Apple with `stores.apple.rereadNotifications` (the state is
/// Apple's current one from Get All Subscription Statuses), Google (every push is read again from
/// `purchases.subscriptionsv2`) and PayPal (every `BILLING.SUBSCRIPTION.*` is read again from
/// `/v1/billing/subscriptions`). Stripe's is `ServerBuyerBindingTests`; Apple without the re-read is
/// `ServerOpenCatAPITests` (its `signedDate` orders it). Steam sends no notifications: its refunds come from the
/// report the server reads (`SteamRefundReconciliationTests`).
struct StoreOrderReplayTests {
    let api = ServerOpenCatAPITests()
    static let month = ServerFixture.signedDate.addingTimeInterval(30 * 86_400)

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Posts a notification body and answers its status and body.
    func deliver(
        _ client: some TestClientProtocol,
        _ path: String,
        _ body: Data,
        headers: HTTPFields = [:]
    ) async throws -> (HTTPResponse.Status, String) {
        var fields = headers
        fields[.contentType] = "application/json"
        return try await client.execute(uri: path, method: .post, headers: fields, body: ByteBuffer(bytes: body)) {
            ($0.status, String(buffer: $0.body))
        }
    }

    func statuses(_ client: some TestClientProtocol, _ user: String = "app-user-1") async throws -> [String?] {
        api.transactions(try await api.get(client, "/v1/subscribers/\(user)", key: ServerFixture.secretKey).1)
            .map { $0["status"] as? String }
    }

    // MARK: Apple

    /// Apple's status answer for the subscription: `status` 1 active, 2 expired.
    static func appleStatus(_ status: Int, expires: Date, signed: Date) throws -> String {
        let transaction = OperatorOperationsTests.subscription(expires: expires, signed: signed)
        return try json([
            "environment": "Production", "bundleId": ServerFixture.bundleId,
            "data": [
                [
                    "subscriptionGroupIdentifier": "pro",
                    "lastTransactions": [
                        [
                            "originalTransactionId": "5100000000000001", "status": status,
                            "signedTransactionInfo": transaction,
                        ]
                    ],
                ]
            ],
        ])
    }

    @Test(arguments: Backend.allCases)
    func appleNotificationsAreReadAgainFromTheAppStoreAndAStaleRenewalChangesNothing(_ backend: Backend)
        async throws
    {
        let clock = TestClock(ServerFixture.signedDate)
        let appStore = ScriptedTransport()
        let path = "/inApps/v1/subscriptions/5100000000000001"
        // Expired on Apple's side from the first notification on.
        appStore.on(
            .get,
            path,
            json: try Self.appleStatus(2, expires: Self.month, signed: Self.month.addingTimeInterval(3_600))
        )
        let apple = AppleStoreAdapter(
            configuration: .init(
                bundleId: ServerFixture.bundleId,
                rootCertificates: [ServerFixture.ca.rootCertificate],
                environment: .production,
                validationTime: .signedDate,
                apiCredentials: .init(
                    issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                    keyId: "REREAD0001",
                    privateKey: Secret(P256.Signing.PrivateKey())
                ),
                productionBaseURL: URL(string: "https://api.storekit.test")!,
                httpClient: HTTPClient(transport: appStore, clock: clock.manual)
            )
        )
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [apple]) {
                $0.appleRereadNotifications = true
            }
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "apple", "kind": "appleSignedTransaction",
                    "proof": OperatorOperationsTests.subscription(expires: Self.month),
                ]
                #expect(try await api.post(client, "/v1/receipts", receipt).0 == .ok)
                #expect(try await statuses(client) == ["active"])
                clock.advance(30 * 86_400 + 3_600)
                func notify(_ type: String, _ uuid: String, expires: Date, signed: Date) async throws {
                    let body = try fixture.appleNotification(
                        type: type,
                        uuid: uuid,
                        transaction: OperatorOperationsTests.subscription(expires: expires, signed: signed),
                        signed: signed
                    )
                    let answer = try await deliver(client, "/v1/notifications/apple", body)
                    #expect(answer.0 == .ok, "\(type): \(answer.1)")
                }
                try await notify("EXPIRED", "uuid-reread-expired", expires: Self.month, signed: clock.now)
                #expect(try await statuses(client) == ["expired"])
                // Signed before the expiry, delivered after it: Apple says expired, so it stays expired.
                try await notify(
                    "DID_RENEW",
                    "uuid-reread-renew-late",
                    expires: Self.month.addingTimeInterval(30 * 86_400),
                    signed: Self.month.addingTimeInterval(-86_400)
                )
                #expect(try await statuses(client) == ["expired"])
            }
        }
        #expect(appStore.requests(matching: "/inApps/v1/subscriptions/").count == 2)
    }

    // MARK: Google

    static let playPackage = "dev.opencat.server.tests"

    static func playSubscription(state: String, expiry: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return """
            {"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"US","subscriptionState":"\(state)",
            "acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED","startTime":"\(formatter.string(from: ServerFixture.signedDate.addingTimeInterval(-60)))",
            "latestOrderId":"GPA.5555-6666-7777-88888","lineItems":[{"productId":"\(ServerFixture.proProduct)",
            "expiryTime":"\(formatter.string(from: expiry))","autoRenewingPlan":{"autoRenewEnabled":\(state == "SUBSCRIPTION_STATE_ACTIVE"),
            "recurringPrice":{"currencyCode":"USD","units":"9","nanos":990000000}}}],
            "externalAccountIdentifiers":{"obfuscatedExternalAccountId":"app-user-1"}}
            """
    }

    /// A Pub/Sub push of a subscription notification (`SUBSCRIPTION_RENEWED` is 2, `SUBSCRIPTION_EXPIRED` 13) Google
    /// sent at `date`.
    static func push(_ messageId: String, type: Int, at date: Date = ServerFixture.signedDate) throws -> Data {
        let notification = try json([
            "version": "1.0", "packageName": playPackage,
            "eventTimeMillis": "\(Int64(date.timeIntervalSince1970 * 1000))",
            "subscriptionNotification": [
                "version": "1.0", "notificationType": type, "purchaseToken": "play-sub-token-1",
            ],
        ])
        return Data(
            try json(["message": ["data": Data(notification.utf8).base64EncodedString(), "messageId": messageId]]).utf8
        )
    }

    @Test(arguments: Backend.allCases)
    func aGoogleRenewalPushDeliveredAfterTheExpiryLeavesItExpired(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let play = ServerFixture.play()
        let path = "/androidpublisher/v3/applications/\(Self.playPackage)/purchases/subscriptionsv2/tokens/"
        play.on(
            .get,
            path,
            times: 1,
            json: Self.playSubscription(state: "SUBSCRIPTION_STATE_ACTIVE", expiry: Self.month)
        )
        play.on(.get, path, json: Self.playSubscription(state: "SUBSCRIPTION_STATE_EXPIRED", expiry: Self.month))
        let google = try ServerFixture.google(play, clock: clock)
        let token = "push-token-0123456789abcdef"
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [google], googlePushToken: token)
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "google", "kind": "googleSubscriptionPurchaseToken",
                    "proof": "play-sub-token-1", "productId": ServerFixture.proProduct,
                ]
                let posted = try await api.post(client, "/v1/receipts", receipt)
                #expect(posted.0 == .ok, "\(posted.1)")
                #expect(try await statuses(client) == ["active"])
                clock.advance(30 * 86_400 + 3_600)
                let expired = try await deliver(
                    client,
                    "/v1/notifications/google?token=\(token)",
                    try Self.push("pubsub-expired", type: 13)
                )
                #expect(expired.0 == .ok, "\(expired.1)")
                #expect(try await statuses(client) == ["expired"])
                // A renewal push from before the expiry, delivered late (Pub/Sub does not keep order).
                clock.advance(60)
                let late = try await deliver(
                    client,
                    "/v1/notifications/google?token=\(token)",
                    try Self.push("pubsub-renewed-late", type: 2)
                )
                #expect(late.0 == .ok, "\(late.1)")
                #expect(try await statuses(client) == ["expired"])
            }
        }
        #expect(play.requests(matching: "/subscriptionsv2/").count == 3)
    }

    // MARK: PayPal

    static func payPalSubscription(_ status: String) -> String {
        """
        {"id":"I-REPLAY0001","plan_id":"P-PRO","status":"\(status)","status_update_time":"2026-11-01T00:00:00Z",
         "start_time":"2026-08-01T00:00:00Z","quantity":"1","custom_id":"app-user-1",
         "billing_info":{"cycle_executions":[{"tenure_type":"REGULAR","sequence":1,"cycles_completed":3,
         "cycles_remaining":0,"total_cycles":0}],"last_payment":{"amount":{"currency_code":"USD","value":"9.99"},
         "time":"2026-11-01T00:00:00Z"},"next_billing_time":"2026-12-01T00:00:00Z","failed_payments_count":0}}
        """
    }

    /// A `BILLING.SUBSCRIPTION.*` delivery and PayPal's transmission headers (PayPal itself confirms them).
    func payPalEvent(_ id: String, type: String, status: String, sent: Date) -> (Data, HTTPFields) {
        let body = Data(
            """
            {"id":"\(id)","event_type":"\(type)","resource_type":"subscription","create_time":"2026-11-20T00:00:00Z",
            "resource":{"id":"I-REPLAY0001","plan_id":"P-PRO","status":"\(status)"}}
            """.utf8
        )
        var headers = HTTPFields()
        for (name, value) in [
            ("PAYPAL-AUTH-ALGO", "SHA256withRSA"),
            ("PAYPAL-CERT-URL", "https://api.paypal.com/v1/notifications/certs/CERT"),
            ("PAYPAL-TRANSMISSION-ID", "tx-\(id)"), ("PAYPAL-TRANSMISSION-SIG", "c2lnbmF0dXJl"),
            ("PAYPAL-TRANSMISSION-TIME", ISO8601DateFormatter().string(from: sent)),
        ] {
            headers[HTTPField.Name(name)!] = value
        }
        return (body, headers)
    }

    @Test(arguments: Backend.allCases)
    func aPayPalActivationDeliveredAfterTheCancellationLeavesItCancelled(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let payPalAPI = ScriptedTransport()
        payPalAPI.on(
            .post,
            "/v1/oauth2/token",
            json: #"{"access_token":"A21.test","expires_in":32400,"token_type":"Bearer"}"#
        )
        payPalAPI.on(.post, "/v1/notifications/verify-webhook-signature", json: #"{"verification_status":"SUCCESS"}"#)
        let path = "/v1/billing/subscriptions/I-REPLAY0001"
        payPalAPI.on(.get, path, times: 1, json: Self.payPalSubscription("ACTIVE"))
        payPalAPI.on(.get, path, json: Self.payPalSubscription("CANCELLED"))
        let paypal = PayPalAdapter(
            configuration: .init(
                clientId: "replay-client",
                clientSecret: Secret("replay-secret"),
                environment: .live,
                payeeMerchantId: "REPLAYMERCHANT",
                prices: [:],
                baseURL: URL(string: "https://api.paypal.test")!,
                webhookId: "WH-REPLAY",
                httpClient: HTTPClient(transport: payPalAPI, clock: clock.manual),
                subscriptionPlans: ["P-PRO": ServerFixture.proProduct]
            )
        )
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(
                ledger: stores[0],
                clock: clock,
                stores: [paypal],
                payPalWebhooks: try paypal.webhookVerifier()
            )
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "paypal", "kind": "paypalSubscription", "proof": "I-REPLAY0001",
                ]
                let posted = try await api.post(client, "/v1/receipts", receipt)
                #expect(posted.0 == .ok, "\(posted.1)")
                #expect(try await statuses(client) == ["active"])
                clock.advance(86_400)
                let cancelled = payPalEvent(
                    "WH-CANCELLED",
                    type: "BILLING.SUBSCRIPTION.CANCELLED",
                    status: "CANCELLED",
                    sent: clock.now
                )
                let first = try await deliver(client, "/v1/notifications/paypal", cancelled.0, headers: cancelled.1)
                #expect(first.0 == .ok, "\(first.1)")
                #expect(try await statuses(client) == ["expired"])
                // The activation (sent before the cancellation) retried late: PayPal says cancelled.
                clock.advance(60)
                let activated = payPalEvent(
                    "WH-ACTIVATED",
                    type: "BILLING.SUBSCRIPTION.ACTIVATED",
                    status: "ACTIVE",
                    sent: clock.now
                )
                let late = try await deliver(client, "/v1/notifications/paypal", activated.0, headers: activated.1)
                #expect(late.0 == .ok, "\(late.1)")
                #expect(try await statuses(client) == ["expired"])
            }
        }
        #expect(payPalAPI.requests(matching: "/v1/billing/subscriptions/").count == 3)
    }
}

/// `stores.apple.rereadNotifications` as the README documents it: off by default, and refused without the App Store
/// Server API credentials it reads with.
struct AppleRereadConfigurationTests {
    func settings(_ apple: String) throws -> ServerSettings {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("opencat-server.json")
        try Data(#"{"database": "sqlite:ledger.sqlite", "stores": {"apple": \#(apple)}}"#.utf8).write(to: file)
        return try ServerConfigurationFile(file: file).settings(environment: [:])
    }

    @Test func theRereadIsOffByDefaultAndNeedsTheAPICredentials() throws {
        #expect(try settings(#"{"bundleId": "dev.opencat.app"}"#).appleRereadNotifications == false)
        let refused = #expect(throws: ServerConfigurationError.self) {
            try settings(#"{"bundleId": "dev.opencat.app", "rereadNotifications": true}"#)
        }
        #expect(refused?.message.contains("stores.apple.rereadNotifications") == true)
        let on = try settings(
            #"{"bundleId": "dev.opencat.app", "issuerId": "i", "keyId": "K", "privateKeyFile": "k.p8", "rereadNotifications": true}"#
        )
        #expect(on.appleRereadNotifications)
    }
}

import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// Stripe and Google notifications end to end: a key pack bought through KeyServerClient, then the store's signed
/// (Stripe) or pushed (Google RTDN) notice of its refund, verified, re-read from the store, applied once.
@Suite(.serialized)
struct ServerNotificationTests {
    let keys = ServerKeyServerTests()
    static let stripeSecret = Secret("whsec_servertests0123456789abcdefghij")
    static let pushToken = "push-token-0123456789abcdef"

    static func paymentIntent(refunded: Bool, id: String = "pi_keys001") -> Data {
        let amountRefunded = refunded ? 500 : 0
        return Data(
            """
            {"id":"\(id)","object":"payment_intent","amount":500,"amount_capturable":0,"amount_received":500,
            "capture_method":"automatic","created":1789990000,"currency":"usd","livemode":true,
            "metadata":{"product_id":"\(ServerFixture.packProduct)","app_user_id":"user-1"},
            "payment_method_types":["card"],"status":"succeeded",
            "latest_charge":{"id":"ch_keys001","object":"charge","amount":500,"amount_captured":500,
            "amount_refunded":\(amountRefunded),"captured":true,"currency":"usd","paid":true,"refunded":\(refunded),
            "status":"succeeded","payment_intent":"\(id)"}}
            """.utf8
        )
    }

    /// The Stripe adapter of these tests, answered by `api` on the test clock.
    static func stripe(_ api: ScriptedTransport, clock: TestClock) -> StripeAdapter {
        StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_servertests"),
                baseURL: URL(string: "https://api.stripe.test")!,
                httpClient: HTTPClient(transport: api, clock: clock.manual)
            )
        )
    }

    /// Stripe's `charge.refunded` for `pi_keys001` refunded in full, and its `Stripe-Signature` header.
    static func chargeRefunded(id: String, at date: Date, livemode: Bool) -> (event: Data, signature: String) {
        let created = Int(date.timeIntervalSince1970)
        let event = Data(
            """
            {"id":"\(id)","object":"event","type":"charge.refunded","created":\(created),"livemode":\(livemode),
            "api_version":"2024-06-20","data":{"object":{"id":"ch_keys001","object":"charge",
            "payment_intent":"pi_keys001","refunded":true,"amount_refunded":500}}}
            """.utf8
        )
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(created).".utf8) + event,
            using: SymmetricKey(data: Data(stripeSecret.revealed.utf8))
        )
        return (event, "t=\(created),v1=" + mac.map { String(format: "%02x", $0) }.joined())
    }

    func post(_ url: URL, _ path: String, _ body: Data, headers: [String: String] = [:]) async throws -> (Int, String) {
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(url.port!)", path: path)
        request.headerFields[.contentType] = "application/json"
        for (name, value) in headers { request.headerFields[HTTPField.Name(name)!] = value }
        let response = try await ServerKeyServerTests.transport.send(request, body: body)
        return (response.head.status.code, String(decoding: response.body, as: UTF8.self))
    }

    @Test(arguments: Backend.allCases)
    func aStripeChargeRefundClawsTheKeysBackOnce(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        stripeAPI.on(
            .get,
            "/v1/payment_intents/pi_keys001",
            times: 1,
            reply: .response(status: 200, body: Self.paymentIntent(refunded: false))
        )
        stripeAPI.on(
            .get,
            "/v1/payment_intents/pi_keys001",
            reply: .response(status: 200, body: Self.paymentIntent(refunded: true))
        )
        let stripe = Self.stripe(stripeAPI, clock: clock)
        let webhooks = try StripeWebhookVerifier(secret: Self.stripeSecret, clock: clock.manual)
        try await keys.withServer(
            backend,
            clock: clock,
            configure: { ledger, clock in
                try ServerFixture(ledger: ledger, clock: clock, stores: [stripe], stripeWebhooks: webhooks)
            }
        ) { fixture, urls in
            let ada = keys.client(urls[0], user: 1)
            let bought = try await ada.purchaseKeyPack(
                PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret("pi_keys001")),
                email: "user1@example.com"
            )
            #expect(bought.keysAdded == 10)
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)

            let created = Int(clock.now.timeIntervalSince1970)
            let (event, signature) = Self.chargeRefunded(id: "evt_refund_1", at: clock.now, livemode: true)
            let forged = try await post(
                urls[0],
                "/v1/notifications/stripe",
                event,
                headers: ["Stripe-Signature": "t=\(created),v1=" + String(repeating: "0", count: 64)]
            )
            #expect(forged.0 == 400)
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
            for applied in [true, false] {
                let answer = try await post(
                    urls[0],
                    "/v1/notifications/stripe",
                    event,
                    headers: ["Stripe-Signature": signature]
                )
                #expect(answer.0 == 200)
                #expect(answer.1.contains("\"applied\":\(applied)"))
            }
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            #expect(try await ada.keys(email: "user1@example.com").availableKeys.isEmpty)
            #expect(try await ada.communityPool().totalKeys == 0)
        }
    }

    /// One proof, one redemption, over HTTP: a PaymentIntent credited as a key pack is refused by `/v1/receipts`,
    /// and one `/v1/receipts` recorded is refused as a key pack (409 `already_redeemed` both ways).
    @Test(arguments: Backend.allCases)
    func aPaymentIntentRedeemedByOneAPIIsRefusedByTheOther(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        for id in ["pi_keys001", "pi_keys002"] {
            stripeAPI.on(
                .get,
                "/v1/payment_intents/\(id)",
                reply: .response(status: 200, body: Self.paymentIntent(refunded: false, id: id))
            )
        }
        let stripe = Self.stripe(stripeAPI, clock: clock)
        try await keys.withServer(
            backend,
            clock: clock,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, stores: [stripe]) }
        ) { _, urls in
            let ada = keys.client(urls[0], user: 1)
            func receipt(_ id: String) async throws -> (Int, String) {
                let body = try JSONSerialization.data(withJSONObject: [
                    "appUserId": "user-1", "store": "stripe", "kind": "stripePaymentIntent", "proof": id,
                ])
                return try await post(
                    urls[0],
                    "/v1/receipts",
                    body,
                    headers: ["Authorization": "Bearer \(ServerFixture.apiKey)"]
                )
            }
            let proof = { (id: String) in PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(id)) }
            #expect(try await ada.purchaseKeyPack(proof("pi_keys001"), email: "user1@example.com").keysAdded == 10)
            let second = try await receipt("pi_keys001")
            #expect(second.0 == 409, "\(second.1)")
            #expect(second.1.contains("already_redeemed"))

            let recorded = try await receipt("pi_keys002")
            #expect(recorded.0 == 200, "\(recorded.1)")
            let refused = await #expect(throws: KeyServerError.self) {
                try await ada.purchaseKeyPack(proof("pi_keys002"), email: "user1@example.com")
            }
            #expect(refused?.serverCode == "already_redeemed")
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
        }
    }

    @Test(arguments: Backend.allCases)
    func aGoogleVoidedPurchasePushIsConfirmedWithGoogleThenApplied(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let play = ServerFixture.play()
        let purchaseMillis = Int64(ServerFixture.signedDate.timeIntervalSince1970 * 1000) - 60_000
        play.on(
            .get,
            "/androidpublisher/v3/applications/dev.opencat.server.tests/purchases/products/",
            reply: .response(
                status: 200,
                body: Data(
                    """
                    {"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"\(purchaseMillis)","purchaseState":0,
                    "consumptionState":0,"orderId":"GPA.1111-2222-3333-44444","acknowledgementState":1,
                    "productId":"\(ServerFixture.packProduct)","quantity":1,"obfuscatedExternalAccountId":"user-1"}
                    """.utf8
                )
            )
        )
        play.on(
            .get,
            "/androidpublisher/v3/applications/dev.opencat.server.tests/purchases/voidedpurchases",
            reply: .response(
                status: 200,
                body: Data(
                    """
                    {"voidedPurchases":[{"kind":"androidpublisher#voidedPurchase","purchaseToken":"play-token-1",
                    "orderId":"GPA.1111-2222-3333-44444","purchaseTimeMillis":"\(purchaseMillis)",
                    "voidedTimeMillis":"\(purchaseMillis + 30_000)","voidedSource":0,"voidedReason":1}]}
                    """.utf8
                )
            )
        )
        let google = try ServerFixture.google(play, clock: clock)
        try await keys.withServer(
            backend,
            clock: clock,
            configure: { ledger, clock in
                try ServerFixture(ledger: ledger, clock: clock, stores: [google], googlePushToken: Self.pushToken)
            }
        ) { fixture, urls in
            let ada = keys.client(urls[0], user: 1)
            let adasPurchase = PurchaseProof(
                store: .google,
                kind: .googleProductPurchaseToken,
                token: Secret("play-token-1"),
                productId: ServerFixture.packProduct
            )
            func bobPresents() async -> KeyServerError? {
                await keys.keyServerError {
                    try await keys.client(urls[0], user: 2).purchaseKeyPack(adasPurchase, email: "user2@example.com")
                }
            }
            // Before Ada redeems her purchase, Bob presenting it is refused as another buyer's.
            let early = await bobPresents()
            #expect(early?.status == 422)
            #expect(early?.serverReason == "purchaserMismatch")
            let bought = try await ada.purchaseKeyPack(adasPurchase, email: "user1@example.com")
            #expect(bought.transactionId == "GPA.1111-2222-3333-44444")
            // Once she has, Bob gets what any second redemption gets (409).
            #expect(await bobPresents()?.serverCode == "already_redeemed")

            let notification = Data(
                #"{"version":"1.0","packageName":"dev.opencat.server.tests","eventTimeMillis":"1790000000000","voidedPurchaseNotification":{"purchaseToken":"play-token-1","orderId":"GPA.1111-2222-3333-44444","productType":2,"refundType":1}}"#
                    .utf8
            )
            let push = try JSONSerialization.data(withJSONObject: [
                "message": ["data": notification.base64EncodedString(), "messageId": "136969346945"],
                "subscription": "projects/opencat/subscriptions/rtdn",
            ])
            #expect(try await post(urls[0], "/v1/notifications/google?token=wrong", push).0 == 401)
            for applied in [true, false] {
                let answer = try await post(urls[0], "/v1/notifications/google?token=\(Self.pushToken)", push)
                #expect(answer.0 == 200)
                #expect(answer.1.contains("\"applied\":\(applied)"))
            }
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            #expect(try await ada.keys(email: "user1@example.com").availableKeys.isEmpty)
        }
    }
}

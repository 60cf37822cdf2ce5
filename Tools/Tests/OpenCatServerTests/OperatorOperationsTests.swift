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

/// An operator's refund and extension through the console are applied on the store notifications' path: the keys go
/// back once and the expiry moves once, whatever the store's own notification of the same change does afterwards.
@Suite(.serialized)
struct OperatorOperationsTests {
    static let month = ServerFixture.signedDate.addingTimeInterval(30 * 86_400)

    /// The notification tests' PaymentIntent in test mode (the portal harness accepts Stripe's sandbox only).
    static func testModeIntent(refunded: Bool) -> Data {
        let text = String(decoding: ServerNotificationTests.paymentIntent(refunded: refunded), as: UTF8.self)
        return Data(text.replacingOccurrences(of: #""livemode":true"#, with: #""livemode":false"#).utf8)
    }

    static func subscription(expires: Date, signed: Date = ServerFixture.signedDate) -> String {
        let payload = JWSTransactionDecodedPayload(
            originalTransactionId: "5100000000000001",
            transactionId: "5100000000000001",
            bundleId: ServerFixture.bundleId,
            productId: ServerFixture.proProduct,
            purchaseDate: ServerFixture.signedDate.addingTimeInterval(-60),
            originalPurchaseDate: ServerFixture.signedDate.addingTimeInterval(-60),
            expiresDate: expires,
            quantity: 1,
            rawType: "Auto-Renewable Subscription",
            rawInAppOwnershipType: "PURCHASED",
            signedDate: signed,
            rawEnvironment: "Production",
            currency: "USD",
            price: 4990
        )
        return try! ServerFixture.ca.signJWS(payload)
    }

    func post(_ harness: PortalHarness, _ path: String, _ body: Data, headers: [String: String]) async throws
        -> (Int, String)
    {
        var request = HTTPRequest(
            method: .post,
            scheme: "http",
            authority: "127.0.0.1:\(harness.url.port!)",
            path: path
        )
        request.headerFields[.contentType] = "application/json"
        for (name, value) in headers { request.headerFields[HTTPField.Name(name)!] = value }
        let response = try await ServerKeyServerTests.transport.send(request, body: body)
        return (response.head.status.code, String(decoding: response.body, as: UTF8.self))
    }

    /// The App Store Server API of the extension: the transaction, Extend a Subscription Renewal Date, then the
    /// subscription's status with the new expiry.
    static func appStore(extendedUntil: Date) throws -> ScriptedTransport {
        let api = ScriptedTransport()
        func json(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object) }
        api.on(
            .get,
            "/inApps/v1/transactions/5100000000000001",
            reply: .response(status: 200, body: try json(["signedTransactionInfo": subscription(expires: month)]))
        )
        api.on(
            .put,
            "/inApps/v1/subscriptions/extend/5100000000000001",
            reply: .response(
                status: 200,
                body: try json([
                    "effectiveDate": Int64(extendedUntil.timeIntervalSince1970 * 1000),
                    "originalTransactionId": "5100000000000001", "success": true,
                    "webOrderLineItemId": "5100000000000777",
                ])
            )
        )
        let signed = ServerFixture.signedDate.addingTimeInterval(120)
        let renewal = ServerFixture.ca.signJWS(
            payload: try json([
                "originalTransactionId": "5100000000000001", "productId": ServerFixture.proProduct,
                "autoRenewProductId": ServerFixture.proProduct, "autoRenewStatus": 1, "environment": "Production",
                "signedDate": Int64(signed.timeIntervalSince1970 * 1000),
                "renewalDate": Int64(extendedUntil.timeIntervalSince1970 * 1000),
            ])
        )
        api.on(
            .get,
            "/inApps/v1/subscriptions/5100000000000001",
            reply: .response(
                status: 200,
                body: try json([
                    "environment": "Production", "bundleId": ServerFixture.bundleId,
                    "data": [
                        [
                            "subscriptionGroupIdentifier": "pro",
                            "lastTransactions": [
                                [
                                    "originalTransactionId": "5100000000000001", "status": 1,
                                    "signedTransactionInfo": subscription(expires: extendedUntil, signed: signed),
                                    "signedRenewalInfo": renewal,
                                ]
                            ],
                        ]
                    ],
                ])
            )
        )
        return api
    }

    @Test(arguments: Backend.allCases)
    func anOperatorExtensionMovesTheExpiryOnceWhateverTheNotificationDoes(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let extendedUntil = Self.month.addingTimeInterval(10 * 86_400)
        let api = try Self.appStore(extendedUntil: extendedUntil)
        let store = AppleStoreAdapter(
            configuration: .init(
                bundleId: ServerFixture.bundleId,
                rootCertificates: [ServerFixture.ca.rootCertificate],
                environment: .production,
                validationTime: .signedDate,
                apiCredentials: .init(
                    issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                    keyId: "OPERATORS1",
                    privateKey: Secret(P256.Signing.PrivateKey())
                ),
                productionBaseURL: URL(string: "https://api.storekit.test")!,
                httpClient: HTTPClient(transport: api, clock: clock.manual)
            )
        )
        try await PortalHarness.run(backend, clock: clock, stores: [store]) { harness in
            let receipt = try JSONSerialization.data(withJSONObject: [
                "appUserId": "app-user-7", "store": "apple", "kind": "appleSignedTransaction",
                "proof": Self.subscription(expires: Self.month),
            ])
            let posted = try await post(
                harness,
                "/v1/receipts",
                receipt,
                headers: ["Authorization": "Bearer \(ServerFixture.apiKey)"]
            )
            #expect(posted.0 == 200)
            func expiry() async throws -> Date? {
                try await harness.ledger.subscriber("app-user-7").transactions.first?.expirationDate
            }
            #expect(try await expiry() == Self.month)

            let ops = try await harness.operatorSignIn()
            let page = try await ops.get("/console/customers/app-user-7")
            var fields = page.html.fields(formContaining: "class=\"extend\"")
            #expect(fields["transaction"] == "5100000000000001")
            fields["days"] = "10"
            fields["reason"] = "the service was down for a week"
            // The form sent twice (a double click): the same request identifier both times, which Apple extends once.
            for _ in 0..<2 {
                let done = try await ops.post("/console/customers/app-user-7/extend", fields)
                #expect(done.status == 303)
                #expect(done.location == "/console/customers/app-user-7?notice=extended")
            }
            #expect(try await expiry() == extendedUntil)
            let extensions = api.requests(matching: "/subscriptions/extend/").map(\.bodyText)
            #expect(extensions.count == 2)
            #expect(Set(extensions).count == 1, "a repeated form repeats the request identifier")
            #expect(extensions.first?.contains(#""extendByDays":10"#) == true)
            #expect(extensions.first?.contains(#""extendReasonCode":1"#) == true)

            // Apple's RENEWAL_EXTENDED notification of the same change: the expiry stays where the store put it.
            let notification = try harness.fixture.appleNotification(
                type: "RENEWAL_EXTENDED",
                uuid: "uuid-extended-1",
                transaction: Self.subscription(
                    expires: extendedUntil,
                    signed: ServerFixture.signedDate.addingTimeInterval(180)
                )
            )
            let delivered = try await post(harness, "/v1/notifications/apple", notification, headers: [:])
            #expect(delivered.0 == 200, "\(delivered.1)")
            #expect(try await expiry() == extendedUntil)

            // The audit log names the operator, the change and the store's answer.
            let audit = try await ops.get("/console/audit")
            #expect(audit.body.contains("extend"))
            #expect(audit.body.contains("+10 days"))
            // Out-of-range days are refused before the store is asked.
            fields["days"] = "91"
            #expect(try await ops.post("/console/customers/app-user-7/extend", fields).status == 400)
            #expect(api.requests(matching: "/subscriptions/extend/").count == 2)
        }
    }

    @Test(arguments: Backend.allCases)
    func anOperatorRefundTakesTheKeysBackOnceThoughTheStoreNotifiesToo(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        stripeAPI.on(
            .get,
            "/v1/payment_intents/pi_keys001",
            times: 1,
            reply: .response(status: 200, body: Self.testModeIntent(refunded: false))
        )
        stripeAPI.on(
            .post,
            "/v1/refunds",
            times: 1,
            reply: .response(
                status: 200,
                body: Data(
                    #"{"id":"re_keys001","object":"refund","amount":500,"currency":"usd","payment_intent":"pi_keys001","status":"succeeded"}"#
                        .utf8
                )
            )
        )
        stripeAPI.on(
            .post,
            "/v1/refunds",
            reply: .response(
                status: 400,
                body: Data(
                    #"{"error":{"type":"invalid_request_error","code":"charge_already_refunded","message":"Charge ch_keys001 has already been refunded."}}"#
                        .utf8
                )
            )
        )
        stripeAPI.on(
            .get,
            "/v1/payment_intents/pi_keys001",
            reply: .response(status: 200, body: Self.testModeIntent(refunded: true))
        )
        let stripe = ServerNotificationTests.stripe(stripeAPI, clock: clock)
        let webhooks = try StripeWebhookVerifier(secret: ServerNotificationTests.stripeSecret, clock: clock.manual)
        try await PortalHarness.run(backend, clock: clock, stores: [stripe], stripeWebhooks: webhooks) { harness in
            let ada = harness.keyClient(user: 1)
            _ = try await ada.purchaseKeyPack(
                PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret("pi_keys001")),
                email: "user1@example.com"
            )
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)

            let ops = try await harness.operatorSignIn()
            let page = try await ops.get("/console/customers/user-1")
            var fields = page.html.fields(formContaining: "class=\"refund\"")
            #expect(fields["transaction"] == "pi_keys001")
            fields["reason"] = "bought by mistake"
            let refunded = try await ops.post("/console/customers/user-1/refund", fields)
            #expect(refunded.location == "/console/customers/user-1?notice=refunded")
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)

            // Stripe's own charge.refunded for the same refund: nothing more is taken.
            let (event, signature) = ServerNotificationTests.chargeRefunded(
                id: "evt_refund_op",
                at: clock.now,
                livemode: false
            )
            let answer = try await post(
                harness,
                "/v1/notifications/stripe",
                event,
                headers: ["Stripe-Signature": signature]
            )
            #expect(answer.0 == 200)
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            let refunds = try await harness.ledger.entries(of: "user-1", limit: 100).filter { $0.kind == "refund" }
            #expect(refunds.count == 1)
            #expect(refunds.first?.amount == -12)
            // A second refund of the same payment is the store's to refuse; the ledger does not move.
            let again = try await ops.post("/console/customers/user-1/refund", fields)
            #expect(again.location == "/console/customers/user-1?notice=refused")
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
        }
    }
}

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KeyServerClient
import Logging
import NIOCore
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// Receipts belong to their buyer and only real money counts (issue 23), end to end on both backends: a Steam order
/// is claimed only by the player a session ticket proves, a Google license tester's purchase credits nothing on a
/// production-only server, and a late, older Stripe subscription event cannot revive a cancelled subscription.
@Suite(.serialized)
struct ServerBuyerBindingTests {
    let api = ServerOpenCatAPITests()
    let keys = ServerKeyServerTests()

    static func reason(_ answer: [String: Any]) -> String? {
        (answer["error"] as? [String: Any])?["reason"] as? String
    }

    static func code(_ answer: [String: Any]) -> String? {
        (answer["error"] as? [String: Any])?["code"] as? String
    }

    // MARK: Steam

    static let steamAuthPath = "/ISteamUserAuth/AuthenticateUserTicket/v1/"
    static let steamOrderId = "938474000000000123"
    static let steamTransId = "374839000000000456"
    static let buyerTicket = "140000000a0b0c0d0e0f1011aaaa0001"
    static let strangerTicket = "140000000a0b0c0d0e0f1011bbbb0002"
    static let strangerSecondTicket = "140000000a0b0c0d0e0f1011bbbb0003"
    /// A ticket the game minted for another service (another identity): Steam refuses it for this server's identity.
    static let otherServiceTicket = "140000000a0b0c0d0e0f1011cccc0004"
    static let buyerSteamId = "76561197960434622"
    static let strangerSteamId = "76561197960265731"

    static func player(_ steamId: String) -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            steamAuthPath,
            exact: true,
            json: """
                {"response":{"params":{"result":"OK","steamid":"\(steamId)","ownersteamid":"\(steamId)",
                "vacbanned":false,"publisherbanned":false}}}
                """
        )
        return transport
    }

    @Test(arguments: Backend.allCases)
    func aStrangersClaimOfASteamOrderIsRefusedAndTheBuyersClaimSucceeds(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let buyer = Self.player(Self.buyerSteamId)
        let stranger = Self.player(Self.strangerSteamId)
        let otherService = ScriptedTransport()
        otherService.on(
            .get,
            Self.steamAuthPath,
            exact: true,
            json: #"{"response":{"error":{"errorcode":101,"errordesc":"Invalid ticket"}}}"#
        )
        let microTxn = ScriptedTransport()
        microTxn.on(
            .get,
            "/ISteamMicroTxn/QueryTxn/v3/",
            exact: true,
            json: """
                {"response":{"result":"OK","params":{"orderid":"\(Self.steamOrderId)","transid":"\(Self.steamTransId)",
                "steamid":"\(Self.buyerSteamId)","status":"Succeeded","currency":"USD","country":"US","usstate":"",
                "time":"2026-09-21T14:12:20Z","items":[{"itemid":"1001","qty":1,"amount":499,"vat":0,
                "itemstatus":"Succeeded"}]}}}
                """
        )
        let steam = SteamAdapter(
            configuration: .init(
                appId: 480,
                publisherKey: Secret("PUBLISHERKEY-server-buyer-binding"),
                baseURL: URL(string: "https://partner.test.invalid")!,
                httpClient: HTTPClient(
                    // AuthenticateUserTicket answered per `ticket` (an unknown one by `microTxn`, which fails it).
                    transport: QueryRoutedTransport(
                        routingBy: "ticket",
                        routes: [
                            Self.buyerTicket: buyer, Self.strangerTicket: stranger,
                            Self.strangerSecondTicket: stranger, Self.otherServiceTicket: otherService,
                            Self.strangerTicket.uppercased(): stranger,
                        ],
                        others: microTxn
                    ),
                    clock: clock.manual
                )
            )
        )
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [steam])
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                func claim(_ appUserId: String, context: [String: String]?) async throws
                    -> (HTTPResponse.Status, [String: Any])
                {
                    var receipt: [String: Any] = [
                        "appUserId": appUserId, "store": "steam", "kind": "steamOrder", "proof": Self.steamOrderId,
                    ]
                    if let context { receipt["context"] = context }
                    return try await api.post(client, "/v1/receipts", receipt)
                }

                // The stranger claims first, with their own (valid) ticket: Steam says the order is someone else's.
                let (strangerStatus, strangerAnswer) = try await claim(
                    "stranger",
                    context: ["steamAuthTicket": Self.strangerTicket, "steamIdentity": "opencat-server"]
                )
                #expect(strangerStatus == .unprocessableContent)
                #expect(Self.code(strangerAnswer) == "invalid_receipt")
                #expect(Self.reason(strangerAnswer) == "purchaserMismatch")

                // Without a ticket the public key cannot claim it, even naming the buyer's Steam id.
                for context in [nil, [:], ["steamId": Self.buyerSteamId]] as [[String: String]?] {
                    let (status, answer) = try await claim("stranger", context: context)
                    #expect(status == .unprocessableContent)
                    #expect(Self.code(answer) == "invalid_receipt")
                    #expect(Self.reason(answer) == "purchaserMismatch")
                }
                let (_, strangersHistory) = try await api.get(
                    client,
                    "/v1/subscribers/stranger",
                    key: ServerFixture.secretKey
                )
                #expect(api.transactions(strangersHistory).isEmpty)

                // The buyer's claim, after the stranger's, succeeds: the order is theirs.
                let (buyerStatus, buyerAnswer) = try await claim(
                    "buyer",
                    context: ["steamAuthTicket": Self.buyerTicket, "steamIdentity": "opencat-server"]
                )
                #expect(buyerStatus == .ok)
                #expect(api.transactions(buyerAnswer).count == 1)
                #expect(api.transactions(buyerAnswer).first?["status"] as? String == "active")
                let (_, buyersHistory) = try await api.get(
                    client,
                    "/v1/subscribers/buyer",
                    key: ServerFixture.secretKey
                )
                let owned = api.transactions(buyersHistory)
                #expect(owned.map { $0["transactionId"] as? String } == [Self.steamTransId])
                #expect(owned.first?["store"] as? String == "steam")
                #expect(owned.first?["productId"] as? String == "1001")

                // Now that it is the buyer's, the stranger's new ticket still cannot take it; a ticket is accepted
                // once (in any letter case), one made for another service is refused by Steam, and naming another
                // identity is refused before Steam is asked.
                let (lateStatus, lateAnswer) = try await claim(
                    "stranger",
                    context: ["steamAuthTicket": Self.strangerSecondTicket]
                )
                #expect(lateStatus == .unprocessableContent)
                #expect(Self.reason(lateAnswer) == "purchaserMismatch")
                for (context, reason) in [
                    (["steamAuthTicket": Self.strangerTicket.uppercased()], "ticketAlreadyUsed"),
                    (["steamAuthTicket": Self.otherServiceTicket], "invalidProof"),
                    (["steamAuthTicket": Self.buyerTicket, "steamIdentity": "another-service"], "ticketIdentity"),
                ] {
                    let (status, answer) = try await claim("stranger", context: context)
                    #expect(status == .unprocessableContent)
                    #expect(Self.reason(answer) == reason, "\(context)")
                }
                let (_, stillEmpty) = try await api.get(
                    client,
                    "/v1/subscribers/stranger",
                    key: ServerFixture.secretKey
                )
                #expect(api.transactions(stillEmpty).isEmpty)
            }
        }
        // Each ticket went to Steam as it was sent (with its identity), and only the order was looked up otherwise;
        // a claim without a ticket never reached Steam.
        #expect(buyer.requests.count == 1)
        #expect(stranger.requests.count == 3)
        #expect(otherService.requests.count == 1)
        for player in [buyer, stranger, otherService] {
            #expect(player.requests.allSatisfy { $0.path.contains("identity=opencat-server") })
        }
        #expect(microTxn.requests.allSatisfy { $0.path.hasPrefix("/ISteamMicroTxn/QueryTxn/v3/?") })
        #expect(microTxn.requests.count == 3)
    }

    // MARK: Google

    @Test(arguments: Backend.allCases)
    func aGoogleLicenseTesterPurchaseCreditsNothingOnAProductionOnlyServer(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let play = ServerFixture.play()
        let purchaseMillis = Int64(ServerFixture.signedDate.timeIntervalSince1970 * 1000) - 60_000
        // A license tester's purchase: Google marks it purchaseType 0 (test), no money changed hands.
        play.on(
            .get,
            "/androidpublisher/v3/applications/dev.opencat.server.tests/purchases/products/",
            json: """
                {"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"\(purchaseMillis)","purchaseState":0,
                "consumptionState":0,"orderId":"GPA.9999-2222-3333-55555","acknowledgementState":1,
                "purchaseType":0,"regionCode":"US","productId":"\(ServerFixture.packProduct)","quantity":1,
                "obfuscatedExternalAccountId":"user-1"}
                """
        )
        let google = try ServerFixture.google(play, clock: clock)
        let proof = PurchaseProof(
            store: .google,
            kind: .googleProductPurchaseToken,
            token: Secret("play-tester-token-1"),
            productId: ServerFixture.packProduct
        )
        try await keys.withServer(
            backend,
            clock: clock,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, stores: [google]) }
        ) { fixture, urls in
            let ada = keys.client(urls[0], user: 1)
            for _ in 0..<2 {
                let refused = await keys.keyServerError {
                    try await ada.purchaseKeyPack(proof, email: "user1@example.com")
                }
                #expect(refused?.status == 422)
                #expect(refused?.code == .purchaseRejected)
                #expect(refused?.serverCode == "invalid_receipt")
                #expect(refused?.serverReason == "sandboxNotAccepted")
            }
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            #expect(try await ada.keys(email: "user1@example.com").availableKeys.isEmpty)
            #expect(try await ada.communityPool().totalKeys == 0)
            #expect(play.requests(matching: "/purchases/products/").count == 2)

            // A server that accepts Google's test purchases (on the same database) credits the same purchase: the
            // refusals above recorded nothing that would stop it.
            let testing = try ServerFixture(
                ledger: fixture.ledger,
                clock: clock,
                keyring: fixture.keyring,
                stores: [google],
                acceptedEnvironments: [.google: [.production, .sandbox]]
            )
            let quiet = Logger(label: "tests.server.live", factory: { _ in SwiftLogNoOpLogHandler() })
            try await Application(router: testing.server.router(), logger: quiet).test(.live) { client in
                let ada = keys.client(URL(string: "http://localhost:\(try #require(client.port))")!, user: 1)
                let bought = try await ada.purchaseKeyPack(proof, email: "user1@example.com")
                #expect(bought.transactionId == "GPA.9999-2222-3333-55555")
                #expect(bought.keysAdded == 10)
                #expect(bought.licenses.count == 2)
                #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
                #expect(try await ada.keys(email: "user1@example.com").availableKeys.count == 2)
            }
        }
    }

    // MARK: Stripe

    static let stripeSecret = Secret("whsec_buyerbinding0123456789abcdefghij")
    static let subscriptionId = "sub_OpenCatBuyerBinding01"

    /// A subscription as Stripe renders it (in an event's `data.object`, or from the API), for app-user-1's "pro".
    static func subscription(status: String, endedAt: Date? = nil) -> String {
        let start = Int64(ServerFixture.signedDate.timeIntervalSince1970) - 60
        let ended = endedAt.map { String(Int64($0.timeIntervalSince1970)) } ?? "null"
        return """
            {"id":"\(subscriptionId)","object":"subscription","status":"\(status)","livemode":true,
            "created":\(start),"start_date":\(start),"current_period_start":\(start),
            "current_period_end":\(start + 30 * 86_400),"cancel_at_period_end":false,"ended_at":\(ended),
            "metadata":{"product_id":"\(ServerFixture.proProduct)","app_user_id":"app-user-1"},
            "items":{"data":[{"id":"si_buyer1","quantity":1,"price":{"id":"price_pro","currency":"usd",
            "unit_amount":999}}]},"latest_invoice":{"id":"in_buyer1","status":"paid"}}
            """
    }

    /// A `customer.subscription.*` event Stripe created at `created`, signed now with the endpoint's secret.
    static func signedEvent(_ id: String, type: String, created: Date, object: String, now: Date) -> (Data, String) {
        let event = Data(
            """
            {"id":"\(id)","object":"event","type":"\(type)","created":\(Int64(created.timeIntervalSince1970)),
            "livemode":true,"api_version":"2024-06-20","data":{"object":\(object)}}
            """.utf8
        )
        let timestamp = Int64(now.timeIntervalSince1970)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(timestamp).".utf8) + event,
            using: SymmetricKey(data: Data(stripeSecret.revealed.utf8))
        )
        return (event, "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined())
    }

    /// Posts a signed Stripe event to the server's Stripe notification route; its status and body.
    static func deliver(_ signed: (Data, String), to client: some TestClientProtocol) async throws -> (
        HTTPResponse.Status, String
    ) {
        try await client.execute(
            uri: "/v1/notifications/stripe",
            method: .post,
            headers: [.contentType: "application/json", HTTPField.Name("Stripe-Signature")!: signed.1],
            body: ByteBuffer(bytes: signed.0)
        ) { response in (response.status, String(buffer: response.body)) }
    }

    @Test(arguments: Backend.allCases)
    func anOutOfOrderStripeSubscriptionEventLeavesTheCancelledState(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        let path = "/v1/subscriptions/\(Self.subscriptionId)"
        // Active when the app posts it; cancelled on Stripe from then on.
        stripeAPI.on(.get, path, exact: true, times: 1, json: Self.subscription(status: "active"))
        let cancelledAt = ServerFixture.signedDate.addingTimeInterval(86_400)
        stripeAPI.on(.get, path, exact: true, json: Self.subscription(status: "canceled", endedAt: cancelledAt))
        let stripe = StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_buyerbinding"),
                baseURL: URL(string: "https://api.stripe.test")!,
                httpClient: HTTPClient(transport: stripeAPI, clock: clock.manual)
            )
        )
        let webhooks = try StripeWebhookVerifier(secret: Self.stripeSecret, clock: clock.manual)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [stripe], stripeWebhooks: webhooks)
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                func deliver(_ signed: (Data, String)) async throws -> (HTTPResponse.Status, String) {
                    try await Self.deliver(signed, to: client)
                }
                func history() async throws -> [[String: Any]] {
                    api.transactions(
                        try await api.get(client, "/v1/subscribers/app-user-1", key: ServerFixture.secretKey).1
                    )
                }

                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "stripe", "kind": "stripeSubscription",
                    "proof": Self.subscriptionId,
                ]
                let (status, answer) = try await api.post(client, "/v1/receipts", receipt)
                #expect(status == .ok)
                #expect(api.transactions(answer).first?["status"] as? String == "active")
                let map = (answer["subscriber"] as? [String: Any])?["entitlementMap"] as? [String: [String]]
                #expect(map == [ServerFixture.proProduct: ["pro"]])

                // A day later the subscription is cancelled: Stripe sends customer.subscription.deleted.
                clock.advance(86_400)
                let deleted = try await deliver(
                    Self.signedEvent(
                        "evt_buyer_deleted",
                        type: "customer.subscription.deleted",
                        created: clock.now,
                        object: Self.subscription(status: "canceled", endedAt: cancelledAt),
                        now: clock.now
                    )
                )
                #expect(deleted.0 == .ok)
                #expect(deleted.1.contains("\"applied\":true"))
                #expect(try await history().map { $0["status"] as? String } == ["expired"])

                // An older customer.subscription.updated (rendered while it was active) arrives after the deletion.
                clock.advance(60)
                let late = try await deliver(
                    Self.signedEvent(
                        "evt_buyer_updated_old",
                        type: "customer.subscription.updated",
                        created: ServerFixture.signedDate.addingTimeInterval(3_600),
                        object: Self.subscription(status: "active"),
                        now: clock.now
                    )
                )
                #expect(late.0 == .ok)
                let after = try await history()
                #expect(after.count == 1)
                #expect(after.first?["status"] as? String == "expired")
                #expect(after.first?["transactionId"] as? String == "in_buyer1")
                #expect(after.first?["willRenew"] as? Bool == false)

                // The app's public key sees nothing granting access, and no entitlement.
                let (_, visible) = try await api.get(client, "/v1/subscribers/app-user-1")
                #expect(api.transactions(visible).isEmpty)
                let visibleMap = (visible["subscriber"] as? [String: Any])?["entitlementMap"] as? [String: [String]]
                #expect(visibleMap?.isEmpty == true)
            }
        }
        // The receipt and both events were each read again from Stripe's API.
        #expect(stripeAPI.requests(matching: "/v1/subscriptions/").count == 3)
    }
}

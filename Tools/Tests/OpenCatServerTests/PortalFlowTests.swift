import Foundation
import HTTPTypes
import KeyServerClient
import MockStores
import MockStoresServer
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Synchronization
import Testing

/// Forwards the mock checkout's webhooks to the server under test (whose port is known only once it listens,
/// after the mock it is configured with), and records how the server answered each one.
final class WebhookRelay: HTTPTransport {
    private struct State {
        var port = 0
        var dropNext = false
        var statuses: [Int] = []
    }

    private let state = Mutex(State())

    func connect(port: Int) { state.withLock { $0.port = port } }

    /// Loses the next webhook on the way (the server never sees it; the store is answered 503).
    func dropNext() { state.withLock { $0.dropNext = true } }

    /// The server's answers to the webhooks so far (-1: no answer).
    var statuses: [Int] { state.withLock { $0.statuses } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        let (port, drop) = state.withLock { state in
            defer { state.dropNext = false }
            return (state.port, state.dropNext)
        }
        if drop {
            finish(503)
            return HTTPTransportResponse(head: HTTPResponse(status: .serviceUnavailable))
        }
        var request = request
        request.scheme = "http"
        request.authority = "127.0.0.1:\(port)"
        let response: HTTPTransportResponse
        do {
            response = try await ServerKeyServerTests.transport.send(request, body: body)
        } catch {
            finish(-1)
            throw error
        }
        finish(response.status.code)
        return response
    }

    private func finish(_ status: Int) { state.withLock { $0.statuses.append(status) } }
}

/// The portal's server with Stripe and PayPal adapters on MockStores' checkout simulator, whose webhooks reach the
/// server's `/v1/notifications/stripe` and `/v1/notifications/paypal`.
struct PortalCheckout {
    static let stripeKey = "sk_test_portalflow0123456789"
    static let webhookSecret = Secret("whsec_portalflow0123456789abcdefghij")
    static let payPalClient = "portal-flow-client"
    static let payPalSecret = "portal-flow-client-secret"

    let portal: PortalHarness
    let mock: MockStoreServer
    let checkout: MockCheckout
    let relay: WebhookRelay
    let stripe: StripeAdapter

    static func run(
        _ backend: Backend,
        stripePrices: Bool = true,
        pack: KeyPack = KeyPack(keys: 10, plan: "L2", licenses: 1),
        _ body: (PortalCheckout) async throws -> Void
    ) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let relay = WebhookRelay()
        // The server's port is not known yet: the relay puts it in.
        let placeholder = "http://127.0.0.1:1"
        let checkout = MockCheckout(
            configuration: .init(
                stripeWebhook: (url: URL(string: placeholder + "/v1/notifications/stripe")!, secret: webhookSecret),
                payPalWebhook: URL(string: placeholder + "/v1/notifications/paypal")!
            ),
            httpClient: HTTPClient(transport: relay, retryPolicy: .never, clock: clock.manual, timeout: .seconds(120))
        )
        let credentials = MockCredentials(
            stripeSecretKey: Secret(stripeKey),
            payPal: .init(clientId: payPalClient, clientSecret: Secret(payPalSecret))
        )
        try await MockStoreServer.withRunningServer(credentials: credentials, clock: clock.manual, checkout: checkout) {
            mock in
            // The stores' calls wait on the test clock, which stands still: no timeout fires under load.
            let http = HTTPClient(
                transport: ServerKeyServerTests.transport,
                retryPolicy: .never,
                clock: clock.manual,
                timeout: .seconds(120)
            )
            let stripe = StripeAdapter(
                configuration: .init(secretKey: Secret(stripeKey), baseURL: mock.baseURL, httpClient: http)
            )
            let paypal = PayPalAdapter(
                configuration: .init(
                    clientId: payPalClient,
                    clientSecret: Secret(payPalSecret),
                    environment: .sandbox,
                    payeeMerchantId: MockCheckout.defaultPayPalMerchantId,
                    prices: [PortalHarness.product: Money(decimalString: "4.99", currency: "USD")!],
                    baseURL: mock.baseURL,
                    webhookId: "WH-PORTAL-FLOW",
                    httpClient: http
                )
            )
            try await PortalHarness.run(
                backend,
                clock: clock,
                stores: [stripe, paypal],
                stripeWebhooks: try StripeWebhookVerifier(secret: webhookSecret, clock: clock.manual),
                payPalWebhooks: try paypal.webhookVerifier(),
                stripePrices: stripePrices,
                pack: pack
            ) { portal in
                relay.connect(port: portal.url.port!)
                try await body(
                    PortalCheckout(portal: portal, mock: mock, checkout: checkout, relay: relay, stripe: stripe)
                )
            }
        }
    }

    /// Buys one pack on the portal with a store and pays (or approves) on the mock's hosted page, following the
    /// redirects by hand; returns the store's reference (Checkout Session or order id) and the path of this server
    /// the store sends the buyer back to.
    func buyAndPay(_ browser: PortalBrowser, store: String, quantity: Int = 1) async throws -> (
        reference: String, returnPath: String
    ) {
        let buyPage = try await browser.get("/portal/buy")
        let button = "id=\"buy-\(store)-\(PortalHarness.product)\""
        #expect(buyPage.body.contains(button))
        var fields = buyPage.html.fields(formContaining: button)
        #expect(fields["quantity"] == "1")
        fields["store"] = store
        fields["quantity"] = String(quantity)
        let started = try await browser.post("/portal/buy", fields)
        #expect(started.status == 303)
        expectPageHeaders(started, "buy")
        let origin = mock.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let hostedURL = try #require(started.location)
        #expect(hostedURL.hasPrefix(origin + "/"))
        let hosted = try await browser.get(hostedURL)
        #expect(hosted.status == 200)
        #expect(hosted.body.contains(quantity == 1 ? "4.99" : "\(Decimal(string: "4.99")! * Decimal(quantity))"))
        let payButton = store == "stripe" ? "id=\"pay\"" : "id=\"approve\""
        let action = try #require(hosted.html.action(formContaining: payButton))
        let paid = try await browser.post(action.hasPrefix("/") ? origin + action : action, [:])
        #expect(paid.status == 303)
        let back = portal.local(paid.location)
        #expect(back.hasPrefix("/portal/return/\(store)?"), "\(back)")
        let query = URLComponents(string: back)?.queryItems ?? []
        let reference = try #require(query.first { $0.name == (store == "stripe" ? "session_id" : "token") }?.value)
        return (reference, back)
    }

    /// The buyer pays on the store's page and never comes back, and the store's webhook is lost (as while the server
    /// is down): returns the order's reference, still `created` here.
    func payWhileTheServerIsAway(_ buyer: PortalBrowser, store: String) async throws -> String {
        let delivered = relay.statuses.count
        relay.dropNext()
        let (reference, _) = try await buyAndPay(buyer, store: store)
        try await waitForWebhooks(delivered + 1)
        return reference
    }

    /// The buyer's browsers come back `racers` times at once (a reload, a second tab) while the store's webhook,
    /// sent when the payment was made, is still on its way; a redirect chain that began on the store's site
    /// carries no SameSite=Strict cookie, so neither do these.
    func returnRacingTheWebhook(_ path: String, racers: Int = 3) async throws -> [PortalPage] {
        let server = portal.url
        return try await withThrowingTaskGroup(of: PortalPage.self) { group in
            for _ in 0..<racers { group.addTask { try await PortalBrowser(base: server).get(path) } }
            var pages: [PortalPage] = []
            for try await page in group { pages.append(page) }
            return pages
        }
    }

    /// Waits until `count` webhooks in all were answered by the server and recorded by the mock checkout (which
    /// records a delivery only after its answer arrives, so the relay's count comes first).
    func waitForWebhooks(_ count: Int) async throws {
        try await waitUntil("\(count) webhooks answered by the server") { relay.statuses.count >= count }
        try await waitUntil("\(count) webhook deliveries recorded by the mock") { checkout.deliveries.count >= count }
    }

    /// Buys `rounds` packs one after the other, each one's return racing its webhook; checks that each adds
    /// exactly one pack.
    func buyRacing(_ browser: PortalBrowser, store: String, rounds: Int, userId: String) async throws -> [String] {
        var references: [String] = []
        let before = try await portal.ledger.balance(of: userId)
        let delivered = relay.statuses.count
        for round in 1...rounds {
            let (reference, back) = try await buyAndPay(browser, store: store)
            references.append(reference)
            for page in try await returnRacingTheWebhook(back) {
                #expect(page.status == 200, "round \(round)")
                #expect(page.html.text(id: "return-status")?.contains("keys are in your wallet") == true)
                #expect(page.body.contains("href=\"/portal/wallet?notice=bought\""))
                expectPageHeaders(page, "return")
            }
            try await waitForWebhooks(delivered + round)
            #expect(relay.statuses.last == 200, "round \(round): webhook \(relay.statuses)")
            #expect(try await portal.ledger.balance(of: userId) == before + Int64(10 * round), "round \(round)")
            let order = try await portal.ledger.webOrder(store: store, reference: reference)
            #expect(order?.state == "credited")
            #expect(order?.userId == userId)
        }
        #expect(Set(references).count == rounds)
        return references
    }
}

/// Buying keys on the web portal end to end, on SQLite and PostgreSQL: sign in by link, pay with Stripe Checkout
/// or PayPal on MockStores' hosted pages, come back while the store's webhook races the return, and find the keys
/// in the wallet (once), in the app's key sync, with a second user after sharing, and in the console.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PortalFlowTests {
    static let rounds = 8

    @Test(arguments: Backend.allCases)
    func stripeCheckoutCreditsThePackOnceWhileTheWebhookRacesTheReturn(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let portal = shop.portal
            let alice = try await portal.signIn(PortalHarness.alice)
            let sessions = try await shop.buyRacing(alice, store: "stripe", rounds: Self.rounds, userId: "user-1")
            #expect(sessions.allSatisfy { $0.hasPrefix("cs_test_") })
            let bought = Int64(10 * Self.rounds)

            // One purchase entry per pack, one webhook per payment, each answered 200.
            let purchases = try await portal.ledger.entries(of: "user-1", limit: 100).filter { $0.kind == "purchase" }
            #expect(purchases.count == Self.rounds)
            #expect(purchases.allSatisfy { $0.amount == 10 })
            #expect(shop.checkout.deliveries.count == Self.rounds)
            #expect(
                shop.checkout.deliveries.allSatisfy { $0.status == 200 && $0.eventType == "checkout.session.completed" }
            )

            // The wallet page, after the return page's link.
            let wallet = try await alice.get("/portal/wallet?notice=bought")
            #expect(wallet.html.text(id: "notice") == "Thank you: your keys are in your wallet.")
            #expect(wallet.html.text(id: "balance") == "\(bought)")
            #expect(wallet.html.rows(table: "history").filter { $0.contains("Bought") }.count == Self.rounds)

            // The app's key server client for the same account sees the web-bought keys and licences.
            let app = portal.keyClient(user: 1)
            #expect(try await app.walletBalance(userId: "user-1").balance == bought)
            let synced = try await app.keys(email: PortalHarness.alice)
            #expect(synced.availableKeys.count == Self.rounds)
            #expect(synced.availableKeys.allSatisfy { $0.planType.description == "L2" })
            let keysPage = try await alice.get("/portal/keys")
            #expect(
                Set(keysPage.html.texts(class: "licence-key")) == Set(synced.availableKeys.map(\.keyValue.description))
            )

            // Sharing: to a second user of the server, and to an email nobody has signed in with yet.
            let share = try await alice.get("/portal/share")
            #expect(share.html.text(id: "balance") == "\(bought)")
            let toBob = try await alice.post(
                "/portal/share",
                share.html.fields(form: "share-form").merging(["email": PortalHarness.bob, "amount": "4"]) { $1 }
            )
            #expect(toBob.status == 303)
            #expect(toBob.location == "/portal/share?notice=shared")
            let again = try await alice.get("/portal/share")
            let toCarol = try await alice.post(
                "/portal/share",
                again.html.fields(form: "share-form").merging(["email": "carol@example.com", "amount": "2"]) { $1 }
            )
            #expect(toCarol.status == 303)
            let bob = try await portal.signIn(PortalHarness.bob)
            let bobWallet = try await bob.get("/portal/wallet")
            #expect(bobWallet.html.text(id: "balance") == "4")
            #expect(bobWallet.html.rows(table: "history").contains { $0.contains("Received") && $0.contains("+4") })
            #expect(try await portal.keyClient(user: 2).walletBalance(userId: "user-2").balance == 4)
            let carol = try await portal.signIn("carol@example.com")
            #expect(try await carol.get("/portal/wallet").html.text(id: "balance") == "2")
            #expect(try await alice.get("/portal/wallet").html.text(id: "balance") == "\(bought - 6)")
            #expect(try await app.walletBalance(userId: "user-1").balance == bought - 6)

            // The console finds the buyer by email, by the Checkout Session and by the Stripe PaymentIntent.
            let ops = try await portal.operatorSignIn()
            let session = try await shop.stripe.checkoutSession(id: try #require(sessions.last))
            #expect(session.paymentStatus == "paid")
            let intent = try #require(session.paymentIntent)
            #expect(intent.hasPrefix("pi_"))
            for query in [PortalHarness.alice, "USER1@example.com", intent, try #require(sessions.last)] {
                let found = try await ops.get(
                    "/console/customers?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                )
                #expect(found.status == 200)
                #expect(found.html.links(class: "customer-link") == ["/console/customers/user-1"], "\(query)")
            }
            let customer = try await ops.get("/console/customers/user-1")
            let purchaseRows = customer.html.rows(table: "purchases")
            #expect(purchaseRows.contains { $0.contains(intent) && $0.contains(PortalHarness.product) })
            #expect(customer.html.text(id: "customer-balance") == "\(bought - 6)")
            let overview = try await ops.get("/console")
            #expect(overview.html.contains(id: "revenue-chart"))
            #expect(overview.html.contains(id: "keys-chart"))
            #expect(overview.html.text(id: "keys-minted") == "\(bought)")
            #expect(overview.body.contains("\(Decimal(string: "4.99")! * Decimal(Self.rounds)) USD"))
        }
    }

    /// Three and ten packs on one order: Stripe's PaymentIntent metadata and PayPal's order item carry the quantity,
    /// so the credit (the demo's pack: 10 keys and 1 bonus key, one licence, so 3 packs are 33 keys and 3 licences),
    /// the price check (with and without Stripe prices configured) and a later refund all use it.
    @Test(arguments: Backend.allCases, [true, false])
    func threePacksOnOneOrderCreditThreePacksOnStripeAndPayPal(_ backend: Backend, stripePrices: Bool) async throws {
        let pack = KeyPack(keys: 10, bonusKeys: 1, plan: "L2", licenses: 1)
        try await PortalCheckout.run(backend, stripePrices: stripePrices, pack: pack) { shop in
            let alice = try await shop.portal.signIn(PortalHarness.alice)
            var delivered = shop.relay.statuses.count
            var licenses = 0
            for store in ["stripe", "paypal"] {
                for quantity in [3, 10] {
                    let before = try await shop.portal.ledger.balance(of: "user-1")
                    let (reference, back) = try await shop.buyAndPay(alice, store: store, quantity: quantity)
                    for page in try await shop.returnRacingTheWebhook(back, racers: 1) {
                        #expect(
                            page.html.text(id: "return-status")?.contains("keys are in your wallet") == true,
                            "\(store)"
                        )
                    }
                    delivered += 1
                    try await shop.waitForWebhooks(delivered)
                    #expect(shop.relay.statuses.last == 200, "\(store): \(shop.relay.statuses)")
                    let credited = try await shop.portal.ledger.balance(of: "user-1") - before
                    #expect(credited == Int64(11 * quantity), "\(store) × \(quantity)")
                    let order = try await shop.portal.ledger.webOrder(store: store, reference: reference)
                    #expect(order?.state == "credited" && order?.quantity == Int64(quantity), "\(store)")
                    licenses += quantity
                }
            }
            #expect(try await shop.portal.ledger.licenses(of: "user-1").count == licenses)
        }
    }

    @Test(arguments: Backend.allCases)
    func theWebhookAloneOrTheReturnAloneCreditsThePackAndAnUnpaidReturnNothing(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let portal = shop.portal
            let alice = try await portal.signIn(PortalHarness.alice)
            var delivered = 0
            var expected: Int64 = 0
            func balance() async throws -> Int64 { try await portal.ledger.balance(of: "user-1") }
            for store in ["stripe", "paypal"] {
                // The buyer closes the tab on the store's page: the webhook alone credits the pack.
                let (paid, back) = try await shop.buyAndPay(alice, store: store)
                delivered += 1
                try await shop.waitForWebhooks(delivered)
                #expect(shop.relay.statuses.last == 200, "\(store)")
                expected += 10
                #expect(try await balance() == expected, "\(store): webhook only")
                #expect(try await portal.ledger.webOrder(store: store, reference: paid)?.state == "credited")
                // Coming back later says thank you and changes nothing.
                let late = try await portal.browser().get(back)
                #expect(late.html.text(id: "return-status")?.contains("keys are in your wallet") == true)
                #expect(try await balance() == expected, "\(store): late return")

                // The webhook is lost: the return alone credits the pack.
                shop.relay.dropNext()
                let (lost, lostBack) = try await shop.buyAndPay(alice, store: store)
                delivered += 1
                try await shop.waitForWebhooks(delivered)
                #expect(shop.relay.statuses.last == 503)
                #expect(try await balance() == expected, "\(store): nothing credited yet")
                #expect(try await portal.ledger.webOrder(store: store, reference: lost)?.state == "created")
                let returned = try await portal.browser().get(lostBack)
                #expect(returned.html.text(id: "return-status")?.contains("keys are in your wallet") == true)
                expected += 10
                #expect(try await balance() == expected, "\(store): return only")

                // The return URL of an order nobody paid (guessed, or the buyer gave up): pending, nothing credited.
                let buyPage = try await alice.get("/portal/buy")
                var fields = buyPage.html.fields(formContaining: "id=\"buy-\(store)-\(PortalHarness.product)\"")
                fields["store"] = store
                let hosted = try #require(try await alice.post("/portal/buy", fields).location)
                let unpaid =
                    store == "stripe"
                    ? try #require(hosted.split(separator: "/").last.map(String.init))
                    : try #require(URLComponents(string: hosted)?.queryItems?.first { $0.name == "token" }?.value)
                let path = store == "stripe" ? "/portal/return/stripe?session_id=" : "/portal/return/paypal?token="
                let pending = try await portal.browser().get(path + unpaid)
                #expect(pending.status == 200, "\(store)")
                #expect(pending.html.text(id: "return-status")?.contains("not confirmed the payment yet") == true)
                #expect(try await balance() == expected, "\(store): unpaid")
                #expect(try await portal.ledger.webOrder(store: store, reference: unpaid)?.state == "created")
                // An order this server never made: not found.
                #expect(
                    try await portal.browser().get(path + (store == "stripe" ? "cs_test_unknown" : "UNKNOWN1")).status
                        == 404
                )
            }
            #expect(
                try await portal.ledger.entries(of: "user-1", limit: 100).filter { $0.kind == "purchase" }.count == 4
            )
        }
    }

    @Test(arguments: Backend.allCases)
    func payPalCheckoutCreditsThePackOnceWhileTheWebhookRacesTheReturn(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let portal = shop.portal
            // A web-only buyer (no key-server account): the portal keeps a wallet for the email.
            let dana = try await portal.signIn("dana@example.com")
            let orders = try await shop.buyRacing(
                dana,
                store: "paypal",
                rounds: Self.rounds,
                userId: "web:dana@example.com"
            )
            let bought = Int64(10 * Self.rounds)
            #expect(shop.checkout.deliveries.count == Self.rounds)
            #expect(
                shop.checkout.deliveries.allSatisfy { $0.status == 200 && $0.eventType == "CHECKOUT.ORDER.APPROVED" }
            )
            let purchases = try await portal.ledger.entries(of: "web:dana@example.com", limit: 100)
                .filter { $0.kind == "purchase" }
            #expect(purchases.count == Self.rounds)
            let wallet = try await dana.get("/portal/wallet?notice=bought")
            #expect(wallet.html.text(id: "balance") == "\(bought)")
            #expect(try await dana.get("/portal/keys").html.texts(class: "licence-key").count == Self.rounds)

            // A key-server user buying with PayPal: the app's client sees the keys.
            let alice = try await portal.signIn(PortalHarness.alice)
            _ = try await shop.buyRacing(alice, store: "paypal", rounds: 2, userId: "user-1")
            let app = portal.keyClient(user: 1)
            #expect(try await app.walletBalance(userId: "user-1").balance == 20)
            #expect(try await app.keys(email: PortalHarness.alice).availableKeys.count == 2)

            // The console finds dana by email and by her PayPal order.
            let ops = try await portal.operatorSignIn()
            for query in ["dana@example.com", try #require(orders.first)] {
                let found = try await ops.get(
                    "/console/customers?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                )
                let links = found.html.links(class: "customer-link").map { $0.removingPercentEncoding ?? $0 }
                #expect(links == ["/console/customers/web:dana@example.com"], "\(query)")
            }
        }
    }
}

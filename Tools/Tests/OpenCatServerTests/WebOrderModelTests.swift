import Foundation
import Logging
import OpenCatCore
import StoreAdapters
import Testing

@testable import OpenCatServer

/// The order model (docs/SECURITY.md, "The order model"): one transition function, and a reconciler that settles
/// every unsettled web order with its store whatever the webhooks and the buyer's return did — on SQLite and
/// PostgreSQL, with the mock's hosted checkout.
struct WebOrderModelTests {
    static let events: [WebOrderEvent] = [
        .unpaid, .unanswered, .paid(transactionId: "t"), .credited(transactionId: "t"),
        .refused(rule: "total", detail: "d"), .expired, .refunded,
    ]
    static let attention = WebOrderState.needsAttention(rule: "total", detail: "d")

    /// The whole table, row by row, in the order of ``events``; nil: the event does not apply.
    @Test func theTransitionFunctionIsTheTableOfTheModel() {
        let table: [(WebOrderState, [WebOrderState?])] = [
            (.created, [.created, .created, .paid, .credited, Self.attention, .expired, .refunded]),
            (.paid, [nil, .paid, .paid, .credited, Self.attention, nil, .refunded]),
            (Self.attention, [nil, Self.attention, nil, .credited, Self.attention, nil, .refunded]),
            (.credited, [nil, nil, nil, nil, nil, nil, .refunded]),
            (.refunded, [nil, nil, nil, nil, nil, nil, nil]),
            (.expired, [nil, nil, nil, nil, nil, nil, nil]),
        ]
        for (state, row) in table {
            for (event, expected) in zip(Self.events, row) {
                #expect(state.after(event) == expected, "\(state) + \(event)")
            }
            #expect(WebOrderState(rawValue: state.rawValue, rule: "total", detail: "d") == state)
        }
        #expect(WebOrderSchedule.wait(afterCheck: 0) == 60 && WebOrderSchedule.wait(afterCheck: 3) == 480)
        #expect(WebOrderSchedule.wait(afterCheck: 40) == 3_600)
    }

    /// A checkout with the server's own parts but `settings` of its own (a price or a pack changed since the sale).
    static func checkout(_ shop: PortalCheckout, _ change: (inout ServerSettings) -> Void) -> WebCheckout {
        let server = shop.portal.server
        var settings = server.settings
        change(&settings)
        let seller = KeyPackSeller(
            settings: settings,
            redemptions: shop.portal.ledger,
            clock: { shop.portal.clock.now },
            logger: Logger(label: "tests.orders", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        var checkout = server.makeCheckout(seller)
        checkout = WebCheckout(
            desk: checkout.desk,
            seller: seller,
            orders: checkout.orders,
            users: checkout.users,
            portal: checkout.portal,
            environments: settings.acceptedEnvironments,
            clock: checkout.clock,
            logger: checkout.logger
        )
        return checkout
    }

    @Test(arguments: Backend.allCases, ["stripe", "paypal"])
    func aPaymentMadeWhileTheServerWasDownIsCreditedOnceWhenItStarts(_ backend: Backend, store: String) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let before = try await shop.portal.ledger.balance(of: "user-1")
            let reference = try await shop.payWhileTheServerIsAway(buyer, store: store)
            #expect(try await shop.portal.ledger.webOrder(store: store, reference: reference)?.state == "created")
            // What the server does when it starts: every unsettled order, asked about at once.
            let checkout = shop.portal.server.makeCheckout(shop.portal.server.makeSeller())
            #expect(await checkout.reconcileOrders(all: true) == 1)
            #expect(await checkout.reconcileOrders(all: true) == 0)
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before + 10)
            #expect(try await shop.portal.ledger.webOrder(store: store, reference: reference)?.state == "credited")
        }
    }

    @Test(arguments: Backend.allCases)
    func anOrderSoldBeforeAPriceRiseIsCreditedAtThePriceItWasSoldAt(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let before = try await shop.portal.ledger.balance(of: "user-1")
            let reference = try await shop.payWhileTheServerIsAway(buyer, store: "stripe")
            // The pack now costs 5.99: the order was sold at 4.99 and is judged by its own total.
            let raised = Self.checkout(shop) {
                $0.stripePrices[PortalHarness.product] = Money(decimalString: "5.99", currency: "USD")
            }
            #expect(try await raised.credit(store: .stripe, reference: reference) == 10)
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before + 10)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefusedOrderNamesItsRuleToTheOperatorAndTheBuyerUntilItIsCredited(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let reference = try await shop.payWhileTheServerIsAway(buyer, store: "stripe")
            // The pack is no longer sold when the payment is reconciled: the keyPack rule refuses it.
            let withdrawn = Self.checkout(shop) { $0.keyPacks[PortalHarness.product] = nil }
            #expect(await withdrawn.reconcileOrders(all: true) == 0)
            let order = try #require(try await shop.portal.ledger.webOrder(store: "stripe", reference: reference))
            guard case .needsAttention(let rule, let detail) = order.orderState else {
                Issue.record("the order is \(order.state)")
                return
            }
            #expect(rule == "keyPack" && detail.contains("not a key pack"))
            let console = try await shop.portal.operatorSignIn()
            let attention = try await console.get("/console/orders")
            #expect(attention.status == 200, "\(attention.body)")
            #expect(attention.body.contains(reference) && attention.body.contains("keyPack"), "\(attention.body)")
            #expect(try await console.get("/console").html.text(id: "attention-count") == "1")
            let wallet = try await buyer.get("/portal/wallet")
            #expect(wallet.body.contains("held for review") && !wallet.body.contains("nothing more to do"))
            // The cause is fixed (the pack is sold again): the operator credits it; it leaves the page.
            let customer = try await console.get("/console/customers/user-1")
            #expect(customer.body.contains("needs attention: keyPack"))
            let credit = customer.html.fields(formContaining: "class=\"credit\"")
            #expect(try await console.post("/console/customers/user-1/credit", credit).status == 303)
            #expect(try await shop.portal.ledger.webOrder(store: "stripe", reference: reference)?.state == "credited")
            #expect(try await console.get("/console/orders").body.contains("No order needs attention"))
            #expect(try await console.get("/console").html.text(id: "attention-count") == "0")
        }
    }

    @Test(arguments: Backend.allCases)
    func anUnpaidOrderIsAskedAboutOnABackoffAndExpiresAfterAWeek(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let page = try await buyer.get("/portal/buy")
            var fields = page.html.fields(formContaining: "id=\"buy-stripe-\(PortalHarness.product)\"")
            fields["store"] = "stripe"
            let hosted = try #require(try await buyer.post("/portal/buy", fields).location)
            let reference = try #require(hosted.split(separator: "/").last.map(String.init))
            let ledger = shop.portal.ledger
            let created = try #require(try await ledger.webOrder(store: "stripe", reference: reference))
            #expect(created.nextCheckAt == created.createdAt.addingTimeInterval(60))
            let checkout = shop.portal.server.makeCheckout(shop.portal.server.makeSeller())
            #expect(await checkout.reconcileOrders() == 0)
            #expect(
                try await ledger.webOrder(store: "stripe", reference: reference)?.nextCheckAt == created.nextCheckAt
            )
            shop.portal.clock.advance(60)
            _ = await checkout.reconcileOrders()
            let checked = try #require(try await ledger.webOrder(store: "stripe", reference: reference))
            #expect(checked.state == "created" && checked.nextCheckAt == shop.portal.clock.now.addingTimeInterval(120))
            shop.portal.clock.advance(8 * 86_400)
            _ = await checkout.reconcileOrders()
            #expect(try await ledger.webOrder(store: "stripe", reference: reference)?.state == "expired")
        }
    }
}

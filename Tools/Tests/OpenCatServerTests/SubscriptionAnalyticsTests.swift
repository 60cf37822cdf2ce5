import Foundation
import OpenCatCore
import Testing

@testable import OpenCatServer

// The console's subscription analytics against a history built by hand — two months of purchases, renewals, a trial
// that converts and one still running, a yearly plan, an expiry without renewal, a refunded Google subscription, two
// key packs with a partial refund, spends — in two currencies, every figure computed by hand below, on SQLite and
// PostgreSQL.
@Suite struct SubscriptionAnalyticsTests {
    static func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    static func period(
        _ id: String,
        _ original: String,
        store: Store = .apple,
        product: String = "pro.monthly",
        from: String,
        to: String,
        status: TransactionInfo.Status = .active,
        willRenew: Bool = true
    ) -> TransactionInfo {
        TransactionInfo(
            transactionId: id,
            originalTransactionId: original,
            productId: product,
            store: store,
            purchaseDate: date(from),
            expirationDate: date(to),
            status: status,
            willRenew: willRenew
        )
    }

    /// The history, each step at its own time on the store's clock.
    static func buildHistory(_ store: any LedgerStore, _ clock: TestClock) async throws {
        func at(_ text: String) { clock.advance(date(text).timeIntervalSince(clock.now)) }
        let usd = { (amount: String) in Money(decimalString: amount, currency: "USD") }
        let eur = Money(decimalString: "4.99", currency: "EUR")
        at("2026-10-05T12:00:00Z")
        try await store.record(
            period("t7", "s5", from: "2026-10-05T12:00:00Z", to: "2026-11-05T12:00:00Z", willRenew: false),
            appUserId: "eve",
            storeTime: nil,
            price: usd("9.99")
        )
        at("2026-10-15T12:00:00Z")
        try await store.record(
            period("t1", "s1", from: "2026-10-15T12:00:00Z", to: "2026-11-15T12:00:00Z"),
            appUserId: "ana",
            storeTime: nil,
            price: usd("9.99")
        )
        at("2026-11-01T10:00:00Z")
        try await store.record(
            period("t3", "s2", from: "2026-11-01T10:00:00Z", to: "2026-11-08T10:00:00Z"),
            appUserId: "ben",
            storeTime: nil,
            price: usd("0")
        )
        at("2026-11-03T09:00:00Z")
        try await store.record(
            period("t8", "s6", store: .google, from: "2026-11-03T09:00:00Z", to: "2026-12-03T09:00:00Z"),
            appUserId: "gus",
            storeTime: nil,
            price: eur
        )
        at("2026-11-05T08:00:00Z")
        try await sellPack(store, "pi_a", at: clock.now)
        at("2026-11-08T10:00:00Z")
        try await store.record(
            period("t4", "s2", from: "2026-11-08T10:00:00Z", to: "2026-12-08T10:00:00Z"),
            appUserId: "ben",
            storeTime: nil,
            price: usd("9.99")
        )
        at("2026-11-10T00:00:00Z")
        try await store.record(
            period("t6", "s4", product: "pro.yearly", from: "2026-11-10T00:00:00Z", to: "2027-11-10T00:00:00Z"),
            appUserId: "dan",
            storeTime: nil,
            price: usd("59.99")
        )
        _ = try await store.spend(
            userId: "buyer",
            amount: 3,
            kind: "spend",
            reference: "export",
            app: "app",
            idempotencyKey: "k1"
        )
        at("2026-11-12T09:00:00Z")
        try await store.record(
            period("t9", "s7", store: .google, from: "2026-11-12T09:00:00Z", to: "2026-12-12T09:00:00Z"),
            appUserId: "hal",
            storeTime: nil,
            price: eur
        )
        _ = try await store.unlock(userId: "buyer", app: "app", feature: "pro", cost: 2, idempotencyKey: "u1")
        at("2026-11-15T12:00:00Z")
        try await store.record(
            period("t2", "s1", from: "2026-11-15T12:00:00Z", to: "2026-12-15T12:00:00Z"),
            appUserId: "ana",
            storeTime: nil,
            price: usd("9.99")
        )
        at("2026-11-18T10:00:00Z")
        try await sellPack(store, "pi_b", at: clock.now)
        at("2026-11-20T10:00:00Z")
        _ = try await store.applyStoreEvent(
            source: "google",
            eventId: "refund-t9",
            update: period(
                "t9",
                "s7",
                store: .google,
                from: "2026-11-12T09:00:00Z",
                to: "2026-12-12T09:00:00Z",
                status: .refunded
            )
        )
        at("2026-11-22T10:00:00Z")
        var sandbox = period("t10", "s8", from: "2026-11-22T10:00:00Z", to: "2026-12-22T10:00:00Z")
        sandbox.environment = .sandbox
        try await store.record(sandbox, appUserId: "sid", storeTime: nil, price: usd("9.99"))
        at("2026-11-25T10:00:00Z")
        try await store.record(
            period("t5", "s3", from: "2026-11-25T10:00:00Z", to: "2026-12-02T10:00:00Z"),
            appUserId: "cy",
            storeTime: nil,
            price: usd("0")
        )
        _ = try await store.refund(
            store: "stripe",
            transactionId: "pi_b",
            share: RefundShare(refunded: 2, paid: Decimal(string: "4.99")!)
        )
        at("2026-12-01T00:00:00Z")
    }

    static func sellPack(_ store: any LedgerStore, _ id: String, at date: Date) async throws {
        _ = try await store.redeem(store: "stripe", transactionId: id, userId: "buyer", grant: KeyGrant(keys: 10))
        try await store.recordSale(
            store: "stripe",
            transactionId: id,
            userId: "buyer",
            productId: "keys_10",
            price: Money(decimalString: "4.99", currency: "USD")!,
            quantity: 1,
            at: date
        )
    }

    static func figures(
        _ store: String,
        _ currency: String,
        mrr: String = "0",
        active: Int = 0,
        trials: Int = 0,
        new: Int = 0,
        churned: Int = 0,
        churnRate: String? = nil,
        purchases: Int = 0,
        refunds: Int = 0,
        refundRate: String? = nil,
        packs: Int = 0,
        revenue: String = "0",
        refunded: String = "0"
    ) -> SubscriptionAnalytics.Figures {
        var figures = SubscriptionAnalytics.Figures(store: store, currency: currency)
        figures.mrr = Decimal(string: mrr)!
        figures.activeSubscriptions = active
        figures.activeTrials = trials
        figures.newSubscriptions = new
        figures.churnedSubscriptions = churned
        figures.churnRate = churnRate.map { Decimal(string: $0)! }
        figures.purchases = purchases
        figures.refunds = refunds
        figures.refundRate = refundRate.map { Decimal(string: $0)! }
        figures.keyPacksSold = packs
        figures.keyPackRevenue = Decimal(string: revenue)!
        figures.keyPackRefunds = Decimal(string: refunded)!
        return figures
    }

    @Test(arguments: Backend.allCases)
    func everyFigureMatchesTheHandComputedOnes(backend: Backend) async throws {
        let clock = TestClock(Self.date("2026-10-01T00:00:00Z"))
        try await backend.withStores(now: { clock.now }) { stores in
            let store = stores[0]
            try await Self.buildHistory(store, clock)
            let facts = try await store.analyticsFacts()
            let months = SubscriptionAnalytics.report(
                facts,
                .month,
                from: Self.date("2026-10-01T00:00:00Z"),
                to: Self.date("2026-11-30T00:00:00Z"),
                now: clock.now
            )
            #expect(months.map(\.period) == ["2026-10", "2026-11"])
            // October, read at 1 November: S1 and S5 active at 9.99 a month each; both new; nobody was active on
            // 1 October, so no churn rate; two paid purchases, no refund.
            #expect(
                months[0].groups == [
                    Self.figures("apple", "USD", mrr: "19.98", active: 2, new: 2, purchases: 2, refundRate: "0")
                ]
            )
            #expect(months[0].keysSpent == 0)
            // November, read at 1 December.
            // Apple USD: S1 (renewed, 9.99), S2 (trial converted, 9.99), S3 (trial until 2 December, 0), S4 (59.99 a
            // year = 4.999166… a month): MRR 24.979166… → 24.98; 3 paid active, 1 trial; new S2, S3, S4; S5 ended on
            // 5 November (1 churned of the 2 active on 1 November: 0.5); paid purchases t4, t6, t2 (trials are free).
            // Google EUR: S6 active (4.99); S6 and S7 new; S7 refunded on 20 November: churned, and 1 refund of 2
            // purchases. Stripe USD: two key packs (9.98 gross), one refunded in part (2.00): 1 of 2, 7.98 net. The
            // sandbox subscription (S8) counts nowhere in production.
            #expect(
                months[1].groups == [
                    Self.figures(
                        "apple",
                        "USD",
                        mrr: "24.98",
                        active: 3,
                        trials: 1,
                        new: 3,
                        churned: 1,
                        churnRate: "0.5",
                        purchases: 3,
                        refundRate: "0"
                    ),
                    Self.figures(
                        "google",
                        "EUR",
                        mrr: "4.99",
                        active: 1,
                        new: 2,
                        churned: 1,
                        purchases: 2,
                        refunds: 1,
                        refundRate: "0.5"
                    ),
                    Self.figures(
                        "stripe",
                        "USD",
                        purchases: 2,
                        refunds: 1,
                        refundRate: "0.5",
                        packs: 2,
                        revenue: "9.98",
                        refunded: "2"
                    ),
                ]
            )
            #expect(months[1].groups.last?.keyPackNetRevenue == Decimal(string: "7.98"))
            #expect(months[1].keysSpent == 5)
            let sandbox = SubscriptionAnalytics.report(
                facts,
                .month,
                from: Self.date("2026-11-01T00:00:00Z"),
                to: Self.date("2026-11-30T00:00:00Z"),
                now: clock.now,
                environment: .sandbox
            )
            #expect(
                sandbox[0].groups == [
                    Self.figures("apple", "USD", mrr: "9.99", active: 1, new: 1, purchases: 1, refundRate: "0")
                ]
            )
            // The refund falls in ISO week 47 (16–22 November) and on its day.
            let weeks = SubscriptionAnalytics.report(
                facts,
                .week,
                from: Self.date("2026-11-16T00:00:00Z"),
                to: Self.date("2026-11-22T00:00:00Z"),
                now: clock.now
            )
            #expect(weeks.map(\.period) == ["2026-W47"])
            #expect(weeks[0].groups.first { $0.store == "google" }?.refunds == 1)
            let days = SubscriptionAnalytics.report(
                facts,
                .day,
                from: Self.date("2026-11-20T00:00:00Z"),
                to: Self.date("2026-11-20T00:00:00Z"),
                now: clock.now
            )
            #expect(days.map(\.period) == ["2026-11-20"])
            #expect(days[0].groups.first { $0.store == "google" }?.churnedSubscriptions == 1)
        }
    }

    @Test func theConsoleShowsTheFiguresAndExportsThemAsCSVAndJSON() async throws {
        let clock = TestClock(Self.date("2026-10-01T00:00:00Z"))
        try await PortalHarness.run(.sqlite, clock: clock) { portal in
            try await Self.buildHistory(portal.ledger, clock)
            let ops = try await portal.operatorSignIn()
            let query = "?granularity=month&from=2026-10-01&to=2026-11-30"
            let page = try await ops.get("/console/analytics" + query)
            #expect(page.status == 200)
            #expect(page.html.contains(id: "mrr-chart") && page.html.contains(id: "mrr-chart-usd"))
            #expect(page.body.contains("2026-11 apple: 24.98"), "the chart carries the exact figure")
            let rows = page.html.rows(table: "analytics")
            #expect(
                rows.contains { $0.contains("<td>2026-11</td><td>google</td><td>EUR</td><td class=\"num\">4.99</td>") }
            )
            let csv = try await ops.get("/console/analytics.csv" + query)
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(csv.body.contains("2026-11,apple,USD,24.98,3,1,3,1,0.5,3,0,0,0,0,0,0,\r\n"))
            #expect(csv.body.contains("2026-11,stripe,USD,0,0,0,0,0,,2,1,0.5,2,9.98,2,7.98,\r\n"))
            #expect(csv.body.contains("2026-11,ledger,,,,,,,,,,,,,,,5\r\n"))
            let json = try await ops.get("/console/analytics.json" + query)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any])
            let periods = try #require(document["periods"] as? [[String: Any]])
            let november = try #require(periods.last?["groups"] as? [[String: Any]])
            #expect(november.first?["mrr"] as? String == "24.98" && november.first?["churnRate"] as? String == "0.5")
            #expect((try await ops.get("/console/analytics?from=2026-13-01")).status == 400)
        }
    }
}

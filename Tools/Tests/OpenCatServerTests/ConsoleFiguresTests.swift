import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

@testable import OpenCatServer

/// The console's figures by the analytics' definitions, end to end: two Stripe subscriptions in their free trial and
/// two paid ones, posted by the apps (`POST /v1/receipts`, Stripe's answers as its API renders them), and a key pack
/// with a community share refunded (its keys taken back from the buyer and from the pool: two ledger entries, one
/// refund). The overview and the analytics (page and JSON) say the same: 2 paid active subscriptions, 2 trials, MRR of
/// the paid ones only, 1 refund — on SQLite and PostgreSQL.
struct ConsoleFiguresTests {
    static let subscriptions = [
        (id: "sub_FiguresTrial1", status: "trialing", cents: 999),
        (id: "sub_FiguresTrial2", status: "trialing", cents: 1_999),
        (id: "sub_FiguresPaid1", status: "active", cents: 999),
        (id: "sub_FiguresPaid2", status: "active", cents: 1_999),
    ]

    /// A monthly subscription as Stripe's API renders it (a trialing one with its trial's start and end), for one app
    /// user.
    static func subscription(_ id: String, user: String, status: String, cents: Int) -> String {
        let start = Int64(ServerFixture.signedDate.timeIntervalSince1970) - 60
        let end = start + 30 * 86_400
        let trial = status == "trialing" ? "\(start)" : "null"
        let trialEnd = status == "trialing" ? "\(end)" : "null"
        return """
            {"id":"\(id)","object":"subscription","status":"\(status)","livemode":true,"trial_start":\(trial),
            "trial_end":\(trialEnd),"created":\(start),"start_date":\(start),"current_period_start":\(start),
            "current_period_end":\(end),"cancel_at_period_end":false,"ended_at":null,
            "metadata":{"product_id":"\(ServerFixture.proProduct)","app_user_id":"\(user)"},
            "items":{"data":[{"id":"si_\(id)","quantity":1,"price":{"id":"price_pro","currency":"usd",
            "unit_amount":\(cents)}}]},"latest_invoice":{"id":"in_\(id)","status":"paid"}}
            """
    }

    @Test(arguments: Backend.allCases)
    func theOverviewAndTheAnalyticsCountTrialsAndRefundsAlike(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stripeAPI = ScriptedTransport()
        for (index, subscription) in Self.subscriptions.enumerated() {
            let json = Self.subscription(
                subscription.id,
                user: "app-user-\(index)",
                status: subscription.status,
                cents: subscription.cents
            )
            stripeAPI.on(.get, "/v1/subscriptions/\(subscription.id)", exact: true, json: json)
        }
        let stripe = StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_consolefigures"),
                baseURL: URL(string: "https://api.stripe.test")!,
                httpClient: HTTPClient(transport: stripeAPI, clock: clock.manual)
            )
        )
        try await PortalHarness.run(backend, clock: clock, stores: [stripe], acceptedEnvironments: [:]) { portal in
            for (index, subscription) in Self.subscriptions.enumerated() {
                let receipt: [String: Any] = [
                    "appUserId": "app-user-\(index)", "store": "stripe", "kind": "stripeSubscription",
                    "proof": subscription.id,
                ]
                let (status, answer) = try await portal.openCatPost("/v1/receipts", receipt, key: ServerFixture.apiKey)
                #expect(status == 200, "\(answer)")
            }
            // A key pack whose community share went to the pool, refunded in full: two refund entries, one refund.
            let ledger = portal.ledger
            let grant = KeyGrant(keys: 10, bonusKeys: 0, communityKeys: 2)
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_figures", userId: "user-1", grant: grant)
            try await ledger.recordSale(
                store: "stripe",
                transactionId: "pi_figures",
                userId: "user-1",
                productId: PortalHarness.product,
                price: try #require(Money(decimalString: "4.99", currency: "USD")),
                quantity: 1,
                at: clock.now
            )
            let refund = try await ledger.refund(store: "stripe", transactionId: "pi_figures")
            #expect(refund.clawedBack == 10)
            let entries = try await ledger.reportEntries(since: clock.now.addingTimeInterval(-1))
            #expect(entries.filter { $0.kind == "refund" }.map(\.amount).sorted() == [-10, -2])
            clock.advance(60)  // the figures are read a minute later (a period counts what happened before now)

            let console = try await portal.operatorSignIn()
            let overview = try await console.get("/console").html
            #expect(overview.text(id: "active-subscriptions") == "2")
            #expect(overview.text(id: "active-trials") == "2")
            #expect(overview.text(id: "refund-count") == "1")
            let export = try await console.get("/console/analytics.json?granularity=month")
            let document = try JSONSerialization.jsonObject(with: Data(export.body.utf8)) as? [String: Any]
            let periods = try #require(document?["periods"] as? [[String: Any]])
            let groups = try #require(periods.last?["groups"] as? [[String: Any]])
            let stripeUSD = try #require(groups.first { $0["store"] as? String == "stripe" })
            #expect(stripeUSD["currency"] as? String == "USD")
            #expect(stripeUSD["activeSubscriptions"] as? Int == 2)
            #expect(stripeUSD["activeTrials"] as? Int == 2)
            #expect("\(stripeUSD["mrr"] ?? "")" == "29.98")
            #expect(stripeUSD["refunds"] as? Int == 1)
        }
    }
}

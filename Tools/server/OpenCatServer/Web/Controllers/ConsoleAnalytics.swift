import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenCatCore

// The console's subscription analytics (`/console/analytics`): MRR, active subscriptions and trials, new and churned
// subscriptions with the churn rate, refunds with the refund rate, key packs sold and keys spent — per day, week or
// month, per store and currency. The page draws SVG charts with the exact figures in their markup; the same figures
// come as CSV (`analytics.csv`) and JSON (`analytics.json`) for the operator's own tools.
extension ConsoleController {
    func addAnalyticsRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("analytics") { request, session in try await analyticsPage(request, session) }
        router.get("analytics.csv") { request, session in try await analyticsExport(request, session, csv: true) }
        router.get("analytics.json") { request, session in try await analyticsExport(request, session, csv: false) }
    }

    /// The environments the analytics report separately: real money first (the default), then the stores' sandboxes.
    static let environments: [TransactionInfo.Environment] = [.production, .sandbox]

    /// The report the query asks for: `granularity` (day, week, month), `from` and `to` (`yyyy-MM-dd`, UTC), and
    /// `environment` (`production`, the default, or `sandbox`: never summed together); by default the last 30 days,
    /// 12 weeks or 12 months.
    func analytics(_ request: Request) async throws -> (
        SubscriptionAnalytics.Granularity, [SubscriptionAnalytics.Period], TransactionInfo.Environment
    ) {
        let query = request.uri.queryParameters
        let granularity = SubscriptionAnalytics.Granularity(rawValue: query.get("granularity") ?? "month") ?? .month
        let environment = TransactionInfo.Environment(rawValue: query.get("environment") ?? "production")
        guard Self.environments.contains(environment) else {
            throw PageError(.badRequest, "environment is production or sandbox.")
        }
        let now = clock()
        let span: TimeInterval =
            switch granularity {
            case .day: 29 * 86_400
            case .week: 11 * 7 * 86_400
            case .month: 334 * 86_400
            }
        let to = try Self.day(query.get("to"), "to") ?? now
        let from = try Self.day(query.get("from"), "from") ?? to.addingTimeInterval(-span)
        guard from <= to else { throw PageError(.badRequest, "The start is after the end.") }
        let facts = try await ledger.analyticsFacts()
        let report = SubscriptionAnalytics.report(
            facts,
            granularity,
            from: from,
            to: to,
            now: now,
            environment: environment
        )
        return (granularity, report, environment)
    }

    static func day(_ text: String?, _ name: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard text.utf8.count == 10, let date = try? Date(text + "T00:00:00Z", strategy: .iso8601) else {
            throw PageError(.badRequest, "\(name) is a date, yyyy-mm-dd.")
        }
        return date
    }

    func analyticsPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        let (granularity, periods, environment) = try await analytics(request)
        var context = consoleContext("Analytics", signedIn)
        context["granularities"] = SubscriptionAnalytics.Granularity.allCases.map {
            ["value": $0.rawValue, "selected": $0 == granularity]
        }
        context["environments"] = Self.environments.map {
            ["value": $0.rawValue, "selected": $0 == environment]
        }
        context["from"] = periods.first.map { LedgerStoreDays.day($0.start) } ?? ""
        context["to"] = periods.last.map { LedgerStoreDays.day($0.end.addingTimeInterval(-1)) } ?? ""
        let query =
            "granularity=\(granularity.rawValue)&from=\(context["from"] ?? "")&to=\(context["to"] ?? "")"
            + "&environment=\(environment.rawValue)"
        context["csv"] = "/console/analytics.csv?" + query
        context["json"] = "/console/analytics.json?" + query
        let currencies = Set(periods.flatMap { $0.groups.map(\.currency) }).sorted()
        context["charts"] = currencies.enumerated().map { index, currency -> [String: Any] in
            let suffix = index == 0 ? "" : "-\(currency.lowercased())"
            let bars = { (value: (SubscriptionAnalytics.Figures) -> Decimal) in
                periods.map { period in
                    (
                        label: period.period,
                        parts: period.groups.filter { $0.currency == currency }.map { ($0.store, value($0)) }
                    )
                }
            }
            return [
                "currency": currency,
                "mrr": SVGChart.stackedBars(
                    id: "mrr-chart" + suffix,
                    title: "MRR in \(currency) per store",
                    bars: bars { $0.mrr },
                    unit: "periods"
                ),
                "active": SVGChart.stackedBars(
                    id: "active-chart" + suffix,
                    title: "Active subscriptions billed in \(currency) per store",
                    bars: bars { Decimal($0.activeSubscriptions) },
                    unit: "periods"
                ),
            ]
        }
        context["rows"] = periods.flatMap { period in
            period.groups.map { Self.row(period, $0) }
        }
        context["spent"] = periods.map { ["period": $0.period, "keys": String($0.keysSpent)] }
        return render("console-analytics", context)
    }

    static func row(_ period: SubscriptionAnalytics.Period, _ figures: SubscriptionAnalytics.Figures) -> [String: Any] {
        [
            "period": period.period, "store": figures.store, "currency": figures.currency, "mrr": "\(figures.mrr)",
            "active": figures.activeSubscriptions, "trials": figures.activeTrials, "new": figures.newSubscriptions,
            "churned": figures.churnedSubscriptions, "churnRate": figures.churnRate.map { "\($0)" } ?? "—",
            "purchases": figures.purchases, "refunds": figures.refunds,
            "refundRate": figures.refundRate.map { "\($0)" } ?? "—", "packs": figures.keyPacksSold,
            "packRevenue": "\(figures.keyPackRevenue)", "packRefunds": "\(figures.keyPackRefunds)",
            "packNet": "\(figures.keyPackNetRevenue)",
        ]
    }

    func analyticsExport(_ request: Request, _ session: ServerRequestContext, csv: Bool) async throws -> Response {
        _ = try requireOperator(session)
        let (granularity, periods, environment) = try await analytics(request)
        let body: String
        let headers: HTTPFields
        if csv {
            body = Self.analyticsCSV(periods)
            var fields = pageHeaders(contentType: "text/csv; charset=utf-8")
            fields[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"opencat-analytics.csv\""
            headers = fields
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            encoder.dateEncodingStrategy = .iso8601
            let report = AnalyticsDocument(
                granularity: granularity.rawValue,
                environment: environment.rawValue,
                periods: periods
            )
            body = String(decoding: try encoder.encode(report), as: UTF8.self)
            headers = pageHeaders(contentType: "application/json")
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The JSON export: the granularity and every period (money as exact decimal strings).
    struct AnalyticsDocument: Encodable {
        var granularity: String
        var environment: String
        var periods: [SubscriptionAnalytics.Period]
    }

    /// One row per period, store and currency, then one per period for the keys spent (store `ledger`).
    static func analyticsCSV(_ periods: [SubscriptionAnalytics.Period]) -> String {
        var csv =
            "period,store,currency,mrr,active_subscriptions,active_trials,new_subscriptions,churned_subscriptions,"
            + "churn_rate,purchases,refunds,refund_rate,key_packs_sold,key_pack_revenue_gross,key_pack_refunds,"
            + "key_pack_revenue_net,keys_spent\r\n"
        for period in periods {
            for figures in period.groups {
                let cells: [String] = [
                    period.period, csvCell(figures.store), csvCell(figures.currency), "\(figures.mrr)",
                    String(figures.activeSubscriptions), String(figures.activeTrials), String(figures.newSubscriptions),
                    String(figures.churnedSubscriptions), figures.churnRate.map { "\($0)" } ?? "",
                    String(figures.purchases), String(figures.refunds), figures.refundRate.map { "\($0)" } ?? "",
                    String(figures.keyPacksSold), "\(figures.keyPackRevenue)", "\(figures.keyPackRefunds)",
                    "\(figures.keyPackNetRevenue)", "",
                ]
                csv += cells.joined(separator: ",") + "\r\n"
            }
            csv += "\(period.period),ledger,,,,,,,,,,,,,,,\(period.keysSpent)\r\n"
        }
        return csv
    }
}

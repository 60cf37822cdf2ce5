import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenCatCore

/// The console's overview (revenue per store per day in exact money per currency, paid active subscriptions and
/// trials, keys minted and spent, refunds; charts drawn here as SVG) and the ledger export (CSV).
extension ConsoleController {
    /// The paid active subscriptions and the free trials in production now, by the analytics' own definitions
    /// (``SubscriptionAnalytics``): the overview and `/console/analytics` count the same subscriptions.
    func activeNow() async throws -> (paid: Int, trials: Int) {
        let now = clock()
        let facts = try await ledger.analyticsFacts()
        let groups = SubscriptionAnalytics.report(facts, .day, from: now, to: now, now: now).first?.groups ?? []
        return (groups.reduce(0) { $0 + $1.activeSubscriptions }, groups.reduce(0) { $0 + $1.activeTrials })
    }

    func overviewPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        let since = clock().addingTimeInterval(-30 * 86_400)
        let sales = try await ledger.sales(since: since)
        var context = consoleContext("Overview", signedIn)
        // Revenue: per currency, per day and store, summed exactly.
        var byCurrency: [String: [String: [String: Decimal]]] = [:]
        for sale in sales {
            byCurrency[sale.price.currency, default: [:]][sale.day, default: [:]][sale.store, default: 0] +=
                sale.price.amount
        }
        context["revenue"] = byCurrency.keys.sorted().map { currency -> [String: Any] in
            let days = byCurrency[currency] ?? [:]
            let bars = days.keys.sorted().map { day in
                (
                    label: String(day.suffix(5)),
                    parts: (days[day] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                )
            }
            return [
                "currency": currency,
                "chart": SVGChart.stackedBars(
                    id: currency == byCurrency.keys.sorted().first
                        ? "revenue-chart" : "revenue-chart-\(currency.lowercased())",
                    title: "Revenue in \(currency) per day and store",
                    bars: bars
                ),
                "rows": days.keys.sorted().flatMap { day in
                    (days[day] ?? [:]).keys.sorted().map { store -> [String: Any] in
                        ["day": day, "store": store, "amount": "\(days[day]?[store] ?? 0) \(currency)"]
                    }
                },
            ]
        }
        if byCurrency.isEmpty {
            context["emptyChart"] = SVGChart.stackedBars(id: "revenue-chart", title: "No revenue yet", bars: [])
        }
        let totals = try await ledger.reportEntries(since: since)
        var minted: [String: Decimal] = [:]
        var spent: [String: Decimal] = [:]
        var mintedTotal: Int64 = 0
        var spentTotal: Int64 = 0
        // A refund is one refund, however many accounts it took keys from (the buyer, recipients, the pool's gift).
        var refunded: Set<String> = []
        for row in totals {
            let amount = row.amount
            let day = LedgerStoreDays.day(row.createdAt)
            switch row.kind {
            case "purchase":
                minted[day, default: 0] += Decimal(amount)
                mintedTotal += amount
            case "spend", "unlock":
                spent[day, default: 0] += Decimal(-amount)
                spentTotal -= amount
            case "refund", "refund_reversal": refunded.insert(row.reference ?? "")
            default: break
            }
        }
        let active = try await activeNow()
        context["activeSubscriptions"] = String(active.paid)
        context["activeTrials"] = String(active.trials)
        context["keysMinted"] = String(mintedTotal)
        context["keysSpent"] = String(spentTotal)
        context["refunds"] = String(refunded.count)
        let orders = try await ledger.webOrderCounts()
        context["attention"] = String(orders["paid", default: 0] + orders["needs_attention", default: 0])
        let days = Set(minted.keys).union(spent.keys).sorted()
        context["keysChart"] = SVGChart.stackedBars(
            id: "keys-chart",
            title: "Keys minted and spent per day",
            bars: days.map { day in
                (label: String(day.suffix(5)), parts: [("minted", minted[day] ?? 0), ("spent", spent[day] ?? 0)])
            },
            grouped: true
        )
        return render("console-overview", context)
    }

    /// The whole ledger as CSV (RFC 4180), oldest first; text cells that a spreadsheet would run as a formula
    /// are prefixed with `'`.
    func ledgerExport(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        let rows = try await ledger.exportEntries()
        var csv = "seq,id,user_id,amount,kind,reference,app,created_at\r\n"
        for (seq, entry) in rows {
            let cells: [String] = [
                String(seq), Self.csvCell(entry.id), Self.csvCell(entry.userId), String(entry.amount),
                Self.csvCell(entry.kind), Self.csvCell(entry.reference), Self.csvCell(entry.app),
                entry.createdAt.formatted(.iso8601),
            ]
            csv += cells.joined(separator: ",") + "\r\n"
        }
        try await ledger.audit(
            AuditRecord(
                operatorName: signedIn.name,
                action: "export_ledger",
                subject: "ledger",
                reason: "export",
                detail: "\(rows.count) entries",
                createdAt: clock()
            )
        )
        var headers = pageHeaders(contentType: "text/csv; charset=utf-8")
        headers[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"opencat-ledger.csv\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: csv)))
    }

    static func csvCell(_ text: String?) -> String {
        guard var text, !text.isEmpty else { return "" }
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        if text.contains(where: { ",\"\r\n".contains($0) }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }
}

/// UTC days of the ledger (`yyyy-MM-dd`).
enum LedgerStoreDays {
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// Bar charts drawn on the server as SVG (no script): exact values, scaled only for drawing; every bar has a
/// `<title>` with its value, and the chart a title and description for screen readers.
enum SVGChart {
    static let palette = ["#0b57d0", "#b3261e", "#146c2e", "#7c4dff", "#8a5300", "#006a6a"]

    static func stackedBars(
        id: String,
        title: String,
        bars: [(label: String, parts: [(String, Decimal)])],
        grouped: Bool = false,
        unit: String = "days"
    ) -> String {
        let width = 640
        let height = 240
        let left = 48
        let bottom = 28
        let plotHeight = Double(height - bottom - 12)
        let maximum =
            bars.map { bar in
                grouped ? bar.parts.map(\.1).max() ?? 0 : bar.parts.reduce(Decimal(0)) { $0 + $1.1 }
            }.max() ?? 0
        let scale = maximum > 0 ? plotHeight / NSDecimalNumber(decimal: maximum).doubleValue : 0
        let legendWidth = 160
        let slot = bars.isEmpty ? 0 : Double(width - left - legendWidth - 8) / Double(bars.count)
        var series: [String] = []
        for bar in bars { for part in bar.parts where !series.contains(part.0) { series.append(part.0) } }
        var svg = """
            <svg id="\(escape(id))" class="chart" role="img" aria-labelledby="\(escape(id))-title \(escape(id))-desc" \
            viewBox="0 0 \(width) \(height)" xmlns="http://www.w3.org/2000/svg">\
            <title id="\(escape(id))-title">\(escape(title))</title>\
            <desc id="\(escape(id))-desc">\(bars.count) \(unit); maximum \(maximum)</desc>\
            <line x1="\(left)" y1="\(height - bottom)" x2="\(width - legendWidth)" y2="\(height - bottom)" stroke="#4a4a4a"/>\
            <text x="4" y="16" font-size="12" fill="#1a1a1a">\(maximum)</text>
            """
        for (index, bar) in bars.enumerated() {
            let x = Double(left) + Double(index) * slot + slot * 0.1
            let barWidth = max(slot * 0.8, 1)
            var y = Double(height - bottom)
            for (partIndex, part) in bar.parts.enumerated() {
                let value = NSDecimalNumber(decimal: part.1).doubleValue * scale
                let color = palette[(series.firstIndex(of: part.0) ?? 0) % palette.count]
                let partWidth = grouped ? barWidth / Double(max(bar.parts.count, 1)) : barWidth
                let partX = grouped ? x + Double(partIndex) * partWidth : x
                let top = grouped ? Double(height - bottom) - value : y - value
                svg += """
                    <rect class="bar" x="\(fmt(partX))" y="\(fmt(top))" width="\(fmt(partWidth))" height="\(fmt(value))" \
                    fill="\(color)"><title>\(escape(bar.label)) \(escape(part.0)): \(part.1)</title></rect>
                    """
                if !grouped { y -= value }
            }
            // At most about twelve labels, so they never overlap (every bar keeps its value in its title).
            if index.isMultiple(of: max(1, (bars.count + 11) / 12)) {
                svg += """
                    <text x="\(fmt(x))" y="\(height - 10)" font-size="11" fill="#1a1a1a">\(escape(bar.label))</text>
                    """
            }
        }
        for (index, name) in series.enumerated() {
            svg += """
                <rect x="\(width - 150)" y="\(8 + index * 16)" width="10" height="10" fill="\(palette[index % palette.count])"/>\
                <text x="\(width - 136)" y="\(17 + index * 16)" font-size="12" fill="#1a1a1a">\(escape(name))</text>
                """
        }
        return svg + "</svg>"
    }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

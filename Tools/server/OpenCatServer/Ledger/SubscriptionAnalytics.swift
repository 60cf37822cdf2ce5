public import Foundation
public import OpenCatCore

/// What the analytics are computed from, read from the ledger in one go: every stored store transaction with its
/// price and refund time, every key-pack sale, every spend.
public struct AnalyticsFacts: Sendable {
    /// A stored transaction (a subscription period or a one-time purchase through the OpenCat API).
    public struct Transaction: Sendable, Hashable {
        public var info: TransactionInfo
        /// What the store charged for this period (0 for a free trial), when a verification said.
        public var price: Money?
        /// When the store refunded it, if it did.
        public var refundedAt: Date?
    }

    /// A key-pack sale: its packs, price, environment, and what the store refunded of it (cumulative) and when.
    public struct Sale: Sendable, Hashable {
        public var store: String
        public var price: Money
        public var soldAt: Date
        public var refundedAt: Date?
        /// Packs on the order (the portal sells 1–10 on one order).
        public var quantity: Int64 = 1
        /// What the store refunded of the price so far (the whole price for a whole refund).
        public var refundedAmount: Money?
        /// `production` or `sandbox`.
        public var environment: TransactionInfo.Environment = .production
    }

    public var transactions: [Transaction] = []
    public var sales: [Sale] = []
    /// Keys spent (spends and unlocks, positive) and when.
    public var spends: [(keys: Int64, at: Date)] = []

    public init() {}
}

/// The console's subscription analytics, a pure function of ``AnalyticsFacts``: per day, week (ISO, from Monday) or
/// month (UTC), per store and currency — never summed across currencies. Money is exact (`Decimal`); MRR is rounded
/// to the currency's minor units once, after summing; rates to four decimals.
public enum SubscriptionAnalytics {
    /// The length of a period.
    public enum Granularity: String, Sendable, CaseIterable {
        case day, week, month
    }

    /// One store's figures in one currency for one period.
    public struct Figures: Sendable, Hashable, Encodable {
        public var store: String
        public var currency: String
        /// Each subscription active at the period's end, its price normalised to a month (weekly × 52 / 12,
        /// quarterly / 3, half-yearly / 6, yearly / 12), summed.
        public var mrr: Decimal = 0
        /// Paid subscriptions in force at the period's end (a grace period counts; billing retry does not; a free
        /// trial does not: it is counted in ``activeTrials`` only).
        public var activeSubscriptions = 0
        /// Subscriptions in force at the period's end whose current period is free (price 0): neither paid actives
        /// nor MRR.
        public var activeTrials = 0
        /// Subscriptions whose first period started in the period.
        public var newSubscriptions = 0
        /// Subscriptions whose last period ended (expired, or refunded) in the period.
        public var churnedSubscriptions = 0
        /// Churned over active at the period's start (nil when none was).
        public var churnRate: Decimal?
        /// Paid purchases in the period: subscription periods with a price above 0 and key packs.
        public var purchases = 0
        /// Purchases refunded in the period (in whole or in part), each once.
        public var refunds = 0
        /// Refunds over purchases in the period (nil without purchases).
        public var refundRate: Decimal?
        /// Key packs sold in the period (packs, not orders: an order of three packs is three).
        public var keyPacksSold = 0
        /// What the key packs sold in the period were paid, before refunds (gross).
        public var keyPackRevenue: Decimal = 0
        /// What the stores refunded of key packs in the period.
        public var keyPackRefunds: Decimal = 0
        /// Key-pack revenue net of refunds: ``keyPackRevenue`` − ``keyPackRefunds``.
        public var keyPackNetRevenue: Decimal { keyPackRevenue - keyPackRefunds }

        enum CodingKeys: String, CodingKey {
            case store, currency, mrr, activeSubscriptions, activeTrials, newSubscriptions, churnedSubscriptions
            case churnRate, purchases, refunds, refundRate, keyPacksSold, keyPackRevenue, keyPackRefunds
            case keyPackNetRevenue
        }

        /// Money and rates as exact decimal strings, never JSON numbers.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(store, forKey: .store)
            try container.encode(currency, forKey: .currency)
            try container.encode("\(mrr)", forKey: .mrr)
            try container.encode(activeSubscriptions, forKey: .activeSubscriptions)
            try container.encode(activeTrials, forKey: .activeTrials)
            try container.encode(newSubscriptions, forKey: .newSubscriptions)
            try container.encode(churnedSubscriptions, forKey: .churnedSubscriptions)
            try container.encode(churnRate.map { "\($0)" }, forKey: .churnRate)
            try container.encode(purchases, forKey: .purchases)
            try container.encode(refunds, forKey: .refunds)
            try container.encode(refundRate.map { "\($0)" }, forKey: .refundRate)
            try container.encode(keyPacksSold, forKey: .keyPacksSold)
            try container.encode("\(keyPackRevenue)", forKey: .keyPackRevenue)
            try container.encode("\(keyPackRefunds)", forKey: .keyPackRefunds)
            try container.encode("\(keyPackNetRevenue)", forKey: .keyPackNetRevenue)
        }

        var isEmpty: Bool {
            mrr == 0 && activeSubscriptions == 0 && newSubscriptions == 0 && churnedSubscriptions == 0
                && purchases == 0 && refunds == 0 && keyPacksSold == 0 && activeTrials == 0 && keyPackRefunds == 0
        }
    }

    /// One period: its label (`2026-11-03`, `2026-W45`, `2026-11`), bounds, keys spent and figures per store and
    /// currency.
    public struct Period: Sendable, Hashable, Encodable {
        public var period: String
        public var start: Date
        public var end: Date
        public var keysSpent: Int64
        public var groups: [Figures]
    }

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The periods from the one holding `from` to the one holding `to`, at most 400.
    public static func periods(_ granularity: Granularity, from: Date, to: Date) -> [(
        label: String, start: Date, end: Date
    )] {
        let component: Calendar.Component =
            switch granularity {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            }
        guard var start = utc.dateInterval(of: component, for: from)?.start else { return [] }
        var periods: [(String, Date, Date)] = []
        while start <= to, periods.count < 400 {
            guard let end = utc.date(byAdding: component, value: 1, to: start) else { break }
            periods.append((label(granularity, start), start, end))
            start = end
        }
        return periods
    }

    static func label(_ granularity: Granularity, _ date: Date) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .weekOfYear, .yearForWeekOfYear], from: date)
        switch granularity {
        case .day: return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        case .week: return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
        case .month: return String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
        }
    }

    /// The report for the periods from `from` to `to`, as of `now` (a period still running is read at `now`), of one
    /// environment's purchases (production by default: sandbox purchases are never counted with real money).
    public static func report(
        _ facts: AnalyticsFacts,
        _ granularity: Granularity,
        from: Date,
        to: Date,
        now: Date,
        environment: TransactionInfo.Environment = .production
    ) -> [Period] {
        var facts = facts
        facts.transactions = facts.transactions.filter { $0.info.environment == environment }
        facts.sales = facts.sales.filter { $0.environment == environment }
        let subscriptions = Dictionary(
            grouping: facts.transactions.filter { $0.info.expirationDate != nil },
            by: { "\($0.info.store.rawValue)\u{0}\($0.info.originalTransactionId ?? $0.info.transactionId)" }
        ).values.map(Subscription.init)
        return periods(granularity, from: from, to: to).map { period in
            var table = FiguresTable()
            let asOf = min(period.end, now)
            var activeAtStart: [String: Int] = [:]
            for subscription in subscriptions {
                subscription.count(into: &table, start: period.start, asOf: asOf, activeAtStart: &activeAtStart)
            }
            count(facts, into: &table, start: period.start, end: asOf)
            for (key, active) in activeAtStart where active > 0 {
                let churned = table.groups[key]?.churnedSubscriptions ?? 0
                table.groups[key]?.churnRate = rate(churned, active)
            }
            for (key, figures) in table.groups {
                table.groups[key]?.mrr = rounded(figures.mrr, Money.minorUnitDigits(figures.currency))
                if figures.purchases > 0 { table.groups[key]?.refundRate = rate(figures.refunds, figures.purchases) }
            }
            let spent = facts.spends.filter { $0.at >= period.start && $0.at < asOf }.reduce(Int64(0)) { $0 + $1.keys }
            return Period(
                period: period.label,
                start: period.start,
                end: period.end,
                keysSpent: spent,
                groups: table.groups.values.filter { !$0.isEmpty || $0.churnRate != nil }
                    .sorted { ($0.store, $0.currency) < ($1.store, $1.currency) }
            )
        }
    }

    /// Purchases, refunds and key packs of a period.
    static func count(_ facts: AnalyticsFacts, into table: inout FiguresTable, start: Date, end: Date) {
        for transaction in facts.transactions {
            let currency = transaction.price?.currency ?? "unknown"
            let store = transaction.info.store.rawValue
            if let price = transaction.price, price.amount > 0, (start..<end).contains(transaction.info.purchaseDate) {
                table.update(store, currency) { $0.purchases += 1 }
            }
            if let refunded = transaction.refundedAt, (start..<end).contains(refunded) {
                table.update(store, currency) { $0.refunds += 1 }
            }
        }
        for sale in facts.sales {
            if (start..<end).contains(sale.soldAt) {
                table.update(sale.store, sale.price.currency) {
                    $0.purchases += 1
                    $0.keyPacksSold += Int(sale.quantity)
                    $0.keyPackRevenue += sale.price.amount
                }
            }
            if let refunded = sale.refundedAt, (start..<end).contains(refunded) {
                table.update(sale.store, sale.price.currency) {
                    $0.refunds += 1
                    $0.keyPackRefunds += sale.refundedAmount?.amount ?? sale.price.amount
                }
            }
        }
    }

    static func rate(_ part: Int, _ whole: Int) -> Decimal {
        rounded(Decimal(part) / Decimal(whole), 4)
    }

    static func rounded(_ value: Decimal, _ digits: Int) -> Decimal {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, digits, .plain)
        return result
    }

    /// A month's worth of a period's price: weekly × 52 / 12, monthly × 1, quarterly / 3, half-yearly / 6,
    /// yearly / 12 (the period read from the transaction's own dates).
    static func monthly(_ price: Decimal, purchase: Date, expiry: Date) -> Decimal {
        let days = expiry.timeIntervalSince(purchase) / 86_400
        switch days {
        case ..<10: return price * 52 / 12
        case ..<45: return price
        case ..<135: return price / 3
        case ..<270: return price / 6
        default: return price / 12
        }
    }
}

/// One subscription's periods (its transactions by the store's original id), for the analytics.
struct Subscription {
    let periods: [AnalyticsFacts.Transaction]
    let store: String

    init(_ transactions: [AnalyticsFacts.Transaction]) {
        periods = transactions.sorted { $0.info.purchaseDate < $1.info.purchaseDate }
        store = transactions.first?.info.store.rawValue ?? ""
    }

    /// When a period stops granting access: its expiry (or the end of its grace period), or its refund if earlier.
    static func end(_ period: AnalyticsFacts.Transaction) -> Date {
        var end = period.info.expirationDate ?? period.info.purchaseDate
        if period.info.status == .gracePeriod, let grace = period.info.gracePeriodExpirationDate {
            end = max(end, grace)
        }
        if period.info.status == .billingRetry { end = min(end, period.info.expirationDate ?? end) }
        if let refunded = period.refundedAt { end = min(end, refunded) }
        return end
    }

    func covering(_ instant: Date) -> AnalyticsFacts.Transaction? {
        periods.last { $0.info.purchaseDate <= instant && instant < Self.end($0) }
    }

    static func currency(_ period: AnalyticsFacts.Transaction?) -> String { period?.price?.currency ?? "unknown" }

    func count(
        into table: inout FiguresTable,
        start: Date,
        asOf: Date,
        activeAtStart: inout [String: Int]
    ) {
        guard let first = periods.first else { return }
        if let current = covering(asOf) {
            table.update(store, Self.currency(current)) { figures in
                guard let price = current.price, price.amount == 0 else {
                    figures.activeSubscriptions += 1
                    if let price = current.price, let expiry = current.info.expirationDate {
                        figures.mrr += SubscriptionAnalytics.monthly(
                            price.amount,
                            purchase: current.info.purchaseDate,
                            expiry: expiry
                        )
                    }
                    return
                }
                figures.activeTrials += 1
            }
        }
        if let atStart = covering(start) {
            activeAtStart[FiguresTable.key(store, Self.currency(atStart)), default: 0] += 1
        }
        if (start..<asOf).contains(first.info.purchaseDate) {
            table.update(store, Self.currency(first)) { $0.newSubscriptions += 1 }
        }
        if let last = periods.max(by: { Self.end($0) < Self.end($1) }), (start..<asOf).contains(Self.end(last)) {
            table.update(store, Self.currency(last)) { $0.churnedSubscriptions += 1 }
        }
    }
}

/// The figures of one period by store and currency.
struct FiguresTable {
    var groups: [String: SubscriptionAnalytics.Figures] = [:]

    static func key(_ store: String, _ currency: String) -> String { "\(store)\u{0}\(currency)" }

    mutating func update(_ store: String, _ currency: String, _ change: (inout SubscriptionAnalytics.Figures) -> Void) {
        change(
            &groups[Self.key(store, currency), default: SubscriptionAnalytics.Figures(store: store, currency: currency)]
        )
    }
}

extension LedgerStore {
    /// Everything the analytics read, in one transaction: the stored transactions with their prices and refund times,
    /// the key-pack sales with theirs, the spends.
    public func analyticsFacts() async throws(LedgerError) -> AnalyticsFacts {
        try await transaction(locking: []) { connection in
            var facts = AnalyticsFacts()
            for row in try await connection.rows(
                """
                SELECT t.info, t.price, t.currency, r.refunded_at FROM subscriber_transactions t
                LEFT JOIN store_refunds r ON r.store = t.store AND r.transaction_id = t.transaction_id
                """
            ) {
                guard let text = row["info"]?.text, let info = try? Self.decodeInfo(text) else { continue }
                let price = row["price"]?.text.flatMap { amount in
                    row["currency"]?.text.flatMap { Money(decimalString: amount, currency: $0) }
                }
                facts.transactions.append(.init(info: info, price: price, refundedAt: Self.date(row["refunded_at"])))
            }
            for row in try await connection.rows(
                """
                SELECT s.store, s.amount, s.currency, s.sold_at, s.quantity, s.refunded_amount, r.refunded_at,
                    d.environment
                FROM sales s
                LEFT JOIN store_refunds r ON r.store = s.store AND r.transaction_id = s.transaction_id
                LEFT JOIN redemptions d ON d.store = s.store AND d.transaction_id = s.transaction_id
                """
            ) {
                guard let store = row["store"]?.text, let amount = row["amount"]?.text,
                    let currency = row["currency"]?.text, let price = Money(decimalString: amount, currency: currency),
                    let soldAt = Self.date(row["sold_at"])
                else { continue }
                var sale = AnalyticsFacts.Sale(store: store, price: price, soldAt: soldAt)
                sale.refundedAt = Self.date(row["refunded_at"])
                sale.quantity = max(row["quantity"]?.integer ?? 1, 1)
                sale.refundedAmount = row["refunded_amount"]?.text.flatMap {
                    Money(decimalString: $0, currency: currency)
                }
                if let environment = row["environment"]?.text {
                    sale.environment = TransactionInfo.Environment(rawValue: environment)
                }
                facts.sales.append(sale)
            }
            facts.spends = try await connection.rows(
                "SELECT amount, created_at FROM ledger_entries WHERE kind IN ('spend', 'unlock')"
            ).compactMap { row in
                guard let amount = row["amount"]?.integer, let at = Self.date(row["created_at"]) else { return nil }
                return (-amount, at)
            }
            return facts
        }
    }
}

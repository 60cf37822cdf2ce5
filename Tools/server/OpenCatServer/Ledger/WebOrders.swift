public import Foundation
import OpenCatCore

/// A web order: one Stripe Checkout Session or PayPal order the portal created, credited once.
public struct WebOrder: Sendable, Hashable {
    /// `stripe` or `paypal`.
    public var store: String
    /// The Checkout Session id (`cs_…`) or the PayPal order id.
    public var reference: String
    /// The buyer's ledger user id.
    public var userId: String
    /// The buyer's email.
    public var email: String
    /// The key pack's product id.
    public var productId: String
    /// How many packs.
    public var quantity: Int64
    /// The total it was sold at, as an exact decimal string: the order is judged by it, never by today's prices.
    public var amount: String
    /// The currency (ISO 4217, uppercase).
    public var currency: String
    /// The stored state (``WebOrderState/rawValue``).
    public var state: String
    /// The store transaction it was paid and redeemed as.
    public var transactionId: String?
    /// When it was created.
    public var createdAt: Date
    /// The rule that refused to credit it and why, while it needs attention.
    public var attentionRule: String?
    public var attentionDetail: String?
    /// When the reconciler asks its store about it next (nil once it is settled).
    public var nextCheckAt: Date?

    /// An order as the portal creates it.
    public init(
        store: String,
        reference: String,
        userId: String,
        email: String,
        productId: String,
        quantity: Int64,
        amount: String,
        currency: String,
        state: String,
        transactionId: String? = nil,
        createdAt: Date
    ) {
        self.store = store
        self.reference = reference
        self.userId = userId
        self.email = email
        self.productId = productId
        self.quantity = quantity
        self.amount = amount
        self.currency = currency
        self.state = state
        self.transactionId = transactionId
        self.createdAt = createdAt
    }

    /// Its state as the order model has it.
    public var orderState: WebOrderState {
        WebOrderState(rawValue: state, rule: attentionRule, detail: attentionDetail)
    }

    /// What it was sold at: its own total.
    public var total: Money? { Money(decimalString: amount, currency: currency) }
}

// The web orders (docs/SECURITY.md, "The order model"): every state change goes through `moveWebOrder`, which applies
// the model's one transition function (``WebOrderState/after(_:)``) to the state it reads, in one transaction.
extension LedgerStore {
    /// Records a web order (once per store and reference; a repeat keeps the first), `created`, first checked with
    /// its store ``WebOrderSchedule/first`` after now.
    public func recordWebOrder(_ order: WebOrder) async throws(LedgerError) {
        let now = now
        try await transaction(locking: []) { connection in
            try await connection.execute(
                """
                INSERT INTO web_orders (store, reference, user_id, email, product_id, quantity, amount, currency, state,
                    created_at, updated_at, next_check_at, checks)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, 0) ON CONFLICT (store, reference) DO NOTHING
                """,
                order.store.sql,
                order.reference.sql,
                order.userId.sql,
                order.email.sql,
                order.productId.sql,
                order.quantity.sql,
                order.amount.sql,
                order.currency.sql,
                now.sql,
                now.sql,
                now.addingTimeInterval(WebOrderSchedule.first).sql
            )
        }
    }

    /// Moves a web order by what was learned of it, through the order model's transition function, and schedules its
    /// next check: an unpaid, unanswered or refused order after the schedule's next wait, a paid one a minute later,
    /// a settled one never.
    /// Returns the state it is in now, or nil when the event did not apply (it stays as it was) or the order is unknown.
    @discardableResult
    public func moveWebOrder(store: String, reference: String, _ event: WebOrderEvent)
        async throws(LedgerError) -> WebOrderState?
    {
        let now = now
        return try await transaction(locking: ["order:\(store):\(reference)"]) { connection in
            try await Self.moveWebOrder(connection, store: store, reference: reference, event, now: now)
        }
    }

    static func moveWebOrder(
        _ connection: any LedgerConnection,
        store: String,
        reference: String,
        _ event: WebOrderEvent,
        now: Date
    ) async throws -> WebOrderState? {
        guard
            let row = try await connection.rows(
                "SELECT * FROM web_orders WHERE store = ? AND reference = ?",
                store.sql,
                reference.sql
            ).first
        else { return nil }
        let order = webOrder(row)
        guard let next = order.orderState.after(event) else { return nil }
        let backsOff = [.unpaid, .unanswered].contains(event) || next.rawValue == "needs_attention"
        let checks = (row["checks"]?.integer ?? 0) + (backsOff ? 1 : 0)
        var nextCheck: SQLValue = .null
        if !next.isSettled {
            // A paid order is credited in the same pass that found it paid; if that failed (a crash, a failed write),
            // the reconciler takes it up a minute later.
            let wait = next == .paid ? WebOrderSchedule.first : WebOrderSchedule.wait(afterCheck: checks)
            nextCheck = now.addingTimeInterval(wait).sql
        }
        var rule: SQLValue = .null
        var detail: SQLValue = .null
        if case .needsAttention(let name, let words) = next {
            rule = name.sql
            detail = words.sql
        }
        try await connection.execute(
            """
            UPDATE web_orders SET state = ?, transaction_id = COALESCE(?, transaction_id), attention_rule = ?,
                attention_detail = ?, checks = ?, next_check_at = ?, updated_at = ?
            WHERE store = ? AND reference = ?
            """,
            next.rawValue.sql,
            event.transactionId.sql,
            rule,
            detail,
            checks.sql,
            nextCheck,
            now.sql,
            store.sql,
            reference.sql
        )
        return next
    }

    /// Marks a store transaction's web order refunded (a whole refund), in the refund's transaction.
    static func refundWebOrder(_ connection: any LedgerConnection, store: String, transactionId: String, now: Date)
        async throws
    {
        let references = try await connection.rows(
            "SELECT reference FROM web_orders WHERE store = ? AND transaction_id = ?",
            store.sql,
            transactionId.sql
        ).compactMap { $0["reference"]?.text }
        for reference in references {
            _ = try await moveWebOrder(connection, store: store, reference: reference, .refunded, now: now)
        }
    }

    /// A web order by store and reference.
    public func webOrder(store: String, reference: String) async throws(LedgerError) -> WebOrder? {
        try await webOrders(where: "store = ? AND reference = ?", [store.sql, reference.sql]).first
    }

    /// A user's web orders, newest first.
    public func webOrders(of userId: String) async throws(LedgerError) -> [WebOrder] {
        try await webOrders(where: "user_id = ?", [userId.sql])
    }

    /// A store's web orders whose reference or store transaction id is `id`.
    public func webOrders(store: String, referenceOrTransaction id: String) async throws(LedgerError) -> [WebOrder] {
        try await webOrders(where: "store = ? AND (transaction_id = ? OR reference = ?)", [store.sql, id.sql, id.sql])
    }

    /// The web orders placed with an email (lowercased).
    public func webOrders(email: String) async throws(LedgerError) -> [WebOrder] {
        try await webOrders(where: "email = ?", [email.lowercased().sql])
    }

    /// The orders not settled (created, paid, needing attention) whose next check is due by `date`, or all of them
    /// (`date` nil: what the reconciler asks about when the server starts), oldest first, at most 500.
    public func unsettledWebOrders(dueBy date: Date?) async throws(LedgerError) -> [WebOrder] {
        let unsettled = "state IN ('created', 'paid', 'needs_attention')"
        guard let date else { return try await webOrders(where: unsettled, [], oldestFirst: true) }
        return try await webOrders(where: unsettled + " AND next_check_at <= ?", [date.sql], oldestFirst: true)
    }

    /// The orders whose buyer paid and holds no keys for them (paid, needing attention), oldest first.
    public func webOrdersNeedingAttention() async throws(LedgerError) -> [WebOrder] {
        try await webOrders(where: "state IN ('paid', 'needs_attention')", [], oldestFirst: true)
    }

    /// How many web orders are in each state (every state of the model, zero included).
    public func webOrderCounts() async throws(LedgerError) -> [String: Int] {
        try await transaction(locking: []) { connection in
            var counts = Dictionary(uniqueKeysWithValues: WebOrderState.rawValues.map { ($0, 0) })
            for row in try await connection.rows(
                "SELECT state, CAST(COUNT(*) AS BIGINT) AS orders FROM web_orders GROUP BY state"
            ) {
                counts[row["state"]?.text ?? "", default: 0] += Int(row["orders"]?.integer ?? 0)
            }
            return counts
        }
    }

    private func webOrders(where condition: String, _ arguments: [SQLValue], oldestFirst: Bool = false)
        async throws(LedgerError) -> [WebOrder]
    {
        try await transaction(locking: []) { connection in
            try await connection.query(
                "SELECT * FROM web_orders WHERE \(condition) ORDER BY created_at \(oldestFirst ? "ASC" : "DESC") LIMIT 500",
                arguments
            ).map(Self.webOrder)
        }
    }

    static func webOrder(_ row: SQLRow) -> WebOrder {
        var order = WebOrder(
            store: row["store"]?.text ?? "",
            reference: row["reference"]?.text ?? "",
            userId: row["user_id"]?.text ?? "",
            email: row["email"]?.text ?? "",
            productId: row["product_id"]?.text ?? "",
            quantity: row["quantity"]?.integer ?? 0,
            amount: row["amount"]?.text ?? "0",
            currency: row["currency"]?.text ?? "",
            state: row["state"]?.text ?? "",
            transactionId: row["transaction_id"]?.text,
            createdAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
        )
        order.attentionRule = row["attention_rule"]?.text
        order.attentionDetail = row["attention_detail"]?.text
        order.nextCheckAt = row["next_check_at"]?.real.map { Date(timeIntervalSince1970: $0) }
        return order
    }
}

extension WebOrderRepository {
    /// Marks a web order paid as `transactionId` (``WebOrderEvent/paid(transactionId:)``).
    public func markWebOrderPaid(store: String, reference: String, transactionId: String) async throws(LedgerError) {
        try await moveWebOrder(store: store, reference: reference, .paid(transactionId: transactionId))
    }

    /// Marks a web order credited as `transactionId` (``WebOrderEvent/credited(transactionId:)``).
    public func markWebOrderCredited(store: String, reference: String, transactionId: String) async throws(LedgerError)
    {
        try await moveWebOrder(store: store, reference: reference, .credited(transactionId: transactionId))
    }
}

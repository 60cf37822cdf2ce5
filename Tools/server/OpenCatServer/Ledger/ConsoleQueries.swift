public import Foundation

/// A ledger entry as the console's overview counts it.
public struct ReportEntry: Sendable, Hashable {
    /// `purchase`, `spend`, `unlock`, `refund` or `refund_reversal`.
    public var kind: String
    /// Keys, signed.
    public var amount: Int64
    /// What it refers to (a refund's purchase, `stripe:pi_…`).
    public var reference: String?
    /// When it was written.
    public var createdAt: Date
}

/// What the operator console reads from the ledger: entries for the overview's charts, the whole ledger for export,
/// the accounts a search term names, a user's redemptions. Reads only; every write goes through the ledger's
/// operations.
extension LedgerStore {
    /// The entries that count in the overview (purchases, spends, unlocks, and what refunds took back) since a time.
    public func reportEntries(since: Date) async throws(LedgerError) -> [ReportEntry] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT kind, amount, reference, created_at FROM ledger_entries
                WHERE created_at >= ? AND kind IN ('purchase', 'spend', 'unlock', 'refund', 'refund_reversal')
                """,
                since.sql
            ).map { row in
                ReportEntry(
                    kind: row["kind"]?.text ?? "",
                    amount: row["amount"]?.integer ?? 0,
                    reference: row["reference"]?.text,
                    createdAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
                )
            }
        }
    }

    /// Every entry with its sequence number, oldest first.
    public func exportEntries() async throws(LedgerError) -> [(seq: Int64, entry: LedgerEntry)] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT seq, id, user_id, amount, kind, reference, app, created_at FROM ledger_entries ORDER BY seq"
            ).map { row in (row["seq"]?.integer ?? 0, Self.entry(row)) }
        }
    }

    /// Whether the ledger knows an account: an entry, a subscriber, a web order, a promotional entitlement, or (for a
    /// web account `web:<email>`) a portal session of its email.
    public func isKnownCustomer(_ userId: String) async throws(LedgerError) -> Bool {
        let queries = [
            "SELECT 1 AS found FROM ledger_entries WHERE user_id = ? LIMIT 1",
            "SELECT 1 AS found FROM subscribers WHERE app_user_id = ? LIMIT 1",
            "SELECT 1 AS found FROM web_orders WHERE user_id = ? LIMIT 1",
            "SELECT 1 AS found FROM promotional_entitlements WHERE app_user_id = ? LIMIT 1",
        ]
        let email = userId.hasPrefix("web:") ? String(userId.dropFirst(4)) : nil
        return try await transaction(locking: []) { connection in
            for sql in queries where !(try await connection.rows(sql, userId.sql)).isEmpty { return true }
            guard let email else { return false }
            let sessions = try await connection.rows(
                "SELECT 1 AS found FROM web_sessions WHERE kind = 'portal' AND subject = ? LIMIT 1",
                email.sql
            )
            return !sessions.isEmpty
        }
    }

    /// The accounts a search term names, and why: a redeemed store transaction, a subscriber's transaction, a web
    /// order or its transaction, a ledger user, an app user.
    public func customerMatches(_ term: String) async throws(LedgerError) -> [(userId: String, reason: String)] {
        let queries: [(sql: String, twice: Bool)] = [
            ("SELECT user_id, 'redemption' AS why FROM redemptions WHERE transaction_id = ?", false),
            (
                "SELECT app_user_id AS user_id, 'store transaction' AS why FROM subscriber_transactions "
                    + "WHERE transaction_id = ? OR original_transaction_id = ?", true
            ),
            ("SELECT user_id, 'web order' AS why FROM web_orders WHERE reference = ? OR transaction_id = ?", true),
            ("SELECT user_id, 'ledger user' AS why FROM ledger_entries WHERE user_id = ? LIMIT 1", false),
            ("SELECT app_user_id AS user_id, 'app user' AS why FROM subscribers WHERE app_user_id = ?", false),
        ]
        return try await transaction(locking: []) { connection in
            var found: [(userId: String, reason: String)] = []
            for query in queries {
                let rows =
                    query.twice
                    ? try await connection.rows(query.sql, term.sql, term.sql)
                    : try await connection.rows(query.sql, term.sql)
                found += rows.compactMap { row in
                    row["user_id"]?.text.map { ($0, row["why"]?.text ?? "") }
                }
            }
            return found
        }
    }

    /// A user's redeemed store transactions (at most 500), and whether each was refunded.
    public func redemptions(of userId: String) async throws(LedgerError) -> [(
        store: String, transactionId: String, refunded: Bool
    )] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT store, transaction_id, refunded_at FROM redemptions WHERE user_id = ? LIMIT 500",
                userId.sql
            ).map { row in
                (row["store"]?.text ?? "", row["transaction_id"]?.text ?? "", row["refunded_at"]?.real != nil)
            }
        }
    }
}

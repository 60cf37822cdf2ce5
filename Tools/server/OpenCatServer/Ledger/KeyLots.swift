import Foundation

/// Keys a wallet holds from one source: the purchase they were bought with (`stripe:pi_…`), a pack's gift to the
/// community pool (`stripe:pi_…#gift`), or nil for keys with no purchase behind them (an operator's adjustment, an
/// unlock given back, balances from before lots were kept).
public struct KeyLot: Sendable, Hashable {
    /// Where the keys came from; nil when no purchase is behind them.
    public var source: String?
    /// How many keys of that source the wallet holds.
    public var keys: Int64

    /// A lot.
    public init(source: String?, keys: Int64) {
        self.source = source
        self.keys = keys
    }
}

/// Which of an account's lots a debit may take.
enum KeyLotFilter: Sendable {
    /// Every lot.
    case all
    /// Only the lots one share brought into a holding account.
    case via(String)
    /// Only lots no share names (a holding account's lots from before shares were named, schema v12).
    case unnamed

    var sql: (condition: String, arguments: [SQLValue]) {
        switch self {
        case .all: ("", [])
        case .via(let entryId): (" AND via = ?", [entryId.sql])
        case .unnamed: (" AND via IS NULL", [])
        }
    }
}

// Key lots (docs/SECURITY.md, "Refunds take back everything they paid for, and follow their keys"): every key a wallet holds belongs to a lot that remembers
// its source purchase. A debit (spend, unlock, share, donation, release) takes keys from the wallet's newest lots
// first; keys that move to another wallet (share, donation, release of a pending account) arrive there as new lots of
// the same sources. A refund of a purchase therefore finds exactly the keys it paid for, wherever they went.
//
// The ledger's entries stay the append-only record; lots are the index of who holds what, kept in the same
// transaction as the entries. For every account, the lots' keys sum to the balance when it is positive and to zero
// when the account is in debt (its credits repay the debt before they make a lot).
extension LedgerStore {
    /// The keys an account holds, by source, oldest lot first.
    public func lots(of userId: String) async throws(LedgerError) -> [KeyLot] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT source, remaining FROM key_lots WHERE user_id = ? AND remaining > 0 ORDER BY seq",
                userId.sql
            ).map { KeyLot(source: $0["source"]?.text, keys: $0["remaining"]?.integer ?? 0) }
        }
    }

    /// The keys of one purchase still held anywhere (every wallet, pending accounts and the community pool).
    public func heldKeys(store: String, transactionId: String) async throws(LedgerError) -> Int64 {
        try await transaction(locking: []) { connection in
            try await connection.integer(
                """
                SELECT CAST(COALESCE(SUM(remaining), 0) AS BIGINT) FROM key_lots
                WHERE source = ? AND remaining > 0
                """,
                "\(store):\(transactionId)".sql
            )
        }
    }

    /// The balance a credit to `userId` starts from, as far as its lots need it: only an account a refund charged
    /// can be in debt, so any other starts from zero or more (and the sum of its entries need not be read).
    static func balanceBeforeCredit(_ connection: any LedgerConnection, _ userId: String) async throws -> Int64 {
        let charged = try await !connection.rows(
            "SELECT 1 AS charged FROM ledger_entries WHERE user_id = ? AND kind = 'refund' LIMIT 1",
            userId.sql
        ).isEmpty
        return charged ? try await balance(connection, userId) : 0
    }

    /// Adds the lots an entry crediting `userId` brings, after that entry is written; `balanceBefore` is the
    /// account's balance before it. A debt is repaid first: those keys are spent on it and make no lot. `via` names
    /// the share that brought keys into a holding account (`pending:<email>`), so that taking that share back
    /// returns exactly its own keys, whoever else shared to the same address.
    static func addLots(
        _ connection: any LedgerConnection,
        userId: String,
        _ parts: [KeyLot],
        balanceBefore: Int64,
        via: String? = nil,
        now: Date
    ) async throws {
        var debt = max(-balanceBefore, 0)
        for part in parts where part.keys > 0 {
            let repaid = min(debt, part.keys)
            debt -= repaid
            guard part.keys > repaid else { continue }
            try await connection.execute(
                "INSERT INTO key_lots (user_id, source, amount, remaining, via, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                userId.sql,
                part.source.sql,
                (part.keys - repaid).sql,
                (part.keys - repaid).sql,
                via.sql,
                now.sql
            )
        }
    }

    /// Inserts lots as they are (no debt to repay), in one statement.
    static func insertLots(_ connection: any LedgerConnection, _ lots: [(userId: String, lot: KeyLot)], now: Date)
        async throws
    {
        guard !lots.isEmpty else { return }
        let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: lots.count).joined(separator: ", ")
        try await connection.query(
            "INSERT INTO key_lots (user_id, source, amount, remaining, created_at) VALUES \(rows)",
            lots.flatMap { [$0.userId.sql, $0.lot.source.sql, $0.lot.keys.sql, $0.lot.keys.sql, now.sql] }
        )
    }

    /// Takes `amount` keys from the account's lots (those `filter` allows), newest first, and returns what they came
    /// from (merged by source, in the order taken). Takes fewer when the lots hold fewer.
    ///
    /// Newest first: keys an account received and passed on or spent are the ones it got last, so a refund of a
    /// purchase that reached it late never eats into the keys it held before (they were not spent on its behalf).
    static func takeLots(
        _ connection: any LedgerConnection,
        userId: String,
        amount: Int64,
        filter: KeyLotFilter = .all
    ) async throws -> [KeyLot] {
        guard amount > 0 else { return [] }
        let (condition, arguments) = filter.sql
        // The usual case in one statement: the newest lot holds enough.
        if let row = try await connection.query(
            """
            UPDATE key_lots SET remaining = remaining - ?
            WHERE seq = (SELECT seq FROM key_lots WHERE user_id = ? AND remaining > 0\(condition)
                ORDER BY seq DESC LIMIT 1)
                AND remaining >= ?
            RETURNING source
            """,
            [amount.sql, userId.sql] + arguments + [amount.sql]
        ).first {
            return [KeyLot(source: row["source"]?.text, keys: amount)]
        }
        var wanted = amount
        var taken: [KeyLot] = []
        while wanted > 0 {
            let rows = try await connection.query(
                """
                SELECT seq, source, remaining FROM key_lots WHERE user_id = ? AND remaining > 0\(condition)
                ORDER BY seq DESC LIMIT 16
                """,
                [userId.sql] + arguments
            )
            guard !rows.isEmpty else { break }
            for row in rows where wanted > 0 {
                let take = try await consume(connection, row, upTo: wanted)
                guard take > 0 else { continue }
                wanted -= take
                let source = row["source"]?.text
                if let last = taken.last, last.source == source {
                    taken[taken.count - 1].keys += take
                } else {
                    taken.append(KeyLot(source: source, keys: take))
                }
            }
        }
        return taken
    }

    /// `lots` with a lot of no source for what they lack of `amount` (an account whose lots predate its entries).
    static func filled(_ lots: [KeyLot], to amount: Int64) -> [KeyLot] {
        let short = amount - lots.reduce(0) { $0 + $1.keys }
        return short > 0 ? lots + [KeyLot(source: nil, keys: short)] : lots
    }

    /// Lowers the account's lots to what its balance allows (zero in debt), newest first: after an entry that took
    /// keys without naming their lots (a refund's debt set against the buyer's other keys).
    static func settleLots(_ connection: any LedgerConnection, userId: String) async throws {
        let held = try await connection.integer(
            "SELECT CAST(COALESCE(SUM(remaining), 0) AS BIGINT) FROM key_lots WHERE user_id = ? AND remaining > 0",
            userId.sql
        )
        let allowed = max(try await balance(connection, userId), 0)
        if held > allowed { _ = try await takeLots(connection, userId: userId, amount: held - allowed) }
    }

    /// Takes up to `amount` keys of one source, wherever they are, `first` account's lots first and then the
    /// newest lots; returns what it took from each account, in the order taken.
    static func takeSource(
        _ connection: any LedgerConnection,
        source: String,
        amount: Int64,
        first: String
    ) async throws -> [(userId: String, keys: Int64)] {
        guard amount > 0 else { return [] }
        let rows = try await connection.rows(
            """
            SELECT seq, user_id, remaining FROM key_lots WHERE source = ? AND remaining > 0
            ORDER BY CASE WHEN user_id = ? THEN 0 ELSE 1 END, seq DESC
            """,
            source.sql,
            first.sql
        )
        var wanted = amount
        var taken: [(userId: String, keys: Int64)] = []
        for row in rows where wanted > 0 {
            guard let user = row["user_id"]?.text else { continue }
            let take = try await consume(connection, row, upTo: wanted)
            guard take > 0 else { continue }
            wanted -= take
            if let index = taken.firstIndex(where: { $0.userId == user }) {
                taken[index].keys += take
            } else {
                taken.append((user, take))
            }
        }
        return taken
    }

    /// Takes up to `wanted` keys from the lot a row (`seq`, `remaining`) names; returns how many it took.
    static func consume(_ connection: any LedgerConnection, _ lot: SQLRow, upTo wanted: Int64) async throws -> Int64 {
        guard let seq = lot["seq"]?.integer, let held = lot["remaining"]?.integer else { return 0 }
        let take = min(wanted, held)
        guard take > 0 else { return 0 }
        try await connection.execute("UPDATE key_lots SET remaining = remaining - ? WHERE seq = ?", take.sql, seq.sql)
        return take
    }

    /// The accounts holding keys of a source.
    static func holders(_ connection: any LedgerConnection, source: String) async throws -> [String] {
        try await connection.rows(
            "SELECT DISTINCT user_id FROM key_lots WHERE source = ? AND remaining > 0",
            source.sql
        ).compactMap { $0["user_id"]?.text }
    }
}

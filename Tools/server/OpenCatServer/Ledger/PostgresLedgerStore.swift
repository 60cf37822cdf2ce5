import Foundation
import Logging
public import PostgresNIO

/// The ledger on PostgreSQL (postgres-nio), for several server instances on one database. A spend takes a
/// transaction-scoped advisory lock on its user, so spends of one user serialise across instances while other
/// users' run in parallel; the same unique constraints as SQLite's make retries and double redemptions harmless.
///
/// Run the client (`client.run()` in a task or a service group) while the store is used.
public final class PostgresLedgerStore: LedgerStore, Sendable {
    public let client: PostgresClient
    let logger: Logger
    let clock: @Sendable () -> Date

    /// A store over a running client.
    public init(client: PostgresClient, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.logger = logger
        clock = now
    }

    /// A client for `postgres://user:password@host:port/database` (TLS off: loopback or a private network).
    public static func client(url text: String, logger: Logger) throws(LedgerError) -> PostgresClient {
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
            let host = url.host, let user = url.user, !url.path.dropFirst().isEmpty
        else { throw LedgerError(.invalidInput, "expected postgres://user:password@host:port/database") }
        return PostgresClient(
            configuration: .init(
                host: host,
                port: url.port ?? 5432,
                username: user,
                password: url.password,
                database: String(url.path.dropFirst()),
                tls: .disable
            ),
            backgroundLogger: logger
        )
    }

    /// Creates the tables if they are missing (safe to run from several instances at once).
    public func migrate() async throws(LedgerError) {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(7246001)", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS ledger_entries (
                        seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, amount BIGINT NOT NULL,
                        kind TEXT NOT NULL, reference TEXT, app TEXT, idempotency_key TEXT,
                        created_at DOUBLE PRECISION NOT NULL, UNIQUE (user_id, idempotency_key))
                    """,
                    logger: logger
                )
                try await connection.query(
                    "CREATE INDEX IF NOT EXISTS ledger_entries_user ON ledger_entries(user_id, seq)",
                    logger: logger
                )
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS redemptions (
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, user_id TEXT NOT NULL, entry_id TEXT NOT NULL,
                        PRIMARY KEY (store, transaction_id))
                    """,
                    logger: logger
                )
            }
        }
    }

    public func balance(of userId: String) async throws(LedgerError) -> Int64 {
        try await run {
            let rows = try await client.query(
                "SELECT COALESCE(SUM(amount), 0)::BIGINT FROM ledger_entries WHERE user_id = \(userId)",
                logger: logger
            )
            for try await value in rows.decode(Int64.self) { return value }
            return 0
        }
    }

    public func entries(of userId: String, limit: Int) async throws(LedgerError) -> [LedgerEntry] {
        let bounded = max(0, min(limit, 1_000))
        return try await run {
            let rows = try await client.query(
                """
                SELECT id, user_id, amount, kind, reference, app, created_at FROM ledger_entries
                WHERE user_id = \(userId) ORDER BY seq DESC LIMIT \(bounded)
                """,
                logger: logger
            )
            var result: [LedgerEntry] = []
            for try await (id, user, amount, kind, reference, app, created) in rows.decode(
                (String, String, Int64, String, String?, String?, Double).self
            ) {
                result.append(
                    LedgerEntry(
                        id: id,
                        userId: user,
                        amount: amount,
                        kind: kind,
                        reference: reference,
                        app: app,
                        createdAt: Date(timeIntervalSince1970: created)
                    )
                )
            }
            return result
        }
    }

    public func spend(
        userId: String,
        amount: Int64,
        kind: String,
        reference: String?,
        app: String?,
        idempotencyKey: String
    ) async throws(LedgerError) -> SpendOutcome {
        guard amount > 0, !userId.isEmpty, !idempotencyKey.isEmpty else {
            throw LedgerError(.invalidInput, "a spend needs a positive amount, a user and an idempotency key")
        }
        let now = clock()
        let logger = logger
        return try await run {
            try await client.withTransaction(logger: logger) { connection -> SpendOutcome in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(userId)))", logger: logger)
                let earlierRows = try await connection.query(
                    """
                    SELECT id, amount, kind, reference, app, created_at FROM ledger_entries
                    WHERE user_id = \(userId) AND idempotency_key = \(idempotencyKey)
                    """,
                    logger: logger
                )
                let balanceRows = { () async throws -> Int64 in
                    let rows = try await connection.query(
                        "SELECT COALESCE(SUM(amount), 0)::BIGINT FROM ledger_entries WHERE user_id = \(userId)",
                        logger: logger
                    )
                    for try await value in rows.decode(Int64.self) { return value }
                    return 0
                }
                for try await (id, earlierAmount, earlierKind, earlierReference, earlierApp, created)
                    in earlierRows.decode(
                        (String, Int64, String, String?, String?, Double).self
                    )
                {
                    guard earlierAmount == -amount, earlierKind == kind, earlierReference == reference else {
                        throw LedgerError(.idempotencyConflict, "the idempotency key was used for another operation")
                    }
                    let entry = LedgerEntry(
                        id: id,
                        userId: userId,
                        amount: earlierAmount,
                        kind: earlierKind,
                        reference: earlierReference,
                        app: earlierApp,
                        createdAt: Date(timeIntervalSince1970: created)
                    )
                    return SpendOutcome(entry: entry, balance: try await balanceRows(), replayed: true)
                }
                let balance = try await balanceRows()
                guard balance >= amount else {
                    throw LedgerError(.insufficientBalance, "the wallet holds \(balance) keys")
                }
                let entry = LedgerEntry(
                    id: "le_" + UUID().uuidString.lowercased(),
                    userId: userId,
                    amount: -amount,
                    kind: kind,
                    reference: reference,
                    app: app,
                    createdAt: now
                )
                try await Self.insert(connection, entry, idempotencyKey: idempotencyKey, logger: logger)
                return SpendOutcome(entry: entry, balance: balance - amount, replayed: false)
            }
        }
    }

    public func redeem(store: String, transactionId: String, userId: String, amount: Int64, reference: String?)
        async throws(LedgerError) -> LedgerEntry
    {
        guard amount > 0, !store.isEmpty, !transactionId.isEmpty, !userId.isEmpty else {
            throw LedgerError(.invalidInput, "a redemption needs a store, a transaction, a user and keys")
        }
        let now = clock()
        let logger = logger
        return try await run {
            try await client.withTransaction(logger: logger) { connection -> LedgerEntry in
                let entry = LedgerEntry(
                    id: "le_" + UUID().uuidString.lowercased(),
                    userId: userId,
                    amount: amount,
                    kind: "purchase",
                    reference: reference ?? "\(store):\(transactionId)",
                    createdAt: now
                )
                let claimed = try await connection.query(
                    """
                    INSERT INTO redemptions (store, transaction_id, user_id, entry_id)
                    VALUES (\(store), \(transactionId), \(userId), \(entry.id))
                    ON CONFLICT (store, transaction_id) DO NOTHING RETURNING entry_id
                    """,
                    logger: logger
                )
                var won = false
                for try await _ in claimed.decode(String.self) { won = true }
                guard won else { throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed") }
                try await Self.insert(
                    connection,
                    entry,
                    idempotencyKey: "redeem:\(store):\(transactionId)",
                    logger: logger
                )
                return entry
            }
        }
    }

    static func insert(_ connection: PostgresConnection, _ entry: LedgerEntry, idempotencyKey: String, logger: Logger)
        async throws
    {
        try await connection.query(
            """
            INSERT INTO ledger_entries (id, user_id, amount, kind, reference, app, idempotency_key, created_at)
            VALUES (\(entry.id), \(entry.userId), \(entry.amount), \(entry.kind), \(entry.reference), \(entry.app),
                    \(idempotencyKey), \(entry.createdAt.timeIntervalSince1970))
            """,
            logger: logger
        )
    }

    /// Runs a database operation, keeping the ledger's own errors and hiding the driver's.
    func run<T>(_ operation: () async throws -> T) async throws(LedgerError) -> T {
        do {
            return try await operation()
        } catch let error as LedgerError {
            throw error
        } catch let error as PostgresTransactionError {
            if let ledger = error.closureError as? LedgerError { throw ledger }
            throw LedgerError(.storage, "the ledger transaction failed")
        } catch {
            throw LedgerError(.storage, "the ledger database failed")
        }
    }
}

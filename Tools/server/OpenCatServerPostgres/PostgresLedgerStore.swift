import Foundation
public import Logging
public import OpenCatServer
public import PostgresNIO

/// The ledger on PostgreSQL (postgres-nio), for several server instances on one database. A transaction that may
/// lower a balance takes a transaction-scoped advisory lock per user (in a fixed order), so one user's spends
/// serialise across instances while other users' run in parallel; the same unique constraints as SQLite's make
/// retries and double redemptions harmless.
///
/// Run the client (`client.run()` in a task or a service group) while the store is used.
public final class PostgresLedgerStore: LedgerStore, Sendable {
    /// The PostgreSQL client; run it (`client.run()`) while the store is used.
    public let client: PostgresClient
    let logger: Logger
    let clock: @Sendable () -> Date

    /// Always `.postgresql`.
    public var dialect: SQLDialect { .postgresql }
    /// The store's clock (the system's unless one was injected).
    public var now: Date { clock() }

    /// A store over a running client.
    /// - Parameter maximumConnections: the client's pool size, shown in `/metrics`
    ///   (`opencat_database_pool_connections`); nil: not shown.
    public init(
        client: PostgresClient,
        logger: Logger,
        maximumConnections: Int? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        if let maximumConnections { LedgerMetrics.poolSize(.postgresql, connections: maximumConnections) }
        self.client = client
        self.logger = logger
        clock = now
    }

    /// A client for `postgres://user:password@host:port/database` with TLS off (loopback or a private network), for
    /// tests and benchmarks. `opencat-server serve` builds its configuration with ``PostgresConnectionSettings``
    /// (TLS, CA bundle, password file) and passes it to `PostgresClient(configuration:backgroundLogger:)`.
    public static func client(url text: String, logger: Logger) throws(LedgerError) -> PostgresClient {
        do throws(PostgresConfigurationError) {
            return PostgresClient(
                configuration: try PostgresConnectionSettings().configuration(url: text),
                backgroundLogger: logger
            )
        } catch {
            throw LedgerError(.invalidInput, error.message)
        }
    }

    /// Applies the migrations not applied yet, each in its own transaction; safe to run from several instances at
    /// once (they wait on one advisory lock).
    public func migrate() async throws(LedgerError) {
        try await transaction(locking: ["opencat:migrations"]) { connection in
            try await connection.execute(
                "CREATE TABLE IF NOT EXISTS ledger_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION)"
            )
        }
        for migration in LedgerSchema.migrations(.postgresql) {
            let now = now
            try await transaction(locking: ["opencat:migrations"]) { connection in
                let applied = try await connection.rows(
                    "SELECT name FROM ledger_migrations WHERE name = ?",
                    migration.name.sql
                )
                guard applied.isEmpty else { return }
                for statement in migration.sql { try await connection.execute(statement) }
                try await connection.execute(
                    "INSERT INTO ledger_migrations (name, applied_at) VALUES (?, ?)",
                    migration.name.sql,
                    now.sql
                )
            }
        }
    }

    /// `SELECT 1` on a pooled connection, outside any transaction.
    public func ping() async throws(LedgerError) {
        do { _ = try await client.query("SELECT 1", logger: logger).collect() } catch {
            throw LedgerError(.storage, "PostgreSQL does not answer")
        }
    }

    /// Runs `body` in one transaction after taking a transaction-scoped advisory lock per user of `users`, in a fixed
    /// order (so instances serialise on a user and never deadlock). A `LedgerError` from `body` rolls back and is
    /// rethrown; any other failure rolls back and becomes `.storage`.
    public func transaction<T: Sendable>(
        locking users: [String],
        _ body: @Sendable (any LedgerConnection) async throws -> T
    ) async throws(LedgerError) -> T {
        try await LedgerMetrics.measure(.postgresql) { () async throws(LedgerError) -> T in
            try await run(locking: users, body)
        }
    }

    private func run<T: Sendable>(locking users: [String], _ body: @Sendable (any LedgerConnection) async throws -> T)
        async throws(LedgerError) -> T
    {
        let logger = logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                let wrapped = Connection(connection: connection, logger: logger)
                // Every lock in one round trip, in a fixed order (PostgreSQL evaluates the list left to right).
                let locks = Set(users).sorted()
                if !locks.isEmpty {
                    let calls = Array(repeating: "pg_advisory_xact_lock(hashtextextended(?, 0))", count: locks.count)
                    _ = try await wrapped.query("SELECT " + calls.joined(separator: ", "), locks.map(\.sql))
                }
                return try await body(wrapped)
            }
        } catch let error as LedgerError {
            throw error
        } catch let error as PostgresTransactionError {
            if let ledger = error.closureError as? LedgerError { throw ledger }
            logger.warning("ledger transaction failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw LedgerError(.storage, "the ledger transaction failed")
        } catch {
            throw LedgerError(.storage, "the ledger database failed")
        }
    }

    struct Connection: LedgerConnection {
        var dialect: SQLDialect { .postgresql }
        let connection: PostgresConnection
        let logger: Logger

        func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
            var bindings = PostgresBindings(capacity: arguments.count)
            for argument in arguments {
                switch argument {
                case .integer(let number): bindings.append(number)
                case .text(let text): bindings.append(text)
                case .real(let number): bindings.append(number)
                case .null: bindings.appendNull()
                }
            }
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings),
                logger: logger
            )
            var result: [SQLRow] = []
            for try await row in rows {
                var values: SQLRow = [:]
                for cell in row {
                    values[cell.columnName] = try Self.value(cell)
                }
                result.append(values)
            }
            return result
        }

        /// `?` placeholders as `$1`, `$2`, …
        static func numbered(_ sql: String) -> String {
            var output = ""
            var index = 0
            for character in sql {
                if character == "?" {
                    index += 1
                    output += "$\(index)"
                } else {
                    output.append(character)
                }
            }
            return output
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .numeric: return .integer(Int64(try cell.decode(String.self)) ?? 0)
            default: return .text(try cell.decode(String.self))
            }
        }
    }
}

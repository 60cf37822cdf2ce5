import Foundation
import Metrics
import Synchronization

/// The database's use, for `/metrics`: the connections a backend may hold (`opencat_database_pool_connections`: 1
/// for SQLite's one writer, the client's maximum for PostgreSQL), the transactions started and not finished,
/// waiting for a connection or a lock included (`opencat_database_transactions_in_flight`), and how long each took
/// (`opencat_database_transaction_duration_seconds`, with `outcome` `ok` or the ledger error's code). Labelled by
/// dialect only.
package enum LedgerMetrics {
    private static let sqliteInFlight = Atomic<Int>(0)
    private static let postgresInFlight = Atomic<Int>(0)

    /// Records the most connections a backend holds.
    package static func poolSize(_ dialect: SQLDialect, connections: Int) {
        Gauge(label: "opencat_database_pool_connections", dimensions: [("database", dialect.rawValue)])
            .record(connections)
    }

    /// Runs a transaction of a backend and counts it.
    package static func measure<T>(_ dialect: SQLDialect, _ body: () async throws(LedgerError) -> T)
        async throws(LedgerError) -> T
    {
        let started = ContinuousClock.now
        record(dialect, change: 1)
        var outcome = "ok"
        defer {
            record(dialect, change: -1)
            let elapsed = ContinuousClock.now - started
            Timer(
                label: "opencat_database_transaction_duration_seconds",
                dimensions: [("database", dialect.rawValue), ("outcome", outcome)],
                preferredDisplayUnit: .seconds
            ).recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            )
        }
        do { return try await body() } catch {
            outcome = error.code.rawValue
            throw error
        }
    }

    private static func record(_ dialect: SQLDialect, change: Int) {
        let now =
            switch dialect {
            case .sqlite: sqliteInFlight.add(change, ordering: .relaxed).newValue
            case .postgresql: postgresInFlight.add(change, ordering: .relaxed).newValue
            }
        Gauge(label: "opencat_database_transactions_in_flight", dimensions: [("database", dialect.rawValue)])
            .record(now)
    }
}

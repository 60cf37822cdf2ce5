import Foundation
import Logging
import OpenCatServer
import OpenCatServerPostgres
import PostgresNIO
import ToolsTestSupport

/// The tests' PostgreSQL (`OPENCAT_TEST_POSTGRES_URL`, set by `bash Tools/test.sh`, which installs and starts it on
/// loopback); each test gets a database of its own. Without it these tests fail at once, naming the command.
enum ServerTestPostgres {
    static let url: Result<String, any Error> = Result { try TestEnvironment.postgresURL() }

    static let logger = Logger(label: "tests.ledger.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A fresh database and `count` stores on it, each with its own client (as separate server instances are).
    static func withStores<T>(
        _ count: Int,
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: ([PostgresLedgerStore]) async throws -> T
    ) async throws -> T {
        try await withDatabase(count, now: now) { _, stores in try await body(stores) }
    }

    /// A fresh database (its URL, for other processes) and `count` stores on it.
    static func withDatabase<T>(
        _ count: Int,
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: (String, [PostgresLedgerStore]) async throws -> T
    ) async throws -> T {
        let base = try url.get()
        let name = "ledger_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresLedgerStore.client(url: base, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            try await admin.query("CREATE DATABASE \(unescaped: name)", logger: logger)
            var components = URLComponents(string: base)!
            components.path = "/" + name
            let clients = try (0..<count).map { _ in
                try PostgresLedgerStore.client(url: components.string!, logger: logger)
            }
            for client in clients { group.addTask { await client.run() } }
            let stores = clients.map { PostgresLedgerStore(client: $0, logger: logger, now: now) }
            try await stores[0].migrate()
            return try await body(components.string!, stores)
        }
    }
}

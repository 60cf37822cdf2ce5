public import Foundation
import GRDB

/// The ledger on SQLite (GRDB, WAL): one process. Transactions run one at a time (`BEGIN IMMEDIATE` behind an async
/// lock), so a balance check and the entries that depend on it cannot interleave with another writer; the unique
/// constraints make retries and double redemptions harmless.
public final class SQLiteLedgerStore: LedgerStore, Sendable {
    let database: DatabaseQueue
    let clock: @Sendable () -> Date
    let gate = AsyncLock()

    /// Always `.sqlite`.
    public var dialect: SQLDialect { .sqlite }
    /// The store's clock (the system's unless one was injected).
    public var now: Date { clock() }

    /// Opens (or creates, owner-only) the ledger at a file and migrates it.
    public init(fileURL: URL, now: @escaping @Sendable () -> Date = { Date() }) throws(LedgerError) {
        clock = now
        LedgerMetrics.poolSize(.sqlite, connections: 1)
        do {
            if !FileManager.default.fileExists(atPath: fileURL.path) {
                _ = FileManager.default.createFile(
                    atPath: fileURL.path,
                    contents: nil,
                    attributes: [.posixPermissions: 0o600]
                )
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // A ledger transaction spans several statements, each its own database access.
            configuration.allowsUnsafeTransactions = true
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            database = try DatabaseQueue(path: fileURL.path, configuration: configuration)
            var migrator = DatabaseMigrator()
            for migration in LedgerSchema.migrations(.sqlite) {
                migrator.registerMigration(migration.name) { db in
                    for statement in migration.sql { try db.execute(sql: statement) }
                }
            }
            try migrator.migrate(database)
        } catch {
            throw LedgerError(.storage, "the SQLite ledger cannot be opened")
        }
    }

    /// A read of `SELECT 1` on GRDB's own queue: no write lock, no blocked thread.
    public func ping() async throws(LedgerError) {
        do { try await database.read { db in try db.execute(sql: "SELECT 1") } } catch {
            throw LedgerError(.storage, "the SQLite ledger does not answer")
        }
    }

    /// Runs `body` in one write transaction, one at a time in this process (SQLite serialises every writer, so
    /// `users` needs no lock of its own). A `LedgerError` from `body` rolls back and is rethrown; any other failure
    /// rolls back and becomes `.storage`.
    public func transaction<T: Sendable>(
        locking users: [String],
        _ body: @Sendable (any LedgerConnection) async throws -> T
    ) async throws(LedgerError) -> T {
        try await LedgerMetrics.measure(.sqlite) { () async throws(LedgerError) -> T in
            await gate.lock()
            let outcome = await run(body)
            await gate.unlock()
            return try outcome.get()
        }
    }

    private func run<T: Sendable>(_ body: @Sendable (any LedgerConnection) async throws -> T) async -> Result<
        T, LedgerError
    > {
        let database = database
        do { try await Self.control("BEGIN IMMEDIATE", database) } catch {
            return .failure(LedgerError(.storage, "the SQLite ledger is unavailable"))
        }
        do {
            let result = try await body(Connection(database: database))
            try await Self.control("COMMIT", database)
            return .success(result)
        } catch {
            try? await Self.control("ROLLBACK", database)
            if let error = error as? LedgerError { return .failure(error) }
            return .failure(LedgerError(.storage, "the ledger transaction failed"))
        }
    }

    /// Runs BEGIN, COMMIT or ROLLBACK on GRDB's writer queue and awaits it. Scheduled with GRDB's callback API, so
    /// it runs even for a cancelled task (GRDB's async accesses throw on one, and a transaction must never be left
    /// open behind the lock), and no thread of Swift concurrency waits for the commit's sync to disk: two ledgers
    /// committing at once on a slow disk would otherwise stop every task in the process.
    private static func control(_ sql: String, _ database: DatabaseQueue) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            database.asyncWriteWithoutTransaction { db in
                do {
                    if sql == "BEGIN IMMEDIATE", db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }
                    if sql != "ROLLBACK" || db.isInsideTransaction { try db.execute(sql: sql) }
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    struct Connection: LedgerConnection {
        var dialect: SQLDialect { .sqlite }
        let database: DatabaseQueue

        func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
            return try await database.writeWithoutTransaction { db in
                let values: [(any DatabaseValueConvertible)?] = arguments.map { value in
                    switch value {
                    case .integer(let number): number
                    case .text(let text): text
                    case .real(let number): number
                    case .null: nil
                    }
                }
                return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values)).map { row in
                    var result: SQLRow = [:]
                    for (column, value) in row {
                        switch value.storage {
                        case .int64(let number): result[column] = .integer(number)
                        case .double(let number): result[column] = .real(number)
                        case .string(let text): result[column] = .text(text)
                        case .blob(let data): result[column] = .text(String(decoding: data, as: UTF8.self))
                        case .null: result[column] = .null
                        }
                    }
                    return result
                }
            }
        }
    }
}

/// A first-in, first-out lock for async code.
actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func lock() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func unlock() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}

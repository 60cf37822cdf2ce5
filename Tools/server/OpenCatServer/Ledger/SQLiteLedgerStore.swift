public import Foundation
import GRDB

/// The ledger on SQLite (GRDB, WAL): one process. Spends run in a write transaction (IMMEDIATE in GRDB's pools), so the balance check and
/// the entry that depends on it cannot interleave with another writer; `UNIQUE(user_id, idempotency_key)` and the
/// `redemptions` primary key make retries and double redemptions harmless.
public final class SQLiteLedgerStore: LedgerStore, Sendable {
    let database: DatabasePool
    let clock: @Sendable () -> Date

    /// Opens (or creates, owner-only) the ledger at a file and migrates it.
    public init(fileURL: URL, now: @escaping @Sendable () -> Date = { Date() }) throws(LedgerError) {
        clock = now
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
            database = try DatabasePool(path: fileURL.path, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE ledger_entries (
                            seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL,
                            amount INTEGER NOT NULL, kind TEXT NOT NULL, reference TEXT, app TEXT,
                            idempotency_key TEXT, created_at REAL NOT NULL,
                            UNIQUE(user_id, idempotency_key));
                        CREATE INDEX ledger_entries_user ON ledger_entries(user_id, seq);
                        CREATE TABLE redemptions (
                            store TEXT NOT NULL, transaction_id TEXT NOT NULL, user_id TEXT NOT NULL,
                            entry_id TEXT NOT NULL, PRIMARY KEY (store, transaction_id));
                        """
                )
            }
            try migrator.migrate(database)
        } catch {
            throw LedgerError(.storage, "the SQLite ledger cannot be opened")
        }
    }

    public func balance(of userId: String) async throws(LedgerError) -> Int64 {
        do {
            return try await database.read { db in try Self.balance(db, userId) }
        } catch {
            throw LedgerError(.storage, "the balance cannot be read")
        }
    }

    public func entries(of userId: String, limit: Int) async throws(LedgerError) -> [LedgerEntry] {
        do {
            return try await database.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM ledger_entries WHERE user_id = ? ORDER BY seq DESC LIMIT ?",
                    arguments: [userId, max(0, min(limit, 1_000))]
                ).map(Self.entry)
            }
        } catch {
            throw LedgerError(.storage, "the history cannot be read")
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
        do {
            return try await database.write { db -> SpendOutcome in
                if let row = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM ledger_entries WHERE user_id = ? AND idempotency_key = ?",
                    arguments: [userId, idempotencyKey]
                ) {
                    let earlier = Self.entry(row)
                    guard earlier.amount == -amount, earlier.kind == kind, earlier.reference == reference else {
                        throw LedgerError(.idempotencyConflict, "the idempotency key was used for another operation")
                    }
                    return SpendOutcome(entry: earlier, balance: try Self.balance(db, userId), replayed: true)
                }
                let balance = try Self.balance(db, userId)
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
                try Self.insert(db, entry, idempotencyKey: idempotencyKey)
                return SpendOutcome(entry: entry, balance: balance - amount, replayed: false)
            }
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError(.storage, "the spend could not be written")
        }
    }

    public func redeem(store: String, transactionId: String, userId: String, amount: Int64, reference: String?)
        async throws(LedgerError) -> LedgerEntry
    {
        guard amount > 0, !store.isEmpty, !transactionId.isEmpty, !userId.isEmpty else {
            throw LedgerError(.invalidInput, "a redemption needs a store, a transaction, a user and keys")
        }
        let now = clock()
        do {
            return try await database.write { db -> LedgerEntry in
                if try Bool.fetchOne(
                    db,
                    sql: "SELECT 1 FROM redemptions WHERE store = ? AND transaction_id = ?",
                    arguments: [store, transactionId]
                ) == true {
                    throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed")
                }
                let entry = LedgerEntry(
                    id: "le_" + UUID().uuidString.lowercased(),
                    userId: userId,
                    amount: amount,
                    kind: "purchase",
                    reference: reference ?? "\(store):\(transactionId)",
                    createdAt: now
                )
                try Self.insert(db, entry, idempotencyKey: "redeem:\(store):\(transactionId)")
                try db.execute(
                    sql: "INSERT INTO redemptions (store, transaction_id, user_id, entry_id) VALUES (?, ?, ?, ?)",
                    arguments: [store, transactionId, userId, entry.id]
                )
                return entry
            }
        } catch let error as LedgerError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed")
        } catch {
            throw LedgerError(.storage, "the redemption could not be written")
        }
    }

    static func balance(_ db: Database, _ userId: String) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: "SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE user_id = ?",
            arguments: [userId]
        ) ?? 0
    }

    static func insert(_ db: Database, _ entry: LedgerEntry, idempotencyKey: String) throws {
        try db.execute(
            sql: """
                INSERT INTO ledger_entries (id, user_id, amount, kind, reference, app, idempotency_key, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.id, entry.userId, entry.amount, entry.kind, entry.reference, entry.app, idempotencyKey,
                entry.createdAt.timeIntervalSince1970,
            ]
        )
    }

    static func entry(_ row: Row) -> LedgerEntry {
        LedgerEntry(
            id: row["id"],
            userId: row["user_id"],
            amount: row["amount"],
            kind: row["kind"],
            reference: row["reference"],
            app: row["app"],
            createdAt: Date(timeIntervalSince1970: row["created_at"])
        )
    }
}

import Crypto
import Foundation
import GRDB
import Logging
import OpenCatCore

/// The outbox table under ``DurableOutbox``: entries written before a delivery is attempted, sealed like every
/// value, keyed by an HMAC of their id, scoped by a namespace (who wrote them: the SDK, the key vault) and an owner
/// (an HMAC of the user they belong to), and kept after delivery (payload erased) so the same id is never delivered
/// twice. Every read filters by scope in SQL: one user's or one component's entries never reach another's loop.
extension EncryptedCache {
    /// Where an entry belongs.
    struct OutboxScope: Sendable, Hashable {
        var namespace: String
        /// The owner's HMAC (the file holds no plaintext user id).
        var owner: String
    }

    /// One row, opened.
    struct OutboxRow: Sendable {
        var id: String
        var payload: Data
        var attempts: Int
    }

    func outboxScope(namespace: String, owner: String) -> OutboxScope {
        OutboxScope(namespace: namespace, owner: slotName("outbox.owner:" + owner))
    }

    func outboxSlot(_ id: String) -> String { slotName("outbox:" + id) }

    /// Adds an entry unless one with the same id exists (pending, delivered or rejected, in any scope).
    /// - Returns: whether the entry was added.
    func insertOutboxRow(id: String, payload: Data, scope: OutboxScope) throws -> Bool {
        let slot = outboxSlot(id)
        let sealed = try seal(try JSONCoding.encoder.encode(SealedOutbox(id: id, payload: payload)), slot: slot)
        return try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO outbox(slot, payload, state, attempts, seq, namespace, owner)
                    VALUES (?, ?, 'pending', 0, (SELECT IFNULL(MAX(seq), 0) + 1 FROM outbox), ?, ?)
                    """,
                arguments: [slot, sealed, scope.namespace, scope.owner]
            )
            return db.changesCount > 0
        }
    }

    /// The pending rows of one scope, oldest first, and how many of them (or of the rows no scope claims) cannot
    /// be opened: those are kept in place and counted, never handed out or deleted.
    func pendingOutboxRows(scope: OutboxScope) throws -> (rows: [OutboxRow], unreadable: Int) {
        let rows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT slot, payload, attempts, namespace FROM outbox
                    WHERE state = 'pending' AND ((namespace = ? AND owner = ?) OR namespace IS NULL) ORDER BY seq
                    """,
                arguments: [scope.namespace, scope.owner]
            )
        }
        var opened: [OutboxRow] = []
        var unreadable = 0
        for row in rows {
            let slot: String = row["slot"]
            let namespace: String? = row["namespace"]
            guard let plain = try? open(row["payload"], slot: slot),
                let entry = try? JSONCoding.decoder.decode(SealedOutbox.self, from: plain),
                namespace != nil
            else {
                unreadable += 1
                logger.error("outbox entry unreadable; kept in place", metadata: ["slot": "\(slot.prefix(12))"])
                continue
            }
            opened.append(OutboxRow(id: entry.id, payload: entry.payload, attempts: row["attempts"]))
        }
        return (opened, unreadable)
    }

    /// The state and counted failed attempts of an entry, or `nil` if there is none with that id.
    func outboxRowState(id: String) throws -> (state: OutboxState, attempts: Int)? {
        let row = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT state, attempts FROM outbox WHERE slot = ?", arguments: [outboxSlot(id)])
        }
        guard let row, let state = OutboxState(rawValue: row["state"]) else { return nil }
        return (state, row["attempts"])
    }

    /// Marks an entry delivered (its payload erased; the id stays, as an HMAC, so it is never delivered again) or
    /// rejected (its payload kept, sealed, for diagnosis and a later explicit retry).
    func completeOutboxRow(id: String, as state: OutboxState) throws {
        let slot = outboxSlot(id)
        try database.write { db in
            let payload = state == .delivered ? "X''" : "payload"
            try db.execute(
                sql: "UPDATE outbox SET state = ?, payload = \(payload) WHERE slot = ?",
                arguments: [state.rawValue, slot]
            )
        }
    }

    /// Makes a rejected or stalled entry pending again with a fresh payload and no counted attempts. A delivered
    /// entry stays delivered.
    func reopenOutboxRow(id: String, payload: Data) throws {
        let slot = outboxSlot(id)
        let sealed = try seal(try JSONCoding.encoder.encode(SealedOutbox(id: id, payload: payload)), slot: slot)
        try database.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'pending', payload = ?, attempts = 0 WHERE slot = ? AND state != 'delivered'",
                arguments: [sealed, slot]
            )
        }
    }

    /// Counts a failed delivery attempt, up to a cap.
    /// - Returns: the attempts now counted.
    func countOutboxFailure(id: String, cap: Int) throws -> Int {
        let slot = outboxSlot(id)
        return try database.write { db in
            try db.execute(
                sql: "UPDATE outbox SET attempts = MIN(attempts + 1, ?) WHERE slot = ?",
                arguments: [cap, slot]
            )
            return try Int.fetchOne(db, sql: "SELECT attempts FROM outbox WHERE slot = ?", arguments: [slot]) ?? 0
        }
    }

    // MARK: Schema

    /// Adds the scope columns to a table written before they existed.
    static func migrateOutboxScope(_ db: Database) throws {
        let columns = Set(try db.columns(in: "outbox").map(\.name))
        if !columns.contains("namespace") { try db.execute(sql: "ALTER TABLE outbox ADD COLUMN namespace TEXT") }
        if !columns.contains("owner") { try db.execute(sql: "ALTER TABLE outbox ADD COLUMN owner TEXT") }
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS outbox_scope ON outbox(namespace, owner, state, seq)")
    }

    /// Gives rows written before scopes existed the scope their id names. Two formats were written then: the key
    /// vault's `keyvault|<user>|spend|<id>` and the SDK's `<user>|<transaction>`. A row that cannot be opened, or
    /// whose id has neither form, keeps no scope and is counted as unreadable by every scope's reader.
    static func adoptUnscopedOutboxRows(_ db: Database, sealingKey: SymmetricKey, namingKey: SymmetricKey) throws {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT slot, payload FROM outbox WHERE namespace IS NULL AND length(payload) > 0"
        )
        for row in rows {
            let slot: String = row["slot"]
            guard let plain = try? openSealed(row["payload"], slot: slot, key: sealingKey),
                let entry = try? JSONCoding.decoder.decode(SealedOutbox.self, from: plain),
                let (namespace, owner) = legacyScope(of: entry.id)
            else { continue }
            try db.execute(
                sql: "UPDATE outbox SET namespace = ?, owner = ? WHERE slot = ?",
                arguments: [namespace, slotName("outbox.owner:" + owner, namingKey: namingKey), slot]
            )
        }
    }

    /// The namespace and owner of an id in one of the formats written before scopes existed.
    static func legacyScope(of id: String) -> (namespace: String, owner: String)? {
        let parts = id.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        if parts[0] == "keyvault", parts.count >= 4 { return ("keyvault", String(parts[1])) }
        return ("opencat", String(parts[0]))
    }
}

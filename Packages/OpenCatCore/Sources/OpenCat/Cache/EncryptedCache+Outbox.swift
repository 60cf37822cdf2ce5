public import Foundation
import GRDB
import Logging
import OpenCatCore

/// The durable outbox: entries written before a delivery is attempted, sealed like every value, keyed by an
/// HMAC of their id, and kept after delivery (payload erased) so the same id is never delivered twice.
extension EncryptedCache {
    /// Adds an entry unless one with the same id exists (pending, delivered or rejected).
    /// - Returns: whether the entry was added.
    @discardableResult
    public func enqueue(id: String, payload: Data) throws -> Bool {
        let slot = slotName("outbox:" + id)
        do {
            let sealed = try seal(try JSONCoding.encoder.encode(SealedOutbox(id: id, payload: payload)), slot: slot)
            return try database.write { db in
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO outbox(slot, payload, state, attempts, seq) VALUES (?, ?, 'pending', 0, (SELECT IFNULL(MAX(seq), 0) + 1 FROM outbox))",
                    arguments: [slot, sealed]
                )
                return db.changesCount > 0
            }
        } catch {
            throw OpenCatError(.cache, "cannot write to the outbox: \(Self.describe(error))")
        }
    }

    /// The pending entries, oldest first. Entries that cannot be opened are skipped (and logged), never deleted.
    public func pendingOutbox() throws -> [OutboxEntry] {
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT slot, payload, attempts FROM outbox WHERE state = 'pending' ORDER BY seq")
        }
        return rows.compactMap { row in
            let slot: String = row["slot"]
            guard let plain = try? open(row["payload"], slot: slot),
                let entry = try? JSONCoding.decoder.decode(SealedOutbox.self, from: plain)
            else {
                logger.error("outbox entry unreadable; kept in place", metadata: ["slot": "\(slot.prefix(12))"])
                return nil
            }
            return OutboxEntry(id: entry.id, payload: entry.payload, attempts: row["attempts"])
        }
    }

    /// The state of an entry, or `nil` if there is none with that id.
    public func outboxState(id: String) throws -> OutboxState? { try outboxEntry(id: id)?.state }

    /// The state and counted failed attempts of an entry, or `nil` if there is none with that id.
    public func outboxEntry(id: String) throws -> (state: OutboxState, attempts: Int)? {
        let slot = slotName("outbox:" + id)
        let row = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT state, attempts FROM outbox WHERE slot = ?", arguments: [slot])
        }
        guard let row, let state = OutboxState(rawValue: row["state"]) else { return nil }
        return (state, row["attempts"])
    }

    /// Marks an entry delivered or rejected. A delivered entry's payload is erased (the id stays, as an HMAC, so
    /// it is never delivered again); a rejected one keeps its payload, sealed, for diagnosis and a later retry.
    public func complete(id: String, as state: OutboxState) throws {
        let slot = slotName("outbox:" + id)
        try database.write { db in
            if state == .delivered {
                try db.execute(
                    sql: "UPDATE outbox SET state = ?, payload = X'' WHERE slot = ?",
                    arguments: [state.rawValue, slot]
                )
            } else {
                try db.execute(sql: "UPDATE outbox SET state = ? WHERE slot = ?", arguments: [state.rawValue, slot])
            }
        }
    }

    /// Makes a rejected or stalled entry pending again with a fresh payload and no counted attempts (an explicit
    /// new attempt: a purchase, a restore). A delivered entry stays delivered.
    public func reopen(id: String, payload: Data) throws {
        let slot = slotName("outbox:" + id)
        let sealed = try seal(try JSONCoding.encoder.encode(SealedOutbox(id: id, payload: payload)), slot: slot)
        try database.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'pending', payload = ?, attempts = 0 WHERE slot = ? AND state != 'delivered'",
                arguments: [sealed, slot]
            )
        }
    }

    /// Pending entries that cannot be opened (sealed with another key, damaged): kept in place, never handed
    /// out, and counted here so they are not lost silently.
    public func unreadableOutboxCount() throws -> Int {
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT slot, payload FROM outbox WHERE state = 'pending'")
        }
        return rows.filter { row in
            let slot: String = row["slot"]
            guard let plain = try? open(row["payload"], slot: slot) else { return true }
            return (try? JSONCoding.decoder.decode(SealedOutbox.self, from: plain)) == nil
        }.count
    }

    /// Counts a failed delivery attempt, up to a cap.
    /// - Returns: the attempts now counted.
    @discardableResult
    public func recordFailedAttempt(id: String, cap: Int = .max) throws -> Int {
        let slot = slotName("outbox:" + id)
        return try database.write { db in
            try db.execute(
                sql: "UPDATE outbox SET attempts = MIN(attempts + 1, ?) WHERE slot = ?",
                arguments: [cap, slot]
            )
            return try Int.fetchOne(db, sql: "SELECT attempts FROM outbox WHERE slot = ?", arguments: [slot]) ?? 0
        }
    }
}

import Crypto
import Foundation
import GRDB
import OpenCatCore

/// Recovery from a damaged cache file: what can still be read of the outbox is carried over to the new file, and
/// the damaged file is moved aside (never deleted).
extension EncryptedCache {
    static func salvageOutbox(
        from quarantined: URL,
        into database: DatabaseQueue,
        sealingKey: SymmetricKey,
        namingKey: SymmetricKey
    ) -> (salvaged: Int, lost: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        guard let old = try? DatabaseQueue(path: quarantined.path, configuration: configuration),
            let rows = try? old.read({ db in
                // A file written before scopes existed has no scope columns: its rows are adopted below.
                let scoped = try db.columns(in: "outbox").contains { $0.name == "namespace" }
                let scope = scoped ? "namespace, owner" : "NULL AS namespace, NULL AS owner"
                return try Row.fetchAll(
                    db,
                    sql: "SELECT slot, payload, attempts, \(scope) FROM outbox WHERE state = 'pending' ORDER BY seq"
                )
            })
        else { return (0, 0) }
        var salvaged = 0
        var lost = 0
        for row in rows {
            let slot: String = row["slot"]
            let payload: Data = row["payload"]
            guard (try? openSealed(payload, slot: slot, key: sealingKey)) != nil else {
                lost += 1
                continue
            }
            let inserted: Bool? = try? database.write { db in
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO outbox(slot, payload, state, attempts, seq, namespace, owner)
                        VALUES (?, ?, 'pending', ?, (SELECT IFNULL(MAX(seq), 0) + 1 FROM outbox), ?, ?)
                        """,
                    arguments: [
                        slot, payload, row["attempts"] as Int, row["namespace"] as String?, row["owner"] as String?,
                    ]
                )
                return db.changesCount > 0
            }
            if inserted == true { salvaged += 1 } else { lost += 1 }
        }
        _ = try? database.write { db in
            try adoptUnscopedOutboxRows(db, sealingKey: sealingKey, namingKey: namingKey)
        }
        return (salvaged, lost)
    }

    static func quarantineURL(for url: URL, now: Date) -> URL {
        let stamp = Int64(now.timeIntervalSince1970 * 1000)
        var candidate = url.appendingPathExtension("corrupt-\(stamp)")
        var suffix = 1
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = url.appendingPathExtension("corrupt-\(stamp)-\(suffix)")
            suffix += 1
        }
        return candidate
    }

    static func moveAside(_ url: URL, to destination: URL) throws {
        try FileManager.default.moveItem(at: url, to: destination)
        for sidecar in ["-wal", "-shm", "-journal"] {
            let path = url.path + sidecar
            if FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.moveItem(atPath: path, toPath: destination.path + sidecar)
            }
        }
    }
}

public import Foundation
import GRDB

/// The SQLite store (GRDB): one table `llm_keys(user_id PRIMARY KEY, ciphertext, key_id, updated_at)`, the file
/// created owner-only. Right for one backend instance; several share `PostgresLLMKeyStore`.
public final class SQLiteLLMKeyStore: LLMKeyStore, Sendable {
    let database: DatabasePool

    /// Opens (or creates) the store at a file.
    public init(fileURL: URL) throws(LLMKeyError) {
        do {
            if !FileManager.default.fileExists(atPath: fileURL.path) {
                _ = FileManager.default.createFile(
                    atPath: fileURL.path,
                    contents: nil,
                    attributes: [.posixPermissions: 0o600]
                )
            }
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            database = try DatabasePool(path: fileURL.path, configuration: configuration)
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS llm_keys (
                            user_id TEXT PRIMARY KEY NOT NULL, ciphertext TEXT NOT NULL, key_id TEXT NOT NULL,
                            updated_at REAL NOT NULL);
                        CREATE INDEX IF NOT EXISTS llm_keys_key_id ON llm_keys(key_id);
                        """
                )
            }
        } catch {
            throw LLMKeyError(.storage, "the SQLite key store cannot be opened")
        }
    }

    /// The sealed row of a user, if any. Throws `.storage` when the database cannot be read.
    public func ciphertext(for userId: String) async throws(LLMKeyError) -> String? {
        do {
            return try await database.read { db in
                try String.fetchOne(db, sql: "SELECT ciphertext FROM llm_keys WHERE user_id = ?", arguments: [userId])
            }
        } catch { throw LLMKeyError(.storage, "the key store cannot be read (\(Self.describe(error)))") }
    }

    /// Compare-and-set of a user's row in one write transaction (nil deletes); returns whether it wrote. Throws
    /// `.storage` when the database cannot be written.
    public func replace(userId: String, expected: String?, with ciphertext: String?) async throws(LLMKeyError) -> Bool {
        do {
            return try await database.write { db in
                let current = try String.fetchOne(
                    db,
                    sql: "SELECT ciphertext FROM llm_keys WHERE user_id = ?",
                    arguments: [userId]
                )
                guard current == expected else { return false }
                if let ciphertext {
                    try db.execute(
                        sql: """
                            INSERT INTO llm_keys(user_id, ciphertext, key_id, updated_at) VALUES (?, ?, ?, ?)
                            ON CONFLICT(user_id) DO UPDATE SET ciphertext = excluded.ciphertext,
                                key_id = excluded.key_id, updated_at = excluded.updated_at
                            """,
                        arguments: [
                            userId, ciphertext, LLMKeyCipher.keyId(of: ciphertext) ?? "",
                            Date().timeIntervalSince1970,
                        ]
                    )
                } else {
                    try db.execute(sql: "DELETE FROM llm_keys WHERE user_id = ?", arguments: [userId])
                }
                return true
            }
        } catch { throw LLMKeyError(.storage, "the key store cannot be written (\(Self.describe(error)))") }
    }

    /// Up to `limit` rows whose master key id is not `keyId`, after `userId` in user order (for a re-wrap). Throws
    /// `.storage` when the database cannot be read.
    public func rows(notSealedWith keyId: String, after userId: String?, limit: Int) async throws(LLMKeyError)
        -> [(userId: String, ciphertext: String)]
    {
        do {
            return try await database.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT user_id, ciphertext FROM llm_keys WHERE key_id != ? AND (? OR user_id > ?)
                        ORDER BY user_id LIMIT ?
                        """,
                    arguments: [keyId, userId == nil, userId ?? "", limit]
                ).map { (userId: $0["user_id"], ciphertext: $0["ciphertext"]) }
            }
        } catch { throw LLMKeyError(.storage, "the key store cannot be read (\(Self.describe(error)))") }
    }

    /// A database error's code and message: no SQL arguments (they hold user ids and ciphertext).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return String(describing: type(of: error)) }
        return "SQLite \(error.resultCode): \(error.message ?? "")"
    }
}

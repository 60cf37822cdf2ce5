import Foundation
public import LLMKeyResolver
import Logging
public import PostgresNIO

/// The PostgreSQL store (postgres-nio): the same table as SQLite's, shared by several backend instances. Every write
/// is one compare-and-set statement, so concurrent instances never lose an update.
///
/// Run the client (`try await store.client.run()` in a task or a service group) while the store is used.
public final class PostgresLLMKeyStore: LLMKeyStore, Sendable {
    /// The PostgreSQL client; run it (`client.run()`) while the store is used.
    public let client: PostgresClient
    /// The table (default `llm_keys`).
    public let table: String

    /// A store over a client (its `run()` must be running).
    /// - Throws: `LLMKeyError` `.misconfigured` for a table name that is not `[a-z_][a-z0-9_]*`.
    public init(client: PostgresClient, table: String = "llm_keys") throws(LLMKeyError) {
        guard let first = table.utf8.first, (0x61...0x7A).contains(first) || first == 0x5F, table.utf8.count <= 63,
            table.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else { throw LLMKeyError(.misconfigured, "the table name must be [a-z_][a-z0-9_]*") }
        self.client = client
        self.table = table
    }

    /// A store over a client it makes from a configuration: TLS (`.disable`, `.prefer(…)`, `.require(…)` with
    /// NIOSSL's `TLSConfiguration`), the password and the server name are the configuration's. Run
    /// `store.client.run()` while the store is used. `opencat-server llm-keys` builds the configuration from its
    /// `--database…` flags.
    /// - Throws: `LLMKeyError` `.misconfigured` for a table name that is not `[a-z_][a-z0-9_]*`.
    public convenience init(
        configuration: PostgresClient.Configuration,
        table: String = "llm_keys",
        logger: Logger
    ) throws(LLMKeyError) {
        try self.init(client: PostgresClient(configuration: configuration, backgroundLogger: logger), table: table)
    }

    /// A client for a URL `postgres://user:password@host:port/database` (TLS off: for loopback or a private network;
    /// for TLS, build a `PostgresClient.Configuration` and use ``init(configuration:table:logger:)``).
    /// - Throws: `LLMKeyError` `.misconfigured` for a URL that is not one.
    public static func client(url text: String, logger: Logger) throws(LLMKeyError) -> PostgresClient {
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
            let host = url.host, let user = url.user, !url.path.dropFirst().isEmpty
        else { throw LLMKeyError(.misconfigured, "expected postgres://user:password@host:port/database") }
        let configuration = PostgresClient.Configuration(
            host: host,
            port: url.port ?? 5432,
            username: user,
            password: url.password,
            database: String(url.path.dropFirst()),
            tls: .disable
        )
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Creates the table if it is missing.
    public func migrate() async throws(LLMKeyError) {
        try await run {
            try await client.query(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                    user_id TEXT PRIMARY KEY, ciphertext TEXT NOT NULL, key_id TEXT NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """
            )
            try await client.query(
                "CREATE INDEX IF NOT EXISTS \(unescaped: table)_key_id ON \(unescaped: table)(key_id)"
            )
        }
    }

    /// The sealed row of a user, if any. Throws `.storage` when the database cannot be read.
    public func ciphertext(for userId: String) async throws(LLMKeyError) -> String? {
        try await run {
            let rows = try await client.query("SELECT ciphertext FROM \(unescaped: table) WHERE user_id = \(userId)")
            for try await ciphertext in rows.decode(String.self) { return ciphertext }
            return nil
        }
    }

    /// Compare-and-set of a user's row in one statement (nil deletes); returns whether it wrote. Throws `.storage` when
    /// the database cannot be written.
    public func replace(userId: String, expected: String?, with ciphertext: String?) async throws(LLMKeyError) -> Bool {
        try await run {
            let rows: PostgresRowSequence
            switch (expected, ciphertext) {
            case (nil, let new?):
                let keyId = LLMKeyCipher.keyId(of: new) ?? ""
                rows = try await client.query(
                    """
                    INSERT INTO \(unescaped: table)(user_id, ciphertext, key_id) VALUES (\(userId), \(new), \(keyId))
                    ON CONFLICT (user_id) DO NOTHING RETURNING user_id
                    """
                )
            case (let old?, let new?):
                let keyId = LLMKeyCipher.keyId(of: new) ?? ""
                rows = try await client.query(
                    """
                    UPDATE \(unescaped: table) SET ciphertext = \(new), key_id = \(keyId), updated_at = now()
                    WHERE user_id = \(userId) AND ciphertext = \(old) RETURNING user_id
                    """
                )
            case (let old?, nil):
                rows = try await client.query(
                    "DELETE FROM \(unescaped: table) WHERE user_id = \(userId) AND ciphertext = \(old) RETURNING user_id"
                )
            case (nil, nil):
                let existing = try await client.query(
                    "SELECT user_id FROM \(unescaped: table) WHERE user_id = \(userId)"
                )
                for try await _ in existing.decode(String.self) { return false }
                return true
            }
            for try await _ in rows.decode(String.self) { return true }
            return false
        }
    }

    /// Up to `limit` rows whose master key id is not `keyId`, after `userId` in user order (for a re-wrap). Throws
    /// `.storage` when the database cannot be read.
    public func rows(notSealedWith keyId: String, after userId: String?, limit: Int) async throws(LLMKeyError)
        -> [(userId: String, ciphertext: String)]
    {
        try await run {
            let after = userId ?? ""
            let first = userId == nil
            let rows = try await client.query(
                """
                SELECT user_id, ciphertext FROM \(unescaped: table) WHERE key_id <> \(keyId) AND (\(first) OR user_id > \(after))
                ORDER BY user_id LIMIT \(limit)
                """
            )
            var result: [(userId: String, ciphertext: String)] = []
            for try await (user, ciphertext) in rows.decode((String, String).self) { result.append((user, ciphertext)) }
            return result
        }
    }

    /// Runs a database operation; any failure is a storage error naming the server's SQLSTATE, never the query's
    /// values (they hold user ids and ciphertext).
    private func run<T>(_ operation: () async throws -> T) async throws(LLMKeyError) -> T {
        do { return try await operation() } catch let error as PSQLError {
            throw LLMKeyError(
                .storage,
                "PostgreSQL: \(error.code)\(error.serverInfo?[.sqlState].map { " SQLSTATE \($0)" } ?? "")"
            )
        } catch {
            throw LLMKeyError(.storage, "PostgreSQL: \(type(of: error))")
        }
    }
}

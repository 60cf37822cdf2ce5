public import Foundation

/// A value bound to, or read from, a ledger statement: the four types both SQLite and PostgreSQL store the same way.
public enum SQLValue: Sendable, Hashable {
    /// An integer (balances, amounts, cursors).
    case integer(Int64)
    /// Text (ids, kinds, references).
    case text(String)
    /// A floating-point value as the database returns one (timestamps in seconds); never money or keys.
    case real(Double)
    /// SQL `NULL`.
    case null

    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        case .text(let text): Int64(text)
        case .null: nil
        }
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// One result row, by column name.
public typealias SQLRow = [String: SQLValue]

/// A connection inside one ledger transaction. Statements use `?` placeholders; each backend translates them.
public protocol LedgerConnection: Sendable {
    /// The SQL dialect the connection speaks.
    var dialect: SQLDialect { get }

    /// Runs a statement and returns its rows (empty for statements without `RETURNING`).
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
}

/// Where the server keeps its ledger: a database that runs a closure in one transaction. Every operation of the
/// ledger (``LedgerStore``'s extension) is written once over this, so SQLite and PostgreSQL apply the same rules.
///
/// `locking` names the users whose balances the transaction may lower: a backend serialises transactions that
/// lock the same user (SQLite serialises every writer; PostgreSQL takes a transaction-scoped advisory lock per user,
/// in a fixed order so two transactions never wait on each other).
public protocol LedgerStore: WalletRepository, RedemptionRepository, SubscriberRepository, WebSessionRepository,
    WebOrderRepository, SalesAuditRepository, ServerStateRepository, WebhookRepository
{
    /// `sqlite` or `postgresql`.
    var dialect: SQLDialect { get }
    /// The server's clock.
    var now: Date { get }
    /// Runs `body` in one transaction: all of it commits or none of it does. A ``LedgerError`` thrown by `body`
    /// rolls back and is rethrown as is; any other failure becomes ``LedgerError/Code/storage``.
    func transaction<T: Sendable>(
        locking users: [String],
        _ body: @Sendable (any LedgerConnection) async throws -> T
    ) async throws(LedgerError) -> T

    /// Whether the database answers, as cheaply as the backend allows (what `GET /ready` checks): no write lock, no
    /// transaction where the backend can avoid one.
    /// - Throws: ``LedgerError`` with ``LedgerError/Code/storage`` when it does not.
    func ping() async throws(LedgerError)
}

/// The SQL dialect of a ``LedgerStore``.
public enum SQLDialect: String, Sendable {
    /// SQLite (`SQLiteLedgerStore`): one process, one writer at a time.
    case sqlite
    /// PostgreSQL (`PostgresLedgerStore`): several instances on one database.
    case postgresql
}

extension LedgerStore {
    /// The default ping: a transaction that runs `SELECT 1`.
    public func ping() async throws(LedgerError) {
        _ = try await transaction(locking: []) { connection in try await connection.query("SELECT 1", []) }
    }
}

extension LedgerConnection {
    /// Takes a lock until the transaction ends (PostgreSQL: an advisory lock; SQLite's one writer holds them all):
    /// for a lock decided inside a transaction, after the ones ``LedgerStore/transaction(locking:_:)`` took.
    /// `shared`: readers share it, and wait only for a transaction that holds it alone.
    package func lock(_ name: String, shared: Bool = false) async throws {
        guard dialect == .postgresql else { return }
        let function = shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
        try await execute("SELECT \(function)(hashtextextended(?, 0))", name.sql)
    }

    package func rows(_ sql: String, _ arguments: SQLValue...) async throws -> [SQLRow] {
        try await query(sql, arguments)
    }

    package func execute(_ sql: String, _ arguments: SQLValue...) async throws {
        try await query(sql, arguments)
    }

    func integer(_ sql: String, _ arguments: SQLValue...) async throws -> Int64 {
        let rows = try await query(sql, arguments)
        return rows.first?.values.first?.integer ?? 0
    }
}

extension String {
    package var sql: SQLValue { .text(self) }
}

extension Optional where Wrapped == String {
    package var sql: SQLValue { map(SQLValue.text) ?? .null }
}

extension Int64 {
    package var sql: SQLValue { .integer(self) }
}

extension Date {
    package var sql: SQLValue { .real(timeIntervalSince1970) }
}

/// The ledger's schema, one migration list per dialect; both create the same tables and constraints.
package enum LedgerSchema {
    package static func migrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        baseMigrations(dialect) + laterMigrations(dialect)
    }

    /// v1–v2: entries, redemptions, idempotency, licenses, subscribers.
    static func baseMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let serial = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v1",
                [
                    """
                    CREATE TABLE IF NOT EXISTS ledger_entries (
                        seq \(serial), id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, amount \(integer) NOT NULL,
                        kind TEXT NOT NULL, reference TEXT, app TEXT, idempotency_key TEXT, created_at \(real) NOT NULL,
                        UNIQUE (user_id, idempotency_key))
                    """,
                    "CREATE INDEX IF NOT EXISTS ledger_entries_user ON ledger_entries(user_id, seq)",
                    """
                    CREATE TABLE IF NOT EXISTS redemptions (
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, user_id TEXT NOT NULL, entry_id TEXT NOT NULL,
                        PRIMARY KEY (store, transaction_id))
                    """,
                ]
            ),
            (
                "v2",
                [
                    "ALTER TABLE redemptions ADD COLUMN refunded_at \(real)",
                    """
                    CREATE TABLE licenses (
                        key_value TEXT PRIMARY KEY, user_id TEXT NOT NULL, plan TEXT NOT NULL, license TEXT NOT NULL,
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, created_at \(real) NOT NULL,
                        revoked_at \(real))
                    """,
                    "CREATE INDEX licenses_user ON licenses(user_id)",
                    "CREATE INDEX licenses_transaction ON licenses(store, transaction_id)",
                    """
                    CREATE TABLE unlocks (
                        user_id TEXT NOT NULL, app TEXT NOT NULL, feature TEXT NOT NULL, entry_id TEXT,
                        created_at \(real) NOT NULL, PRIMARY KEY (user_id, app, feature))
                    """,
                    """
                    CREATE TABLE subscribers (app_user_id TEXT PRIMARY KEY, first_seen_at \(real) NOT NULL)
                    """,
                    """
                    CREATE TABLE subscriber_transactions (
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, app_user_id TEXT NOT NULL,
                        original_transaction_id TEXT, info TEXT NOT NULL, updated_at \(real) NOT NULL,
                        PRIMARY KEY (store, transaction_id))
                    """,
                    "CREATE INDEX subscriber_transactions_user ON subscriber_transactions(app_user_id)",
                    """
                    CREATE INDEX subscriber_transactions_original
                    ON subscriber_transactions(store, original_transaction_id)
                    """,
                    """
                    CREATE TABLE processed_events (
                        source TEXT NOT NULL, event_id TEXT NOT NULL, processed_at \(real) NOT NULL,
                        PRIMARY KEY (source, event_id))
                    """,
                ]
            ),
        ] + webMigrations(dialect)
    }

    /// v3–v4: the web portal and the console (sessions, orders, sign-in links, audit, promotions).
    static func webMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v3",
                [
                    // Store transactions refunded, whether or not they were redeemed yet: a refunded proof (an old
                    // App Store JWS verifies offline as paid) can never be redeemed afterwards.
                    """
                    CREATE TABLE store_refunds (
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, refunded_at \(real) NOT NULL,
                        PRIMARY KEY (store, transaction_id))
                    """
                ]
            ),
            (
                "v4",
                [
                    // The keys refunds have taken back for a redemption so far (a partial refund takes its share,
                    // a later one the rest); `refunded_at` is set only when the whole purchase is refunded.
                    "ALTER TABLE redemptions ADD COLUMN refunded_keys \(integer) NOT NULL DEFAULT 0",
                    // An idempotency key is bound to one operation and one body, per user.
                    """
                    CREATE TABLE idempotency_keys (
                        user_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, operation TEXT NOT NULL,
                        fingerprint TEXT NOT NULL, created_at \(real) NOT NULL,
                        PRIMARY KEY (user_id, idempotency_key))
                    """,
                    // Steam refunds are read from the MicroTxn report: where the last reconciliation stopped.
                    """
                    CREATE TABLE reconciliation_cursors (
                        source TEXT PRIMARY KEY, cursor TEXT NOT NULL, updated_at \(real) NOT NULL)
                    """,
                    "CREATE INDEX IF NOT EXISTS ledger_entries_reference ON ledger_entries(user_id, kind, reference)",
                ]
            ),
        ]
    }

    /// v5–v6: what the money rounds added first (key lots among them).
    static func laterMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let serial = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v5",
                [
                    // The web portal and the console: single-use sign-in links and sessions (by SHA-256, never the
                    // secret), the web orders (a Checkout Session or a PayPal order per purchase), promotional
                    // entitlements and the operators' audit log.
                    """
                    CREATE TABLE web_sign_in_links (
                        token_sha256 TEXT PRIMARY KEY, email TEXT NOT NULL, created_at \(real) NOT NULL,
                        expires_at \(real) NOT NULL, used_at \(real))
                    """,
                    """
                    CREATE TABLE web_sessions (
                        id_sha256 TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL, csrf TEXT NOT NULL,
                        created_at \(real) NOT NULL, expires_at \(real) NOT NULL, ended_at \(real))
                    """,
                    """
                    CREATE TABLE web_orders (
                        store TEXT NOT NULL, reference TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT NOT NULL,
                        product_id TEXT NOT NULL, quantity \(integer) NOT NULL, amount TEXT NOT NULL,
                        currency TEXT NOT NULL, state TEXT NOT NULL, transaction_id TEXT,
                        created_at \(real) NOT NULL, updated_at \(real) NOT NULL, PRIMARY KEY (store, reference))
                    """,
                    "CREATE INDEX web_orders_user ON web_orders(user_id)",
                    "CREATE INDEX web_orders_transaction ON web_orders(store, transaction_id)",
                    """
                    CREATE TABLE promotional_entitlements (
                        id TEXT PRIMARY KEY, app_user_id TEXT NOT NULL, entitlement TEXT NOT NULL,
                        starts_at \(real) NOT NULL, expires_at \(real) NOT NULL, granted_by TEXT NOT NULL,
                        reason TEXT NOT NULL, revoked_at \(real))
                    """,
                    "CREATE INDEX promotional_entitlements_user ON promotional_entitlements(app_user_id)",
                    // Sales of key packs with their exact price (revenue per store, day and currency).
                    """
                    CREATE TABLE sales (
                        store TEXT NOT NULL, transaction_id TEXT NOT NULL, user_id TEXT NOT NULL,
                        product_id TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
                        sold_at \(real) NOT NULL, PRIMARY KEY (store, transaction_id))
                    """,
                    """
                    CREATE TABLE audit_log (
                        seq \(serial), operator TEXT NOT NULL, action TEXT NOT NULL, subject TEXT NOT NULL,
                        reason TEXT NOT NULL, detail TEXT, created_at \(real) NOT NULL)
                    """,
                ]
            ),
            (
                "v6",
                [
                    // Key lots: who holds the keys of which purchase (Ledger/KeyLots.swift). Balances from before
                    // are one lot with no source each.
                    """
                    CREATE TABLE key_lots (
                        seq \(serial), user_id TEXT NOT NULL, source TEXT, amount \(integer) NOT NULL,
                        remaining \(integer) NOT NULL CHECK (remaining >= 0), created_at \(real) NOT NULL)
                    """,
                    "CREATE INDEX key_lots_user ON key_lots(user_id, seq) WHERE remaining > 0",
                    "CREATE INDEX key_lots_source ON key_lots(source) WHERE remaining > 0",
                    """
                    INSERT INTO key_lots (user_id, source, amount, remaining, created_at)
                    SELECT user_id, NULL, SUM(amount), SUM(amount), 0 FROM ledger_entries
                    GROUP BY user_id HAVING SUM(amount) > 0
                    """,
                ]
            ),
        ] + serialMigrations(dialect)
    }

    /// v7 onwards: single-use proofs, store times, server secrets, revocation serials.
    static func serialMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v7",
                [
                    // Proofs a server accepts once (a Steam session ticket), by SHA-256 of the proof, never the proof.
                    """
                    CREATE TABLE single_use_proofs (
                        kind TEXT NOT NULL, digest TEXT NOT NULL, subject TEXT NOT NULL, used_at \(real) NOT NULL,
                        PRIMARY KEY (kind, digest))
                    """
                ]
            ),
            (
                "v8",
                [
                    // The store's own time of the state a transaction row holds (Apple's signedDate, the HTTP Date of
                    // a re-read): an older notification never overwrites a newer state.
                    "ALTER TABLE subscriber_transactions ADD COLUMN state_at \(real)"
                ]
            ),
            (
                "v9",
                [
                    // Secrets every instance of one server shares, made once (the anonymous forms' CSRF key).
                    """
                    CREATE TABLE server_secrets (name TEXT PRIMARY KEY, secret TEXT NOT NULL, created_at \(real) NOT NULL)
                    """
                ]
            ),
            (
                "v10",
                [
                    // Each revocation's serial: the revocation list's serial is the newest, never a count of rows
                    // (a database restored from a backup would count fewer). Revocations before it take their time.
                    "ALTER TABLE licenses ADD COLUMN revocation_serial \(integer)",
                    """
                    UPDATE licenses SET revocation_serial = CAST(revoked_at * 1000 AS \(integer))
                    WHERE revoked_at IS NOT NULL
                    """,
                ]
            ),
        ] + webhookMigrations(dialect)
    }

    /// v11: events out (Webhooks/): the integrators' endpoints, the outbox of events written in the transaction of
    /// the change that causes them, one delivery per event and endpoint; and each subscription's price.
    static func webhookMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let serial = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v11",
                [
                    // `event_types`: `*` or `,type,type,`; the secrets as `whsec_…` (they sign, so they are kept);
                    // `failing_since`: the first failure since the last 2xx.
                    """
                    CREATE TABLE webhook_endpoints (
                        id TEXT PRIMARY KEY, app TEXT NOT NULL, url TEXT NOT NULL, event_types TEXT NOT NULL,
                        secret TEXT NOT NULL, previous_secret TEXT, previous_secret_until \(real),
                        origin TEXT NOT NULL, created_at \(real) NOT NULL, disabled_at \(real), disabled_reason TEXT,
                        failing_since \(real))
                    """,
                    """
                    CREATE TABLE webhook_events (
                        seq \(serial), id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, app_user_id TEXT,
                        payload TEXT NOT NULL, created_at \(real) NOT NULL)
                    """,
                    // `next_attempt_at` is also the lease: a claim moves it past the attempt's timeout, so an
                    // instance that dies mid-delivery leaves it to another one, later, with the same webhook-id.
                    """
                    CREATE TABLE webhook_deliveries (
                        seq \(serial), event_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, state TEXT NOT NULL,
                        attempts \(integer) NOT NULL DEFAULT 0, next_attempt_at \(real) NOT NULL,
                        last_attempt_at \(real), last_status \(integer), last_error TEXT, delivered_at \(real),
                        created_at \(real) NOT NULL, UNIQUE (event_id, endpoint_id))
                    """,
                    """
                    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending'
                    """,
                    "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, seq)",
                    "ALTER TABLE subscriber_transactions ADD COLUMN price TEXT",
                    "ALTER TABLE subscriber_transactions ADD COLUMN currency TEXT",
                ]
            )
        ] + modelMigrations(dialect)
    }

    /// v12: what the written models (docs/SECURITY.md, "The key model") need of the schema.
    static func modelMigrations(_ dialect: SQLDialect) -> [(name: String, sql: [String])] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return [
            (
                "v12",
                [
                    // The share that brought a lot into a holding account (`pending:<email>`): taking a share back
                    // returns exactly its own keys that still wait, whoever else shared to the same address.
                    "ALTER TABLE key_lots ADD COLUMN via TEXT",
                    "CREATE INDEX key_lots_via ON key_lots(via) WHERE via IS NOT NULL AND remaining > 0",
                    // The environment a key pack was bought in (`production`, `sandbox`): its refund event says it.
                    "ALTER TABLE redemptions ADD COLUMN environment TEXT",
                    // Analytics by definition: packs on a sale's order, and what the store refunded of it (cumulative).
                    "ALTER TABLE sales ADD COLUMN quantity \(integer) NOT NULL DEFAULT 1",
                    "ALTER TABLE sales ADD COLUMN refunded_amount TEXT",
                    // The order model (Ledger/WebOrderModel.swift): why an order needs attention, and when the
                    // reconciler asks its store next; orders from before are checked a minute after they were made.
                    "ALTER TABLE web_orders ADD COLUMN attention_rule TEXT",
                    "ALTER TABLE web_orders ADD COLUMN attention_detail TEXT",
                    "ALTER TABLE web_orders ADD COLUMN next_check_at \(real)",
                    "ALTER TABLE web_orders ADD COLUMN checks \(integer) NOT NULL DEFAULT 0",
                    """
                    UPDATE web_orders SET next_check_at = created_at + 60
                    WHERE state IN ('created', 'paid', 'needs_attention')
                    """,
                    "CREATE INDEX web_orders_due ON web_orders(next_check_at)",
                ]
            )
        ]
    }
}

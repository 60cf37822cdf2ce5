import Foundation

/// The outcome of a feature unlock.
public struct UnlockOutcome: Sendable, Hashable {
    /// The entry that paid for the unlock; `nil` when it was unlocked before.
    public var entryId: String?
    /// The user's balance after it, in keys.
    public var balance: Int64
    /// The feature was unlocked before: nothing was charged now.
    public var alreadyUnlocked: Bool
}

/// The outcome of a transfer of keys to another user or to the community pool.
public struct TransferOutcome: Sendable, Hashable {
    /// The sender's entry (its amount negative).
    public var entry: LedgerEntry
    /// The sender's balance after it.
    public var balance: Int64
    /// The recipient's balance after it (the pool's total for a donation).
    public var recipientBalance: Int64
    /// Whether this request only replayed an earlier one with the same idempotency key.
    public var replayed: Bool
}

/// The community pool's ledger account.
public let communityPoolAccount = "community:pool"

/// The prefix of a holding account: keys shared to an email nobody has signed in with wait in `pending:<email>`.
public let pendingAccountPrefix = "pending:"

// The ledger's operations, written once over ``LedgerStore`` for every backend. Each runs in one transaction and
// writes its entries in the same transaction as the check that allows them.
extension LedgerStore {
    /// The sum of the user's entries.
    public func balance(of userId: String) async throws(LedgerError) -> Int64 {
        try await transaction(locking: []) { connection in try await Self.balance(connection, userId) }
    }

    /// The user's entries, newest first.
    public func entries(of userId: String, limit: Int) async throws(LedgerError) -> [LedgerEntry] {
        let bounded = Int64(max(0, min(limit, 1_000)))
        return try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT id, user_id, amount, kind, reference, app, created_at FROM ledger_entries
                WHERE user_id = ? ORDER BY seq DESC LIMIT ?
                """,
                userId.sql,
                bounded.sql
            ).map(Self.entry)
        }
    }

    /// One page of the user's entries, oldest first, after the entry a cursor names (nil: from the first); the
    /// cursor of the next page is nil when this page is the last.
    ///
    /// A reader following the cursors while writes continue never skips an entry: every write of a user's entries
    /// holds that user's lock, and a page is read under the same lock, shared (PostgreSQL: an advisory lock; SQLite
    /// has one writer), so an entry whose transaction took a lower `seq` but commits later is never passed over.
    public func history(of userId: String, after cursor: Int64?, limit: Int) async throws(LedgerError) -> (
        entries: [LedgerEntry], nextCursor: Int64?
    ) {
        let bounded = max(1, min(limit, 1_000))
        let rows = try await page(of: userId, after: cursor, limit: bounded + 1)
        let page = rows.prefix(bounded)
        return (page.map(\.entry), rows.count > bounded ? page.last?.seq : nil)
    }

    /// The entries after a cursor, oldest first, and the cursor after the last of them (the same cursor when there
    /// are none): what a reader following a wallet as it changes asks for again and again.
    public func follow(_ userId: String, after cursor: Int64?, limit: Int) async throws(LedgerError) -> (
        entries: [LedgerEntry], cursor: Int64?
    ) {
        let rows = try await page(of: userId, after: cursor, limit: max(1, min(limit, 1_000)))
        return (rows.map(\.entry), rows.last?.seq ?? cursor)
    }

    private func page(of userId: String, after cursor: Int64?, limit: Int) async throws(LedgerError) -> [(
        seq: Int64, entry: LedgerEntry
    )] {
        try await transaction(locking: []) { connection in
            // Waits for the transactions writing this user's entries (they hold the lock alone).
            try await connection.lock(userId, shared: true)
            return try await connection.rows(
                """
                SELECT seq, id, user_id, amount, kind, reference, app, created_at FROM ledger_entries
                WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?
                """,
                userId.sql,
                (cursor ?? 0).sql,
                Int64(limit).sql
            ).map { (seq: $0["seq"]?.integer ?? 0, entry: Self.entry($0)) }
        }
    }

    /// Binds an idempotency key to one operation and one body, once: the first use records them, a later use with
    /// the same operation and body passes (a retry), anything else is ``LedgerError/Code/idempotencyConflict``.
    public func claimIdempotencyKey(userId: String, key: String, operation: String, fingerprint: String)
        async throws(LedgerError)
    {
        let now = now
        _ = try await transaction(locking: []) { connection in
            try await Self.claim(
                connection,
                userId: userId,
                key: key,
                operation: operation,
                fingerprint: fingerprint,
                now: now
            )
        }
    }

    /// Takes `amount` keys if the balance allows it; the same idempotency key returns the first outcome.
    public func spend(
        userId: String,
        amount: Int64,
        kind: String,
        reference: String?,
        app: String?,
        idempotencyKey: String
    ) async throws(LedgerError) -> SpendOutcome {
        try Self.check(amount: amount, userId: userId, idempotencyKey: idempotencyKey)
        let now = now
        return try await transaction(locking: [userId]) { connection in
            let fresh = try await Self.claim(
                connection,
                userId: userId,
                key: idempotencyKey,
                operation: kind,
                fingerprint: "\(amount)|\(reference ?? "")|\(app ?? "")",
                now: now
            )
            return try await Self.debit(
                connection,
                userId: userId,
                amount: amount,
                kind: kind,
                reference: reference,
                app: app,
                idempotencyKey: idempotencyKey,
                fresh: fresh,
                now: now
            ).outcome
        }
    }

    /// Unlocks an app feature for `cost` keys, once: unlocking it again charges nothing.
    public func unlock(userId: String, app: String, feature: String, cost: Int64, idempotencyKey: String)
        async throws(LedgerError) -> UnlockOutcome
    {
        guard cost >= 0, !app.isEmpty, !feature.isEmpty else {
            throw LedgerError(.invalidInput, "an unlock needs an app, a feature and a cost of zero or more")
        }
        try Self.check(amount: max(cost, 1), userId: userId, idempotencyKey: idempotencyKey)
        let now = now
        return try await transaction(locking: [userId]) { connection in
            try await Self.claim(
                connection,
                userId: userId,
                key: idempotencyKey,
                operation: "unlock",
                fingerprint: "\(app)|\(feature)",
                now: now
            )
            let existing = try await connection.rows(
                "SELECT entry_id FROM unlocks WHERE user_id = ? AND app = ? AND feature = ?",
                userId.sql,
                app.sql,
                feature.sql
            )
            if let row = existing.first {
                return UnlockOutcome(
                    entryId: row["entry_id"]?.text,
                    balance: try await Self.balance(connection, userId),
                    alreadyUnlocked: true
                )
            }
            var entryId: String?
            var balance: Int64
            if cost > 0 {
                let outcome = try await Self.debit(
                    connection,
                    userId: userId,
                    amount: cost,
                    kind: "unlock",
                    reference: feature,
                    app: app,
                    idempotencyKey: idempotencyKey,
                    now: now
                ).outcome
                entryId = outcome.entry.id
                balance = outcome.balance
            } else {
                balance = try await Self.balance(connection, userId)
            }
            try await connection.execute(
                "INSERT INTO unlocks (user_id, app, feature, entry_id, created_at) VALUES (?, ?, ?, ?, ?)",
                userId.sql,
                app.sql,
                feature.sql,
                entryId.sql,
                now.sql
            )
            return UnlockOutcome(entryId: entryId, balance: balance, alreadyUnlocked: false)
        }
    }

    /// The features of every app the user has unlocked.
    public func unlockedFeatures(of userId: String) async throws(LedgerError) -> [String: [String]] {
        try await transaction(locking: []) { connection in
            var features: [String: [String]] = [:]
            for row in try await connection.rows(
                "SELECT app, feature FROM unlocks WHERE user_id = ? ORDER BY created_at, feature",
                userId.sql
            ) {
                if let app = row["app"]?.text, let feature = row["feature"]?.text {
                    features[app, default: []].append(feature)
                }
            }
            return features
        }
    }

    /// Moves keys from one user to another (a share) or to the community pool (a donation), in one transaction;
    /// the same idempotency key returns the first outcome.
    public func transfer(
        from userId: String,
        to recipient: String,
        amount: Int64,
        kind: String,
        receivedKind: String,
        idempotencyKey: String
    ) async throws(LedgerError) -> TransferOutcome {
        try Self.check(amount: amount, userId: userId, idempotencyKey: idempotencyKey)
        guard !recipient.isEmpty, recipient != userId else {
            throw LedgerError(.invalidInput, "keys go to someone else")
        }
        let now = now
        // The recipient is locked too (its lots repay a debt it may be in), except the pool, which is never in debt.
        let locks = recipient == communityPoolAccount ? [userId] : [userId, recipient]
        return try await transaction(locking: locks) { connection in
            let fresh = try await Self.claim(
                connection,
                userId: userId,
                key: idempotencyKey,
                operation: kind,
                fingerprint: "\(amount)|\(recipient)",
                now: now
            )
            let (outcome, lots) = try await Self.debit(
                connection,
                userId: userId,
                amount: amount,
                kind: kind,
                reference: recipient,
                app: nil,
                idempotencyKey: idempotencyKey,
                fresh: fresh,
                now: now
            )
            if !outcome.replayed {
                let before = try await Self.balanceBeforeCredit(connection, recipient)
                try await Self.insert(
                    connection,
                    LedgerEntry(
                        id: Self.newEntryId(),
                        userId: recipient,
                        amount: amount,
                        kind: receivedKind,
                        reference: userId,
                        createdAt: now
                    ),
                    idempotencyKey: "received:\(outcome.entry.id)"
                )
                // Keys waiting for an address remember their share, so that taking it back returns them alone.
                let via = recipient.hasPrefix(pendingAccountPrefix) ? outcome.entry.id : nil
                try await Self.addLots(connection, userId: recipient, lots, balanceBefore: before, via: via, now: now)
                if kind == "share" {
                    var data = WebhookEventData()
                    data.appUserId = userId
                    data.keys = amount
                    // A holding account is written as the address it waits for.
                    data.recipient =
                        recipient.hasPrefix(pendingAccountPrefix)
                        ? String(recipient.dropFirst(pendingAccountPrefix.count)) : recipient
                    try await connection.enqueue(.keysShared, data, now: now)
                }
            }
            return TransferOutcome(
                entry: outcome.entry,
                balance: outcome.balance,
                recipientBalance: try await Self.balance(connection, recipient),
                replayed: outcome.replayed
            )
        }
    }

    /// Moves everything an account holds (keys shared to an email before it had an account) to a user, in one
    /// transaction; returns how many keys moved.
    public func release(_ account: String, to userId: String) async throws(LedgerError) -> Int64 {
        guard !account.isEmpty, !userId.isEmpty, account != userId else {
            throw LedgerError(.invalidInput, "keys go from one account to another")
        }
        let now = now
        return try await transaction(locking: [account, userId]) { connection in
            let held = try await Self.balance(connection, account)
            guard held > 0 else { return 0 }
            let lots = Self.filled(try await Self.takeLots(connection, userId: account, amount: held), to: held)
            let before = try await Self.balanceBeforeCredit(connection, userId)
            let id = Self.newEntryId()
            try await Self.insert(
                connection,
                LedgerEntry(
                    id: id,
                    userId: account,
                    amount: -held,
                    kind: "released",
                    reference: userId,
                    createdAt: now
                ),
                idempotencyKey: "release:\(id)"
            )
            try await Self.insert(
                connection,
                LedgerEntry(
                    id: Self.newEntryId(),
                    userId: userId,
                    amount: held,
                    kind: "received",
                    reference: account,
                    createdAt: now
                ),
                idempotencyKey: "received:\(id)"
            )
            try await Self.addLots(connection, userId: userId, lots, balanceBefore: before, now: now)
            return held
        }
    }

    /// Records the one use of a proof the server accepts once (a Steam session ticket), by its SHA-256: true the first
    /// time, false for every later use, on every instance.
    public func useOnce(kind: String, digest: String, subject: String) async throws(LedgerError) -> Bool {
        let now = now
        return try await transaction(locking: []) { connection in
            try await !connection.rows(
                """
                INSERT INTO single_use_proofs (kind, digest, subject, used_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (kind, digest) DO NOTHING RETURNING digest
                """,
                kind.sql,
                digest.sql,
                subject.sql,
                now.sql
            ).isEmpty
        }
    }

    /// A secret every instance of this server shares (by name), made from `make` the first time it is asked for and
    /// kept in the database from then on.
    public func serverSecret(_ name: String, make: @Sendable () -> String) async throws(LedgerError) -> String {
        let now = now
        let candidate = make()
        return try await transaction(locking: []) { connection in
            try await connection.execute(
                "INSERT INTO server_secrets (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                name.sql,
                candidate.sql,
                now.sql
            )
            return try await connection.rows("SELECT secret FROM server_secrets WHERE name = ?", name.sql)
                .first?["secret"]?.text ?? candidate
        }
    }

    /// Where a reconciliation job (Steam's refund report) stopped, if it ran before.
    public func reconciliationCursor(_ source: String) async throws(LedgerError) -> Date? {
        try await transaction(locking: []) { connection in
            try await connection.rows("SELECT cursor FROM reconciliation_cursors WHERE source = ?", source.sql)
                .first?["cursor"]?.text.flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Records where a reconciliation job stopped; a cursor never moves back.
    public func setReconciliationCursor(_ source: String, _ cursor: Date) async throws(LedgerError) {
        let now = now
        try await transaction(locking: ["reconciliation:\(source)"]) { connection in
            let current = try await connection.rows(
                "SELECT cursor FROM reconciliation_cursors WHERE source = ?",
                source.sql
            ).first?["cursor"]?.text.flatMap(Double.init)
            guard current.map({ cursor.timeIntervalSince1970 > $0 }) ?? true else { return }
            try await connection.execute(
                """
                INSERT INTO reconciliation_cursors (source, cursor, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at
                """,
                source.sql,
                String(cursor.timeIntervalSince1970).sql,
                now.sql
            )
        }
    }

    /// The community pool: its keys and how many users gave to it.
    public func communityPool() async throws(LedgerError) -> (totalKeys: Int64, contributors: Int64) {
        try await transaction(locking: []) { connection in
            let total = try await Self.balance(connection, communityPoolAccount)
            let contributors = try await connection.integer(
                "SELECT COUNT(DISTINCT reference) FROM ledger_entries WHERE user_id = ? AND amount > 0",
                communityPoolAccount.sql
            )
            return (total, contributors)
        }
    }

    /// The user's licenses that were not revoked, oldest first.
    public func licenses(of userId: String) async throws(LedgerError) -> [LicenseRecord] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT key_value, user_id, plan, license, store, transaction_id, created_at FROM licenses
                WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, key_value
                """,
                userId.sql
            ).map(Self.license)
        }
    }

    /// Every license ever revoked (refunds, chargebacks), by human key.
    public func revokedLicenseKeys() async throws(LedgerError) -> [String] {
        try await revocations().keys
    }

    /// Every license ever revoked, by human key, and the list's serial: the newest revocation's serial (milliseconds
    /// of its time, or one more than the serial before), never a count of rows, so it only grows as revocations are
    /// made, a database restored from an older backup signs a lower serial (which devices refuse) until its next
    /// revocation, and then a higher one than any list before.
    public func revocations() async throws(LedgerError) -> (keys: [String], serial: UInt64) {
        try await transaction(locking: []) { connection in
            let rows = try await connection.rows(
                "SELECT key_value, revocation_serial FROM licenses WHERE revoked_at IS NOT NULL ORDER BY key_value"
            )
            let serial = rows.compactMap { $0["revocation_serial"]?.integer }.max() ?? 0
            return (rows.compactMap { $0["key_value"]?.text }, UInt64(max(serial, 0)))
        }
    }

    // MARK: Helpers

    static func check(amount: Int64, userId: String, idempotencyKey: String) throws(LedgerError) {
        guard amount > 0, !userId.isEmpty, !idempotencyKey.isEmpty else {
            throw LedgerError(.invalidInput, "an operation needs a positive amount, a user and an idempotency key")
        }
    }

    /// Claims an idempotency key for one operation and body: true when this is its first use (so no entry was
    /// written under it yet), false for a retry of the same operation; another operation or body is a conflict.
    @discardableResult
    static func claim(
        _ connection: any LedgerConnection,
        userId: String,
        key: String,
        operation: String,
        fingerprint: String,
        now: Date
    ) async throws -> Bool {
        let claimed = try await connection.rows(
            """
            INSERT INTO idempotency_keys (user_id, idempotency_key, operation, fingerprint, created_at)
            VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, idempotency_key) DO NOTHING RETURNING operation
            """,
            userId.sql,
            key.sql,
            operation.sql,
            fingerprint.sql,
            now.sql
        )
        guard claimed.isEmpty else { return true }
        let earlier = try await connection.rows(
            "SELECT operation, fingerprint FROM idempotency_keys WHERE user_id = ? AND idempotency_key = ?",
            userId.sql,
            key.sql
        ).first
        guard earlier?["operation"]?.text == operation, earlier?["fingerprint"]?.text == fingerprint else {
            throw LedgerError(.idempotencyConflict, "the idempotency key was used for another operation or body")
        }
        return false
    }

    static func debit(
        _ connection: any LedgerConnection,
        userId: String,
        amount: Int64,
        kind: String,
        reference: String?,
        app: String?,
        idempotencyKey: String,
        fresh: Bool = false,
        now: Date
    ) async throws -> (outcome: SpendOutcome, lots: [KeyLot]) {
        // A key claimed just now has no entry yet: only a retry looks for the first outcome.
        if !fresh,
            let row = try await connection.rows(
                """
                SELECT id, user_id, amount, kind, reference, app, created_at FROM ledger_entries
                WHERE user_id = ? AND idempotency_key = ?
                """,
                userId.sql,
                idempotencyKey.sql
            ).first
        {
            let earlier = entry(row)
            guard earlier.amount == -amount, earlier.kind == kind, earlier.reference == reference, earlier.app == app
            else {
                throw LedgerError(.idempotencyConflict, "the idempotency key was used for another operation")
            }
            return (SpendOutcome(entry: earlier, balance: try await balance(connection, userId), replayed: true), [])
        }
        let balance = try await balance(connection, userId)
        guard balance >= amount else { throw LedgerError(.insufficientBalance, "the wallet holds \(balance) keys") }
        let entry = LedgerEntry(
            id: newEntryId(),
            userId: userId,
            amount: -amount,
            kind: kind,
            reference: reference,
            app: app,
            createdAt: now
        )
        try await insert(connection, entry, idempotencyKey: idempotencyKey)
        let lots = filled(try await takeLots(connection, userId: userId, amount: amount), to: amount)
        return (SpendOutcome(entry: entry, balance: balance - amount, replayed: false), lots)
    }

    static func balance(_ connection: any LedgerConnection, _ userId: String) async throws -> Int64 {
        try await connection.integer(
            "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS balance FROM ledger_entries WHERE user_id = ?",
            userId.sql
        )
    }

    static func insert(_ connection: any LedgerConnection, _ entry: LedgerEntry, idempotencyKey: String) async throws {
        try await connection.execute(
            """
            INSERT INTO ledger_entries (id, user_id, amount, kind, reference, app, idempotency_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            entry.id.sql,
            entry.userId.sql,
            entry.amount.sql,
            entry.kind.sql,
            entry.reference.sql,
            entry.app.sql,
            idempotencyKey.sql,
            entry.createdAt.sql
        )
    }

    static func newEntryId() -> String { "le_" + UUID().uuidString.lowercased() }

    static func entry(_ row: SQLRow) -> LedgerEntry {
        LedgerEntry(
            id: row["id"]?.text ?? "",
            userId: row["user_id"]?.text ?? "",
            amount: row["amount"]?.integer ?? 0,
            kind: row["kind"]?.text ?? "",
            reference: row["reference"]?.text,
            app: row["app"]?.text,
            createdAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
        )
    }

    static func license(_ row: SQLRow) -> LicenseRecord {
        LicenseRecord(
            keyValue: row["key_value"]?.text ?? "",
            userId: row["user_id"]?.text ?? "",
            plan: row["plan"]?.text ?? "",
            license: row["license"]?.text ?? "",
            store: row["store"]?.text ?? "",
            transactionId: row["transaction_id"]?.text ?? "",
            createdAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
        )
    }
}

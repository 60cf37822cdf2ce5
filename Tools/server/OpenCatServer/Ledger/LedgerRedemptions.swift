public import Foundation

/// A license minted for a key-pack purchase, as the ledger keeps it.
public struct LicenseRecord: Sendable, Hashable {
    /// The human key (`VUUW-…-Ln`).
    public var keyValue: String
    public var userId: String
    /// `L1`…`L9`.
    public var plan: String
    /// The signed license string (`key/…`).
    public var license: String
    public var store: String
    public var transactionId: String
    public var createdAt: Date

    public init(
        keyValue: String,
        userId: String,
        plan: String,
        license: String,
        store: String,
        transactionId: String,
        createdAt: Date
    ) {
        self.keyValue = keyValue
        self.userId = userId
        self.plan = plan
        self.license = license
        self.store = store
        self.transactionId = transactionId
        self.createdAt = createdAt
    }
}

/// What a key-pack purchase credits: the pack's keys (with its bonus) to the buyer, a share to the community pool,
/// and the licenses minted for it.
public struct KeyGrant: Sendable, Hashable {
    public var keys: Int64
    public var bonusKeys: Int64
    public var communityKeys: Int64
    public var licenses: [LicenseRecord]

    public init(keys: Int64, bonusKeys: Int64 = 0, communityKeys: Int64 = 0, licenses: [LicenseRecord] = []) {
        self.keys = keys
        self.bonusKeys = bonusKeys
        self.communityKeys = communityKeys
        self.licenses = licenses
    }
}

/// The outcome of a redemption: the buyer's entry and licenses, and whether this only replayed the buyer's own
/// earlier redemption of the same transaction.
public struct RedemptionOutcome: Sendable, Hashable {
    public var entry: LedgerEntry
    public var licenses: [LicenseRecord]
    public var communityKeys: Int64
    public var replayed: Bool
}

/// The outcome of a refund: the keys clawed back (never more than the wallet holds) and the licenses revoked.
public struct RefundOutcome: Sendable, Hashable {
    public var userId: String
    public var clawedBack: Int64
    public var revokedLicenses: Int
    /// Whether the refund had been applied before (nothing changed now).
    public var alreadyApplied: Bool
}

// Key-pack redemptions: a store transaction credited once across all users, its licenses kept, and refunds that
// revoke them and claw the keys back.
extension LedgerStore {
    /// Credits keys for a store transaction, once across all users: the pack's keys and bonus to the buyer, the
    /// community share to the pool, the licenses to the buyer. Redeeming it again as the same buyer returns what
    /// the first redemption minted (`replayed`); as anyone else, ``LedgerError/Code/alreadyRedeemed``.
    public func redeem(store: String, transactionId: String, userId: String, grant: KeyGrant)
        async throws(LedgerError) -> RedemptionOutcome
    {
        guard grant.keys + grant.bonusKeys > 0, grant.keys >= 0, grant.bonusKeys >= 0, grant.communityKeys >= 0,
            !store.isEmpty, !transactionId.isEmpty, !userId.isEmpty
        else {
            throw LedgerError(.invalidInput, "a redemption needs a store, a transaction, a user and keys")
        }
        let now = now
        return try await transaction(locking: [Self.transactionLock(store, transactionId)]) { connection in
            if try await Self.isRefunded(connection, store: store, transactionId: transactionId) {
                throw LedgerError(.refunded, "the store refunded this transaction")
            }
            let entry = LedgerEntry(
                id: Self.newEntryId(),
                userId: userId,
                amount: grant.keys + grant.bonusKeys,
                kind: "purchase",
                reference: "\(store):\(transactionId)",
                createdAt: now
            )
            let claimed = try await connection.rows(
                """
                INSERT INTO redemptions (store, transaction_id, user_id, entry_id) VALUES (?, ?, ?, ?)
                ON CONFLICT (store, transaction_id) DO NOTHING RETURNING entry_id
                """,
                store.sql,
                transactionId.sql,
                userId.sql,
                entry.id.sql
            )
            guard !claimed.isEmpty else {
                return try await Self.replayRedemption(connection, store: store, transactionId: transactionId, userId)
            }
            try await Self.insert(connection, entry, idempotencyKey: "redeem:\(store):\(transactionId)")
            if grant.communityKeys > 0 {
                try await Self.insert(
                    connection,
                    LedgerEntry(
                        id: Self.newEntryId(),
                        userId: communityPoolAccount,
                        amount: grant.communityKeys,
                        kind: "purchase_donation",
                        reference: userId,
                        createdAt: now
                    ),
                    idempotencyKey: "redeem:\(store):\(transactionId)"
                )
            }
            for license in grant.licenses {
                try await connection.execute(
                    """
                    INSERT INTO licenses (key_value, user_id, plan, license, store, transaction_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    license.keyValue.sql,
                    userId.sql,
                    license.plan.sql,
                    license.license.sql,
                    store.sql,
                    transactionId.sql,
                    now.sql
                )
            }
            return RedemptionOutcome(
                entry: entry,
                licenses: grant.licenses,
                communityKeys: grant.communityKeys,
                replayed: false
            )
        }
    }

    /// Credits `amount` keys for a store transaction (no licenses, no community share).
    public func redeem(store: String, transactionId: String, userId: String, amount: Int64)
        async throws(LedgerError) -> LedgerEntry
    {
        let outcome = try await redeem(
            store: store,
            transactionId: transactionId,
            userId: userId,
            grant: KeyGrant(keys: amount)
        )
        guard !outcome.replayed else {
            throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed")
        }
        return outcome.entry
    }

    /// Applies a store refund of a redeemed transaction, once: revokes its licenses and claws its keys back, never
    /// more than the wallet holds (keys already spent stay spent; the entry records what was taken).
    public func refund(store: String, transactionId: String) async throws(LedgerError) -> RefundOutcome {
        let owner = try await transaction(locking: []) { connection in
            try await Self.redemptionOwner(connection, store: store, transactionId: transactionId)
        }
        guard let owner else { throw LedgerError(.notFound, "this store transaction was never redeemed") }
        let now = now
        return try await transaction(locking: [owner, Self.transactionLock(store, transactionId)]) { connection in
            guard
                let outcome = try await Self.applyRefund(
                    connection,
                    store: store,
                    transactionId: transactionId,
                    now: now
                )
            else { throw LedgerError(.notFound, "this store transaction was never redeemed") }
            return outcome
        }
    }

    /// Refunds a redemption inside a transaction that holds its owner's lock, and marks the transaction refunded
    /// either way (a refund seen before any redemption keeps it from redeeming): nil when it was never redeemed.
    static func applyRefund(_ connection: any LedgerConnection, store: String, transactionId: String, now: Date)
        async throws -> RefundOutcome?
    {
        let rows = try await connection.rows(
            """
            SELECT r.user_id, r.refunded_at, e.amount FROM redemptions r JOIN ledger_entries e ON e.id = r.entry_id
            WHERE r.store = ? AND r.transaction_id = ?
            """,
            store.sql,
            transactionId.sql
        )
        try await markRefunded(connection, store: store, transactionId: transactionId, now: now)
        guard let row = rows.first, let owner = row["user_id"]?.text, let granted = row["amount"]?.integer else {
            return nil
        }
        if (row["refunded_at"] ?? .null) != .null {
            return RefundOutcome(userId: owner, clawedBack: 0, revokedLicenses: 0, alreadyApplied: true)
        }
        try await connection.execute(
            "UPDATE redemptions SET refunded_at = ? WHERE store = ? AND transaction_id = ?",
            now.sql,
            store.sql,
            transactionId.sql
        )
        let revoked = try await connection.rows(
            """
            UPDATE licenses SET revoked_at = ? WHERE store = ? AND transaction_id = ? AND revoked_at IS NULL
            RETURNING key_value
            """,
            now.sql,
            store.sql,
            transactionId.sql
        ).count
        let held = try await balance(connection, owner)
        let clawback = min(granted, max(held, 0))
        if clawback > 0 {
            try await insert(
                connection,
                LedgerEntry(
                    id: newEntryId(),
                    userId: owner,
                    amount: -clawback,
                    kind: "refund",
                    reference: "\(store):\(transactionId)",
                    createdAt: now
                ),
                idempotencyKey: "refund:\(store):\(transactionId)"
            )
        }
        // The pack's gift to the community pool goes back too, as far as the pool still holds it.
        let gifted = try await connection.integer(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger_entries
            WHERE user_id = ? AND idempotency_key = ?
            """,
            communityPoolAccount.sql,
            "redeem:\(store):\(transactionId)".sql
        )
        let poolClawback = min(gifted, max(try await balance(connection, communityPoolAccount), 0))
        if poolClawback > 0 {
            try await insert(
                connection,
                LedgerEntry(
                    id: newEntryId(),
                    userId: communityPoolAccount,
                    amount: -poolClawback,
                    kind: "refund",
                    reference: "\(store):\(transactionId)",
                    createdAt: now
                ),
                idempotencyKey: "refund:\(store):\(transactionId)"
            )
        }
        return RefundOutcome(userId: owner, clawedBack: clawback, revokedLicenses: revoked, alreadyApplied: false)
    }

    static func replayRedemption(
        _ connection: any LedgerConnection,
        store: String,
        transactionId: String,
        _ userId: String
    ) async throws -> RedemptionOutcome {
        let rows = try await connection.rows(
            """
            SELECT e.id, e.user_id, e.amount, e.kind, e.reference, e.app, e.created_at, r.refunded_at
            FROM redemptions r JOIN ledger_entries e ON e.id = r.entry_id
            WHERE r.store = ? AND r.transaction_id = ?
            """,
            store.sql,
            transactionId.sql
        )
        guard let row = rows.first, row["user_id"]?.text == userId, row["refunded_at"] ?? .null == .null else {
            throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed")
        }
        let licenses = try await connection.rows(
            """
            SELECT key_value, user_id, plan, license, store, transaction_id, created_at FROM licenses
            WHERE store = ? AND transaction_id = ? ORDER BY key_value
            """,
            store.sql,
            transactionId.sql
        ).map(license)
        let community = try await connection.integer(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger_entries
            WHERE user_id = ? AND idempotency_key = ?
            """,
            communityPoolAccount.sql,
            "redeem:\(store):\(transactionId)".sql
        )
        return RedemptionOutcome(entry: entry(row), licenses: licenses, communityKeys: community, replayed: true)
    }

    /// The lock a redemption and a refund of one store transaction share.
    static func transactionLock(_ store: String, _ transactionId: String) -> String { "tx:\(store):\(transactionId)" }
}

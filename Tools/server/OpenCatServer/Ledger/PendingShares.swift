import Foundation

/// A share to an address nobody has signed in with yet: its keys wait in that address's holding account
/// (`pending:<email>`) until its owner signs in, and the sender can take them back until then.
public struct PendingShare: Sendable, Hashable {
    /// The sender's `share` entry.
    public var entryId: String
    /// The address the keys wait for.
    public var email: String
    /// How many keys were shared.
    public var keys: Int64
    /// When.
    public var sharedAt: Date

    /// A pending share.
    public init(entryId: String, email: String, keys: Int64, sharedAt: Date) {
        self.entryId = entryId
        self.email = email
        self.keys = keys
        self.sharedAt = sharedAt
    }
}

// A share is pending while its holding account has not been released to its owner since the share (a release moves
// everything the account holds) and the sender has not cancelled it. Cancelling moves the share's keys back from the
// holding account (as `share_cancelled` there and `share_returned` to the sender, the lots following the keys), once;
// after a release it is refused with ``LedgerError/Code/alreadyReceived``.
extension LedgerStore {
    /// A sender's shares whose keys still wait for their recipient, newest first.
    public func pendingShares(of userId: String) async throws(LedgerError) -> [PendingShare] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT s.id, s.reference, s.amount, s.created_at FROM ledger_entries s
                WHERE s.user_id = ? AND s.kind = 'share' AND s.reference LIKE ?
                    AND NOT EXISTS (SELECT 1 FROM ledger_entries c
                        WHERE c.user_id = s.reference AND c.kind = 'share_cancelled' AND c.reference = s.id)
                    AND NOT EXISTS (SELECT 1 FROM ledger_entries r
                        WHERE r.user_id = s.reference AND r.kind = 'released' AND r.seq > s.seq)
                ORDER BY s.seq DESC LIMIT 100
                """,
                userId.sql,
                (pendingAccountPrefix + "%").sql
            ).map { row in
                PendingShare(
                    entryId: row["id"]?.text ?? "",
                    email: String((row["reference"]?.text ?? "").dropFirst(pendingAccountPrefix.count)),
                    keys: -(row["amount"]?.integer ?? 0),
                    sharedAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
                )
            }
        }
    }

    /// Takes a pending share's keys back to its sender, once: exactly the keys this share brought that still wait,
    /// never another sender's; returns how many came back (fewer than were shared only when a refund of the purchase
    /// behind them took some back while they waited; 0 when cancelled before).
    /// ``LedgerError/Code/notFound`` when it is not this sender's share to an address;
    /// ``LedgerError/Code/alreadyReceived`` when its recipient has signed in and holds the keys.
    public func cancelShare(_ entryId: String, of userId: String) async throws(LedgerError) -> Int64 {
        guard !entryId.isEmpty, !userId.isEmpty else { throw LedgerError(.invalidInput, "a share names its entry") }
        let share = try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT reference FROM ledger_entries WHERE id = ? AND user_id = ? AND kind = 'share'",
                entryId.sql,
                userId.sql
            ).first?["reference"]?.text
        }
        guard let account = share, account.hasPrefix(pendingAccountPrefix) else {
            throw LedgerError(.notFound, "no share of yours waits under that id")
        }
        let now = now
        return try await transaction(locking: [account, userId]) { connection in
            try await Self.cancel(connection, entryId, of: userId, account: account, now: now)
        }
    }

    static func cancel(
        _ connection: any LedgerConnection,
        _ entryId: String,
        of userId: String,
        account: String,
        now: Date
    )
        async throws -> Int64
    {
        let state = try await connection.rows(
            """
            SELECT s.amount,
                CASE WHEN EXISTS (SELECT 1 FROM ledger_entries c WHERE c.user_id = ? AND c.kind = 'share_cancelled'
                    AND c.reference = s.id) THEN 1 ELSE 0 END AS cancelled,
                CASE WHEN EXISTS (SELECT 1 FROM ledger_entries r WHERE r.user_id = ? AND r.kind = 'released'
                    AND r.seq > s.seq) THEN 1 ELSE 0 END AS released
            FROM ledger_entries s WHERE s.id = ?
            """,
            account.sql,
            account.sql,
            entryId.sql
        ).first
        if state?["cancelled"]?.integer == 1 { return 0 }
        if state?["released"]?.integer == 1 {
            throw LedgerError(.alreadyReceived, "the recipient has signed in and received the keys")
        }
        let lots = try await ownKeys(connection, share: entryId, of: -(state?["amount"]?.integer ?? 0), in: account)
        let keys = lots.reduce(0) { $0 + $1.keys }
        guard keys > 0 else { return 0 }
        let before = try await balanceBeforeCredit(connection, userId)
        try await insert(
            connection,
            LedgerEntry(
                id: newEntryId(),
                userId: account,
                amount: -keys,
                kind: "share_cancelled",
                reference: entryId,
                createdAt: now
            ),
            idempotencyKey: "cancel-share:\(entryId)"
        )
        try await insert(
            connection,
            LedgerEntry(
                id: newEntryId(),
                userId: userId,
                amount: keys,
                kind: "share_returned",
                reference: account,
                createdAt: now
            ),
            idempotencyKey: "share-returned:\(entryId)"
        )
        try await addLots(connection, userId: userId, lots, balanceBefore: before, now: now)
        return keys
    }

    /// Takes the keys of one share that still wait in its holding account: the lots the share brought (what refunds
    /// left of them), never another sender's. A share from before lots named their share (schema v12) takes, up to
    /// its amount, only from lots that name no share.
    static func ownKeys(_ connection: any LedgerConnection, share entryId: String, of shared: Int64, in account: String)
        async throws -> [KeyLot]
    {
        let named = try await connection.integer(
            "SELECT COUNT(*) FROM key_lots WHERE user_id = ? AND via = ?",
            account.sql,
            entryId.sql
        )
        // At most the share's amount: its own lots never hold more; older lots that name no share may.
        return try await takeLots(
            connection,
            userId: account,
            amount: shared,
            filter: named > 0 ? .via(entryId) : .unnamed
        )
    }
}

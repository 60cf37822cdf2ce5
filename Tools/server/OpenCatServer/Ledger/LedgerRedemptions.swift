public import Foundation
public import OpenCatCore

/// A license minted for a key-pack purchase, as the ledger keeps it.
public struct LicenseRecord: Sendable, Hashable {
    /// The human key (`VUUW-…-Ln`).
    public var keyValue: String
    /// The user the license was minted for.
    public var userId: String
    /// `L1`…`L9`.
    public var plan: String
    /// The signed license string (`key/…`).
    public var license: String
    /// The store of the purchase (`apple`, `google`, `stripe`, `paypal`, `steam`).
    public var store: String
    /// The store's transaction id of the purchase; a full refund of it revokes the license.
    public var transactionId: String
    /// When the license was minted.
    public var createdAt: Date

    /// A license record.
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
    /// The pack's keys, credited to the buyer.
    public var keys: Int64
    /// Bonus keys, credited to the buyer with `keys`.
    public var bonusKeys: Int64
    /// Keys credited to the community pool (not to the buyer).
    public var communityKeys: Int64
    /// The licenses minted for the purchase.
    public var licenses: [LicenseRecord]
    /// What the store said about the purchase (product, environment, price, time), for its event.
    public var purchase: Facts?

    /// What the store said about a key-pack purchase.
    public struct Facts: Sendable, Hashable {
        /// The store's product id.
        public var productId: String
        /// `production` or `sandbox`.
        public var environment: String
        /// What the store charged, when it said.
        public var price: Money?
        /// When the store says the purchase was made.
        public var purchaseDate: Date

        /// Facts.
        public init(productId: String, environment: String, price: Money?, purchaseDate: Date) {
            self.productId = productId
            self.environment = environment
            self.price = price
            self.purchaseDate = purchaseDate
        }
    }

    /// A grant; no bonus, no community share and no license by default.
    public init(
        keys: Int64,
        bonusKeys: Int64 = 0,
        communityKeys: Int64 = 0,
        licenses: [LicenseRecord] = [],
        purchase: Facts? = nil
    ) {
        self.keys = keys
        self.bonusKeys = bonusKeys
        self.communityKeys = communityKeys
        self.licenses = licenses
        self.purchase = purchase
    }
}

/// The outcome of a redemption: the buyer's entry and licenses, and whether this only replayed the buyer's own
/// earlier redemption of the same transaction.
public struct RedemptionOutcome: Sendable, Hashable {
    /// The buyer's purchase entry.
    public var entry: LedgerEntry
    /// The licenses minted for the purchase.
    public var licenses: [LicenseRecord]
    /// The keys credited to the community pool.
    public var communityKeys: Int64
    /// Whether this only replayed the buyer's own earlier redemption (nothing was credited now).
    public var replayed: Bool
}

/// The outcome of a refund: the keys it took back and from where, and what it revoked.
///
/// A refund takes back every key the refunded part of the purchase paid for (docs/SECURITY.md, "Refunds"): the
/// purchase's keys wherever they are (the buyer's own first, then every account they reached, however many hops away),
/// and the keys nobody holds any more (spent) as debt on the buyer (a negative balance, which blocks spending, sharing and donating until a purchase
/// clears it). While the buyer is in debt, feature unlocks paid after the purchase are revoked, newest first, and
/// their keys set against the debt.
public struct RefundOutcome: Sendable, Hashable {
    /// The buyer of the refunded purchase.
    public var userId: String
    /// Every key this refund took back: from the buyer's balance, from recipients, and as debt.
    public var clawedBack: Int64
    /// The part of ``clawedBack`` taken back from users the buyer shared with (or the pool the buyer donated to).
    public var reversedFromRecipients: Int64 = 0
    /// The part of ``clawedBack`` the buyer did not hold: recorded as debt (before revoked unlocks repaid some).
    public var debt: Int64 = 0
    /// Feature unlocks revoked because the books could not cover them.
    public var revokedUnlocks: Int = 0
    /// Licenses revoked (only once the whole purchase is refunded).
    public var revokedLicenses: Int
    /// Whether the refund had been applied before (nothing changed now).
    public var alreadyApplied: Bool

    /// An outcome.
    public init(
        userId: String,
        clawedBack: Int64,
        reversedFromRecipients: Int64 = 0,
        debt: Int64 = 0,
        revokedUnlocks: Int = 0,
        revokedLicenses: Int,
        alreadyApplied: Bool
    ) {
        self.userId = userId
        self.clawedBack = clawedBack
        self.reversedFromRecipients = reversedFromRecipients
        self.debt = debt
        self.revokedUnlocks = revokedUnlocks
        self.revokedLicenses = revokedLicenses
        self.alreadyApplied = alreadyApplied
    }
}

/// What the store said of a refund besides its amount: when it happened and in which environment (nil when it did not
/// say: the refund event then carries the time it was applied and the purchase's environment).
struct RefundReport: Sendable, Hashable {
    var storeTime: Date?
    var environment: String?
}

/// How much of a purchase a refund gave back, in the store's money: a partial refund takes back the keys that part
/// paid for (rounded up, in the merchant's favour) and revokes licenses only once the whole purchase is refunded.
public struct RefundShare: Sendable, Hashable {
    /// The amount refunded so far (cumulative, as the store reports it).
    public var refunded: Decimal
    /// The amount paid.
    public var paid: Decimal

    /// A share; both amounts in the purchase's currency, exact.
    public init(refunded: Decimal, paid: Decimal) {
        self.refunded = refunded
        self.paid = paid
    }

    /// Whether the whole purchase is refunded (also when the amounts make no sense: the merchant's favour).
    public var isWhole: Bool { paid <= 0 || refunded <= 0 || refunded >= paid }

    /// The keys out of `granted` the refunded part paid for, rounded up, never more than `granted`.
    public func keys(of granted: Int64) -> Int64 {
        guard !isWhole, granted > 0 else { return granted }
        var exact = Decimal(granted) * refunded / paid
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 0, .up)
        let keys = NSDecimalNumber(decimal: rounded).int64Value
        return min(granted, max(keys, 1))
    }
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
        // The buyer is locked too: the purchase repays a debt the buyer may be in before it makes a lot.
        return try await transaction(locking: [Self.transactionLock(store, transactionId), userId]) { connection in
            let charged = try await Self.checkRedeemable(connection, store: store, transactionId: transactionId, userId)
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
                INSERT INTO redemptions (store, transaction_id, user_id, entry_id, environment) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (store, transaction_id) DO NOTHING RETURNING entry_id
                """,
                store.sql,
                transactionId.sql,
                userId.sql,
                entry.id.sql,
                grant.purchase?.environment.sql ?? .null
            )
            guard !claimed.isEmpty else {
                return try await Self.replayRedemption(connection, store: store, transactionId: transactionId, userId)
            }
            let before = charged ? try await Self.balance(connection, userId) : 0
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
            // The buyer's lot (what a debt leaves of the pack) and the pool's gift, in one statement.
            var lots: [(String, KeyLot)] = []
            let kept = entry.amount - min(max(-before, 0), entry.amount)
            if kept > 0 { lots.append((userId, KeyLot(source: entry.reference, keys: kept))) }
            if grant.communityKeys > 0 {
                let gift = KeyLot(source: Self.giftSource(store, transactionId), keys: grant.communityKeys)
                lots.append((communityPoolAccount, gift))
            }
            try await Self.insertLots(connection, lots, now: now)
            try await Self.insertLicenses(
                connection,
                grant.licenses,
                userId: userId,
                store: store,
                transactionId: transactionId,
                now: now
            )
            try await connection.enqueue(
                .keyPackPurchased,
                Self.keyPackEvent(store: store, transactionId: transactionId, userId: userId, grant: grant),
                now: now
            )
            return RedemptionOutcome(
                entry: entry,
                licenses: grant.licenses,
                communityKeys: grant.communityKeys,
                replayed: false
            )
        }
    }

    /// Stores the licences a redemption minted, in one statement.
    static func insertLicenses(
        _ connection: any LedgerConnection,
        _ licenses: [LicenseRecord],
        userId: String,
        store: String,
        transactionId: String,
        now: Date
    ) async throws {
        guard !licenses.isEmpty else { return }
        let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: licenses.count).joined(
            separator: ", "
        )
        try await connection.query(
            """
            INSERT INTO licenses (key_value, user_id, plan, license, store, transaction_id, created_at)
            VALUES \(rows)
            """,
            licenses.flatMap { license in
                [
                    license.keyValue.sql, userId.sql, license.plan.sql, license.license.sql, store.sql,
                    transactionId.sql, now.sql,
                ]
            }
        )
    }

    /// The `key_pack_purchased` event of a redemption.
    static func keyPackEvent(store: String, transactionId: String, userId: String, grant: KeyGrant)
        -> WebhookEventData
    {
        var data = WebhookEventData()
        data.appUserId = userId
        data.store = store
        data.transactionId = transactionId
        data.keys = grant.keys + grant.bonusKeys
        if let facts = grant.purchase {
            data.productId = facts.productId
            data.environment = facts.environment
            data.price = facts.price.flatMap(WebhookAmount.init)
            data.storeTime = WebhookEvent.timestamp(facts.purchaseDate)
        }
        return data
    }

    /// The user a store transaction was redeemed for, or nil when it was not redeemed.
    public func redeemer(store: String, transactionId: String) async throws(LedgerError) -> String? {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT user_id FROM redemptions WHERE store = ? AND transaction_id = ?",
                store.sql,
                transactionId.sql
            ).first?["user_id"]?.text
        }
    }

    /// Refuses a transaction the store refunded, or the OpenCat API recorded (one proof, one redemption), and says
    /// whether a refund ever charged the buyer (only then can the buyer be in debt): one statement for the three.
    static func checkRedeemable(
        _ connection: any LedgerConnection,
        store: String,
        transactionId: String,
        _ userId: String
    ) async throws -> Bool {
        let row = try await connection.rows(
            """
            SELECT
                CASE WHEN EXISTS (SELECT 1 FROM store_refunds WHERE store = ? AND transaction_id = ?) THEN 1 ELSE 0 END
                    AS refunded,
                CASE WHEN EXISTS (SELECT 1 FROM subscriber_transactions WHERE store = ? AND transaction_id = ?)
                    THEN 1 ELSE 0 END AS recorded,
                CASE WHEN EXISTS (SELECT 1 FROM ledger_entries WHERE user_id = ? AND kind = 'refund') THEN 1 ELSE 0 END
                    AS charged
            """,
            store.sql,
            transactionId.sql,
            store.sql,
            transactionId.sql,
            userId.sql
        ).first
        if row?["refunded"]?.integer == 1 { throw LedgerError(.refunded, "the store refunded this transaction") }
        if row?["recorded"]?.integer == 1 {
            throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed through the OpenCat API")
        }
        return row?["charged"]?.integer == 1
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

    /// Applies a store refund of a redeemed transaction: takes back the keys the refunded part paid for (see
    /// ``RefundOutcome``) and, once the whole purchase is refunded, revokes its licenses. Applying the same share
    /// again changes nothing; a larger share later takes the difference.
    public func refund(store: String, transactionId: String, share: RefundShare?)
        async throws(LedgerError) -> RefundOutcome
    {
        for _ in 0..<5 {
            let locks = try await transaction(locking: []) { connection in
                try await Self.refundLocks(connection, store: store, transactionId: transactionId)
            }
            guard let locks else { throw LedgerError(.notFound, "this store transaction was never redeemed") }
            let now = now
            let outcome: RefundOutcome?? = try await transaction(
                locking: locks + [Self.transactionLock(store, transactionId)]
            ) { connection in
                guard let current = try await Self.refundLocks(connection, store: store, transactionId: transactionId)
                else { return .some(nil) }
                guard Set(current).isSubset(of: Set(locks)) else { return nil }
                return .some(
                    try await Self.applyRefund(
                        connection,
                        store: store,
                        transactionId: transactionId,
                        share: share,
                        now: now
                    )
                )
            }
            if let outcome {
                guard let outcome else { throw LedgerError(.notFound, "this store transaction was never redeemed") }
                return outcome
            }
        }
        throw LedgerError(.storage, "the refund's accounts kept changing")
    }

    /// The accounts a refund of a redemption may lower, to lock before applying it: the buyer, every account holding
    /// keys of the purchase (however many hops away), and the community pool. Nil when the transaction was never redeemed.
    static func refundLocks(_ connection: any LedgerConnection, store: String, transactionId: String) async throws
        -> [String]?
    {
        let rows = try await connection.rows(
            """
            SELECT r.user_id, e.seq FROM redemptions r JOIN ledger_entries e ON e.id = r.entry_id
            WHERE r.store = ? AND r.transaction_id = ?
            """,
            store.sql,
            transactionId.sql
        )
        guard let owner = rows.first?["user_id"]?.text else { return nil }
        let holders = try await holders(connection, source: "\(store):\(transactionId)")
        return [owner, communityPoolAccount] + holders.sorted()
    }

    /// Refunds (part of) a redemption inside a transaction that holds the locks ``refundLocks(_:store:transactionId:)``
    /// names, and marks the transaction refunded either way (a refund seen before any redemption keeps it from
    /// redeeming): nil when it was never redeemed.
    static func applyRefund(
        _ connection: any LedgerConnection,
        store: String,
        transactionId: String,
        share: RefundShare? = nil,
        reported: RefundReport = RefundReport(),
        now: Date
    ) async throws -> RefundOutcome? {
        let rows = try await connection.rows(
            """
            SELECT r.user_id, r.refunded_at, r.refunded_keys, e.amount, e.seq
            FROM redemptions r JOIN ledger_entries e ON e.id = r.entry_id
            WHERE r.store = ? AND r.transaction_id = ?
            """,
            store.sql,
            transactionId.sql
        )
        try await markRefunded(connection, store: store, transactionId: transactionId, now: now)
        guard let row = rows.first, let owner = row["user_id"]?.text, let granted = row["amount"]?.integer,
            let purchaseSeq = row["seq"]?.integer
        else { return nil }
        let whole = share?.isWhole ?? true
        let target = share?.keys(of: granted) ?? granted
        let taken = row["refunded_keys"]?.integer ?? 0
        guard (row["refunded_at"] ?? .null) == .null, target > taken || whole else {
            return RefundOutcome(userId: owner, clawedBack: 0, revokedLicenses: 0, alreadyApplied: true)
        }
        let reference = "\(store):\(transactionId)"
        let step = "\(reference):\(target)"
        try await connection.execute(
            "UPDATE redemptions SET refunded_keys = ?, refunded_at = ? WHERE store = ? AND transaction_id = ?",
            max(target, taken).sql,
            whole ? now.sql : .null,
            store.sql,
            transactionId.sql
        )
        // What the store refunded of the sale so far: the whole price, or the cumulative part it reported.
        try await connection.execute(
            "UPDATE sales SET refunded_amount = CASE WHEN ? = 1 THEN amount ELSE ? END WHERE store = ? AND transaction_id = ?",
            Int64(whole ? 1 : 0).sql,
            share.map { "\($0.refunded)" }.sql,
            store.sql,
            transactionId.sql
        )
        var revokedLicenses = 0
        if whole {
            revokedLicenses = try await revokeLicenses(connection, store: store, transactionId: transactionId, now: now)
            try await refundWebOrder(connection, store: store, transactionId: transactionId, now: now)
        }
        var outcome = RefundOutcome(
            userId: owner,
            clawedBack: 0,
            revokedLicenses: revokedLicenses,
            alreadyApplied: false
        )
        let due = max(target - taken, 0)
        if due > 0 {
            try await takeBack(connection, due, of: reference, owner: owner, step: step, into: &outcome, now: now)
            // Unlocks paid after the purchase are revoked while the books cannot cover them.
            if outcome.debt > 0 {
                outcome.revokedUnlocks = try await revokeUnlocks(connection, owner: owner, after: purchaseSeq, now: now)
            }
        }
        try await takeBackGift(
            connection,
            store: store,
            transactionId: transactionId,
            share: share,
            step: step,
            now: now
        )
        try await connection.enqueue(
            .refund,
            try await refundEvent(
                connection,
                store: store,
                transactionId: transactionId,
                share: share,
                reported: RefundReport(storeTime: reported.storeTime ?? now, environment: reported.environment),
                outcome
            ),
            now: now
        )
        return outcome
    }

    /// The `refund` event of a key pack: the sale's product and price, the part refunded, the keys taken back, when
    /// the store says it happened and in which environment (the report's, else the purchase's).
    static func refundEvent(
        _ connection: any LedgerConnection,
        store: String,
        transactionId: String,
        share: RefundShare?,
        reported: RefundReport,
        _ outcome: RefundOutcome
    ) async throws -> WebhookEventData {
        let sale = try await connection.rows(
            """
            SELECT s.product_id, s.amount, s.currency, r.environment FROM redemptions r
            LEFT JOIN sales s ON s.store = r.store AND s.transaction_id = r.transaction_id
            WHERE r.store = ? AND r.transaction_id = ?
            """,
            store.sql,
            transactionId.sql
        ).first
        let price = sale.flatMap { row in
            row["amount"]?.text.flatMap { amount in
                row["currency"]?.text.flatMap { Money(decimalString: amount, currency: $0) }
            }
        }
        var data = WebhookEventData()
        data.appUserId = outcome.userId
        data.store = store
        data.transactionId = transactionId
        data.productId = sale?["product_id"]?.text
        data.price = price.flatMap(WebhookAmount.init)
        data.keys = outcome.clawedBack
        data.refund = StoreFacts(price: price, refundShare: share).refund(price: price)
        data.refund?.keysClawedBack = outcome.clawedBack
        data.environment = reported.environment ?? sale?["environment"]?.text
        data.storeTime = reported.storeTime.map(WebhookEvent.timestamp)
        return data
    }

    /// Takes back `due` keys of the purchase `reference` wherever they are (the buyer's own first, then the newest
    /// lots of every other account: `refund_reversal` entries); what no account holds any more was spent, and is the
    /// buyer's debt, set against the buyer's other keys and below zero when those do not cover it.
    static func takeBack(
        _ connection: any LedgerConnection,
        _ due: Int64,
        of reference: String,
        owner: String,
        step: String,
        into outcome: inout RefundOutcome,
        now: Date
    ) async throws {
        let taken = try await takeSource(connection, source: reference, amount: due, first: owner)
        var fromOwner: Int64 = 0
        for (holder, keys) in taken {
            guard holder != owner else {
                fromOwner += keys
                continue
            }
            try await insert(
                connection,
                LedgerEntry(
                    id: newEntryId(),
                    userId: holder,
                    amount: -keys,
                    kind: "refund_reversal",
                    reference: reference,
                    createdAt: now
                ),
                idempotencyKey: "reversal:\(step)"
            )
            outcome.reversedFromRecipients += keys
        }
        let debt = due - taken.reduce(0) { $0 + $1.keys }
        if fromOwner + debt > 0 {
            try await insert(
                connection,
                LedgerEntry(
                    id: newEntryId(),
                    userId: owner,
                    amount: -(fromOwner + debt),
                    kind: "refund",
                    reference: reference,
                    createdAt: now
                ),
                idempotencyKey: "refund:\(step)"
            )
        }
        if debt > 0 { try await settleLots(connection, userId: owner) }
        outcome.clawedBack = due
        outcome.debt = debt
    }

    /// The pack's gift to the community pool goes back in the refund's share, as far as the pool still holds it.
    static func takeBackGift(
        _ connection: any LedgerConnection,
        store: String,
        transactionId: String,
        share: RefundShare?,
        step: String,
        now: Date
    ) async throws {
        let reference = "\(store):\(transactionId)"
        let gifted = try await connection.integer(
            """
            SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger_entries
            WHERE user_id = ? AND idempotency_key = ?
            """,
            communityPoolAccount.sql,
            "redeem:\(reference)".sql
        )
        let giftTarget = share?.keys(of: gifted) ?? gifted
        let giftTaken = try await connection.integer(
            """
            SELECT CAST(COALESCE(-SUM(amount), 0) AS BIGINT) FROM ledger_entries
            WHERE user_id = ? AND kind = 'refund' AND reference = ?
            """,
            communityPoolAccount.sql,
            reference.sql
        )
        let taken = try await takeSource(
            connection,
            source: giftSource(store, transactionId),
            amount: max(giftTarget - giftTaken, 0),
            first: communityPoolAccount
        ).reduce(0) { $0 + $1.keys }
        guard taken > 0 else { return }
        try await insert(
            connection,
            LedgerEntry(
                id: newEntryId(),
                userId: communityPoolAccount,
                amount: -taken,
                kind: "refund",
                reference: reference,
                createdAt: now
            ),
            idempotencyKey: "refund:\(step)"
        )
    }

    /// Revokes a purchase's licenses with the next revocation serial: the current time in milliseconds, or one more
    /// than the newest serial when that is later. Revocations take a lock of their own, so two never share a serial
    /// and a list once published with a serial never gains another revocation under it.
    static func revokeLicenses(_ connection: any LedgerConnection, store: String, transactionId: String, now: Date)
        async throws -> Int
    {
        let pending = try await connection.integer(
            "SELECT COUNT(*) FROM licenses WHERE store = ? AND transaction_id = ? AND revoked_at IS NULL",
            store.sql,
            transactionId.sql
        )
        guard pending > 0 else { return 0 }
        try await connection.lock("opencat:revocations")
        let newest = try await connection.integer(
            "SELECT CAST(COALESCE(MAX(revocation_serial), 0) AS BIGINT) FROM licenses WHERE revoked_at IS NOT NULL"
        )
        let serial = max(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)), newest + 1)
        return try await connection.rows(
            """
            UPDATE licenses SET revoked_at = ?, revocation_serial = ?
            WHERE store = ? AND transaction_id = ? AND revoked_at IS NULL RETURNING key_value
            """,
            now.sql,
            serial.sql,
            store.sql,
            transactionId.sql
        ).count
    }

    /// The source of a pack's gift to the community pool.
    static func giftSource(_ store: String, _ transactionId: String) -> String { "\(store):\(transactionId)#gift" }

    /// Revokes the owner's feature unlocks paid after `seq`, newest first, while the owner's balance is below zero;
    /// each gives its keys back against the debt. Returns how many were revoked.
    static func revokeUnlocks(_ connection: any LedgerConnection, owner: String, after seq: Int64, now: Date)
        async throws -> Int
    {
        let unlocks = try await connection.rows(
            """
            SELECT u.app, u.feature, u.entry_id, e.amount FROM unlocks u JOIN ledger_entries e ON e.id = u.entry_id
            WHERE u.user_id = ? AND e.seq > ? ORDER BY e.seq DESC
            """,
            owner.sql,
            seq.sql
        )
        var revoked = 0
        for unlock in unlocks {
            let before = try await balance(connection, owner)
            guard before < 0 else { break }
            guard let app = unlock["app"]?.text, let feature = unlock["feature"]?.text,
                let entryId = unlock["entry_id"]?.text, let cost = unlock["amount"]?.integer.map({ -$0 }), cost > 0
            else { continue }
            try await connection.execute(
                "DELETE FROM unlocks WHERE user_id = ? AND app = ? AND feature = ?",
                owner.sql,
                app.sql,
                feature.sql
            )
            try await insert(
                connection,
                LedgerEntry(
                    id: newEntryId(),
                    userId: owner,
                    amount: cost,
                    kind: "unlock_revoked",
                    reference: feature,
                    app: app,
                    createdAt: now
                ),
                idempotencyKey: "unlock_revoked:\(entryId)"
            )
            try await addLots(
                connection,
                userId: owner,
                [KeyLot(source: nil, keys: cost)],
                balanceBefore: before,
                now: now
            )
            revoked += 1
        }
        return revoked
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

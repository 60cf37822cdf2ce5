public import Foundation
public import OpenCatCore

/// What a store said about a transaction besides its state: when the state held by the store's clock, and the price.
struct StoreFacts: Sendable {
    var storeTime: Date?
    var price: Money?
    /// The part refunded, when the store reported a partial refund.
    var refundShare: RefundShare?

    /// A refund's figures in the price's currency (nil amount when the price is unknown).
    func refund(price: Money?) -> WebhookRefund {
        let whole = refundShare?.isWhole ?? true
        let amount = price.flatMap { price in
            WebhookAmount(Money(amount: whole ? price.amount : refundShare?.refunded ?? 0, currency: price.currency))
        }
        return WebhookRefund(whole: whole, amount: amount, keysClawedBack: 0)
    }
}

/// The outcome of a store notification.
public struct StoreEventOutcome: Sendable, Hashable {
    /// False when the event had been applied before (nothing changed now).
    public var applied: Bool
    /// The app user whose transactions changed, if the transaction is known.
    public var appUserId: String?
    /// The key-pack refund the event applied, if any.
    public var refund: RefundOutcome?
}

// The OpenCat API's records: each app user's store transactions, owned by the first user that posted them, and the
// store notifications already applied.
extension LedgerStore {
    /// The user's transactions, newest purchase first; a user not seen before is created.
    public func subscriber(_ appUserId: String) async throws(LedgerError) -> (
        firstSeenAt: Date, transactions: [TransactionInfo]
    ) {
        guard !appUserId.isEmpty else { throw LedgerError(.invalidInput, "an app user id is required") }
        let now = now
        return try await transaction(locking: []) { connection in
            let firstSeen = try await Self.ensureSubscriber(connection, appUserId, now: now)
            let rows = try await connection.rows(
                "SELECT info FROM subscriber_transactions WHERE app_user_id = ?",
                appUserId.sql
            )
            let transactions = try rows.compactMap { row in
                try row["info"]?.text.map { try Self.decodeInfo($0) }
            }.sorted { $0.purchaseDate > $1.purchaseDate }
            return (firstSeen, transactions)
        }
    }

    /// Records a verified transaction for a user: a transaction (or its subscription) belongs to the first user
    /// that posted it, and posting it again updates it — but never out of `refunded`, so an old proof cannot revive
    /// a refunded purchase, and never with a state older (by the store's clock, `storeTime`) than the one it holds.
    public func record(_ info: TransactionInfo, appUserId: String, storeTime: Date?, price: Money?)
        async throws(LedgerError)
    {
        let now = now
        let locks = [Self.subscriptionLock(info), Self.transactionLock(info.store.rawValue, info.transactionId)]
        try await transaction(locking: locks) { connection in
            _ = try await Self.ensureSubscriber(connection, appUserId, now: now)
            if let owner = try await Self.owner(connection, of: info), owner != appUserId {
                throw LedgerError(.ownedByAnotherUser, "this store transaction belongs to another user")
            }
            // One proof, one redemption: a transaction that credited a key pack never unlocks an entitlement too.
            if try await !connection.rows(
                "SELECT 1 AS taken FROM redemptions WHERE store = ? AND transaction_id = ?",
                info.store.rawValue.sql,
                info.transactionId.sql
            ).isEmpty {
                throw LedgerError(.alreadyRedeemed, "this store transaction was already redeemed for keys")
            }
            if try await Self.isRefunded(connection, info), info.status != .refunded {
                throw LedgerError(.refunded, "the store refunded this transaction")
            }
            if info.status == .refunded {
                try await Self.markRefunded(
                    connection,
                    store: info.store.rawValue,
                    transactionId: info.transactionId,
                    now: now
                )
            }
            try await Self.upsert(
                connection,
                info,
                appUserId: appUserId,
                facts: StoreFacts(storeTime: storeTime, price: price),
                now: now
            )
        }
    }

    /// Applies a verified store notification once: the transaction it reports is updated for the user who owns it
    /// (a renewal adds the new transaction, a refund marks it refunded), a refund is remembered even for a
    /// transaction nobody redeemed yet (so it never can be), and a refunded key pack is clawed back — in one
    /// transaction with the record that the event was applied. `storeTime` is when the store says the reported
    /// state held (Apple's `signedDate`, the time of a re-read): a state older than the one recorded is not applied.
    public func applyStoreEvent(
        source: String,
        eventId: String,
        update: TransactionInfo?,
        refundShare: RefundShare?,
        storeTime: Date?,
        price: Money?
    ) async throws(LedgerError) -> StoreEventOutcome {
        guard !source.isEmpty, !eventId.isEmpty else { throw LedgerError(.invalidInput, "an event needs an id") }
        // The accounts a claw-back may lower are locked too (the key pack's owner, whom they shared with, the pool);
        // if they change between reading them and taking the locks, the transaction starts over.
        for _ in 0..<5 {
            let accounts = try await refundAccounts(update)
            var locks = accounts ?? []
            if let update {
                locks += [
                    Self.subscriptionLock(update), Self.transactionLock(update.store.rawValue, update.transactionId),
                ]
            }
            let now = now
            let locked = locks
            let outcome: StoreEventOutcome? = try await transaction(locking: locked) { connection in
                if let update, update.status == .refunded {
                    let current = try await Self.refundLocks(
                        connection,
                        store: update.store.rawValue,
                        transactionId: update.transactionId
                    )
                    guard Set(current ?? []).isSubset(of: Set(locked)) else { return nil }
                }
                let claimed = try await connection.rows(
                    """
                    INSERT INTO processed_events (source, event_id, processed_at) VALUES (?, ?, ?)
                    ON CONFLICT (source, event_id) DO NOTHING RETURNING event_id
                    """,
                    source.sql,
                    eventId.sql,
                    now.sql
                )
                guard !claimed.isEmpty else { return StoreEventOutcome(applied: false) }
                guard let update else { return StoreEventOutcome(applied: true) }
                let owner = try await Self.owner(connection, of: update)
                let refunded = try await Self.isRefunded(connection, update)
                if let owner, !refunded || update.status == .refunded {
                    let facts = StoreFacts(storeTime: storeTime, price: price, refundShare: refundShare)
                    try await Self.upsert(connection, update, appUserId: owner, facts: facts, now: now)
                }
                var refund: RefundOutcome?
                if update.status == .refunded {
                    // Marks the transaction refunded even when it was never redeemed, so it never redeems later.
                    refund = try await Self.applyRefund(
                        connection,
                        store: update.store.rawValue,
                        transactionId: update.transactionId,
                        share: refundShare,
                        reported: RefundReport(storeTime: storeTime, environment: update.environment.rawValue),
                        now: now
                    )
                }
                return StoreEventOutcome(applied: true, appUserId: owner, refund: refund)
            }
            if let outcome { return outcome }
        }
        throw LedgerError(.storage, "the transaction kept changing owner")
    }

    /// The accounts a refund reported by `update` may lower (nil when it reports no refund of a redemption).
    func refundAccounts(_ update: TransactionInfo?) async throws(LedgerError) -> [String]? {
        guard let update, update.status == .refunded else { return nil }
        return try await transaction(locking: []) { connection in
            try await Self.refundLocks(connection, store: update.store.rawValue, transactionId: update.transactionId)
        }
    }

    static func isRefunded(_ connection: any LedgerConnection, _ info: TransactionInfo) async throws -> Bool {
        try await isRefunded(connection, store: info.store.rawValue, transactionId: info.transactionId)
    }

    /// Whether the store refunded a transaction (remembered whether or not it was redeemed).
    static func isRefunded(_ connection: any LedgerConnection, store: String, transactionId: String) async throws
        -> Bool
    {
        try await !connection.rows(
            "SELECT 1 AS refunded FROM store_refunds WHERE store = ? AND transaction_id = ?",
            store.sql,
            transactionId.sql
        ).isEmpty
    }

    /// Remembers that the store refunded a transaction (once; later marks keep the first date).
    static func markRefunded(_ connection: any LedgerConnection, store: String, transactionId: String, now: Date)
        async throws
    {
        try await connection.execute(
            "INSERT INTO store_refunds (store, transaction_id, refunded_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            store.sql,
            transactionId.sql,
            now.sql
        )
    }

    /// The lock every write about one subscription (or one-time purchase) takes: its owner is decided once.
    static func subscriptionLock(_ info: TransactionInfo) -> String {
        "sub:\(info.store.rawValue):\(info.originalTransactionId ?? info.transactionId)"
    }

    static func ensureSubscriber(_ connection: any LedgerConnection, _ appUserId: String, now: Date) async throws
        -> Date
    {
        try await connection.execute(
            "INSERT INTO subscribers (app_user_id, first_seen_at) VALUES (?, ?) ON CONFLICT (app_user_id) DO NOTHING",
            appUserId.sql,
            now.sql
        )
        let first = try await connection.rows(
            "SELECT first_seen_at FROM subscribers WHERE app_user_id = ?",
            appUserId.sql
        ).first?["first_seen_at"]?.real
        return Date(timeIntervalSince1970: first ?? now.timeIntervalSince1970)
    }

    /// Who owns a transaction: the user of the transaction itself or of its subscription (original transaction).
    static func owner(_ connection: any LedgerConnection, of info: TransactionInfo) async throws -> String? {
        let original = info.originalTransactionId ?? info.transactionId
        return try await connection.rows(
            """
            SELECT app_user_id FROM subscriber_transactions
            WHERE store = ? AND (transaction_id = ? OR transaction_id = ? OR original_transaction_id = ?)
            ORDER BY updated_at LIMIT 1
            """,
            info.store.rawValue.sql,
            info.transactionId.sql,
            original.sql,
            original.sql
        ).first?["app_user_id"]?.text
    }

    /// Writes a transaction's state, unless the row holds a newer one by the store's clock (a refund always lands),
    /// and the subscription events the change means (``SubscriptionChange``) in the same transaction.
    static func upsert(
        _ connection: any LedgerConnection,
        _ info: TransactionInfo,
        appUserId: String,
        facts: StoreFacts,
        now: Date
    ) async throws {
        let before = try await storedInfo(connection, store: info.store, transactionId: info.transactionId)
        let written = try await connection.rows(
            """
            INSERT INTO subscriber_transactions (store, transaction_id, app_user_id, original_transaction_id, info,
                updated_at, state_at, price, currency)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (store, transaction_id) DO UPDATE
            SET info = excluded.info, updated_at = excluded.updated_at,
                state_at = COALESCE(excluded.state_at, subscriber_transactions.state_at),
                price = COALESCE(excluded.price, subscriber_transactions.price),
                currency = COALESCE(excluded.currency, subscriber_transactions.currency)
            WHERE ? = 1 OR subscriber_transactions.state_at IS NULL OR excluded.state_at IS NULL
                OR excluded.state_at >= subscriber_transactions.state_at
            RETURNING transaction_id
            """,
            info.store.rawValue.sql,
            info.transactionId.sql,
            appUserId.sql,
            (info.originalTransactionId ?? info.transactionId).sql,
            try encodeInfo(info).sql,
            now.sql,
            facts.storeTime.map(\.sql) ?? .null,
            facts.price.map(\.amountString).sql,
            facts.price.map { $0.currency.uppercased() }.sql,
            Int64(info.status == .refunded ? 1 : 0).sql
        )
        guard !written.isEmpty else { return }
        var previous: TransactionInfo?
        if before == nil { previous = try await newestInSubscription(connection, info) }
        var price = facts.price
        if price == nil { price = try await storedPrice(connection, info) }
        for type in SubscriptionChange.events(before: before, previous: previous, after: info) {
            var data = WebhookEventData(info, appUserId: appUserId, storeTime: facts.storeTime, price: price)
            if type == .productChange { data.previousProductId = (before ?? previous)?.productId }
            if type == .refund { data.refund = facts.refund(price: price) }
            try await connection.enqueue(type, data, now: now)
        }
    }

    /// A stored transaction's state, inside a transaction.
    static func storedInfo(_ connection: any LedgerConnection, store: Store, transactionId: String) async throws
        -> TransactionInfo?
    {
        try await connection.rows(
            "SELECT info FROM subscriber_transactions WHERE store = ? AND transaction_id = ?",
            store.rawValue.sql,
            transactionId.sql
        ).first?["info"]?.text.map { try decodeInfo($0) }
    }

    /// The newest other transaction of the same subscription (what a renewal follows).
    static func newestInSubscription(_ connection: any LedgerConnection, _ info: TransactionInfo) async throws
        -> TransactionInfo?
    {
        try await connection.rows(
            """
            SELECT info FROM subscriber_transactions
            WHERE store = ? AND original_transaction_id = ? AND transaction_id <> ?
            ORDER BY updated_at DESC LIMIT 1
            """,
            info.store.rawValue.sql,
            (info.originalTransactionId ?? info.transactionId).sql,
            info.transactionId.sql
        ).first?["info"]?.text.map { try decodeInfo($0) }
    }

    /// The price stored for a transaction, if a verification reported one.
    static func storedPrice(_ connection: any LedgerConnection, _ info: TransactionInfo) async throws -> Money? {
        let row = try await connection.rows(
            "SELECT price, currency FROM subscriber_transactions WHERE store = ? AND transaction_id = ?",
            info.store.rawValue.sql,
            info.transactionId.sql
        ).first
        guard let amount = row?["price"]?.text, let currency = row?["currency"]?.text else { return nil }
        return Money(decimalString: amount, currency: currency)
    }

    static func encodeInfo(_ info: TransactionInfo) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(info), as: UTF8.self)
    }

    static func decodeInfo(_ text: String) throws -> TransactionInfo {
        // The stored format (dates in milliseconds), not the wire's: rows written by every version read back.
        let decoder = JSONCoding.decoder
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(TransactionInfo.self, from: Data(text.utf8))
    }
}

extension LedgerStore {
    /// A recorded transaction, if any user posted it.
    public func storedTransaction(store: Store, transactionId: String) async throws(LedgerError) -> TransactionInfo? {
        try await transaction(locking: []) { connection in
            try await Self.storedInfo(connection, store: store, transactionId: transactionId)
        }
    }
}

public import Foundation
public import OpenCatCore

// The ledger's repositories: what the controllers may ask of the database, one protocol per concern. Every
// ``LedgerStore`` implements all of them (`SQLiteLedgerStore`, `PostgresLedgerStore`), with SQL written once over
// ``LedgerConnection`` in this folder; a controller holds only the repositories it uses, and each protocol has one
// contract test suite that runs on SQLite and PostgreSQL (Tools/Tests/OpenCatServerTests/RepositoryContractTests.swift).

/// Wallets: balances as sums of append-only entries, spends, unlocks, transfers, the community pool, the key lots
/// behind a balance and the licences a purchase minted.
public protocol WalletRepository: Sendable {
    /// A user's balance: the sum of their entries.
    func balance(of userId: String) async throws(LedgerError) -> Int64
    /// A user's newest entries, newest first.
    func entries(of userId: String, limit: Int) async throws(LedgerError) -> [LedgerEntry]
    /// A page of a user's entries, newest first, before `cursor`.
    func history(of userId: String, after cursor: Int64?, limit: Int) async throws(LedgerError) -> (
        entries: [LedgerEntry], nextCursor: Int64?
    )
    /// A user's entries written after `cursor`, oldest first (a follower's feed).
    func follow(_ userId: String, after cursor: Int64?, limit: Int) async throws(LedgerError) -> (
        entries: [LedgerEntry], cursor: Int64?
    )
    /// Claims an idempotency key for one operation and body; the same key with another body is a conflict.
    func claimIdempotencyKey(userId: String, key: String, operation: String, fingerprint: String)
        async throws(LedgerError)
    /// Takes keys from a wallet once per idempotency key.
    func spend(userId: String, amount: Int64, kind: String, reference: String?, app: String?, idempotencyKey: String)
        async throws(LedgerError) -> SpendOutcome
    /// Unlocks an app's feature for its cost, once.
    func unlock(userId: String, app: String, feature: String, cost: Int64, idempotencyKey: String)
        async throws(LedgerError) -> UnlockOutcome
    /// The features a user unlocked, by app.
    func unlockedFeatures(of userId: String) async throws(LedgerError) -> [String: [String]]
    /// Moves keys from one wallet to another (a share, a donation) once per idempotency key.
    func transfer(
        from userId: String,
        to recipient: String,
        amount: Int64,
        kind: String,
        receivedKind: String,
        idempotencyKey: String
    ) async throws(LedgerError) -> TransferOutcome
    /// Moves what a holding account (keys shared to an email not yet known) holds to a user.
    func release(_ account: String, to userId: String) async throws(LedgerError) -> Int64
    /// A sender's shares whose keys still wait for an address nobody has signed in with.
    func pendingShares(of userId: String) async throws(LedgerError) -> [PendingShare]
    /// Takes a pending share's keys back to its sender, once; returns how many came back.
    func cancelShare(_ entryId: String, of userId: String) async throws(LedgerError) -> Int64
    /// The community pool's keys and how many gave to it.
    func communityPool() async throws(LedgerError) -> (totalKeys: Int64, contributors: Int64)
    /// The lots a user's keys came from (which purchase each key belongs to).
    func lots(of userId: String) async throws(LedgerError) -> [KeyLot]
    /// The licences a user's purchases minted.
    func licenses(of userId: String) async throws(LedgerError) -> [LicenseRecord]
    /// The keys of every revoked licence.
    func revokedLicenseKeys() async throws(LedgerError) -> [String]
    /// The revoked licence keys and the list's serial.
    func revocations() async throws(LedgerError) -> (keys: [String], serial: UInt64)
    /// An operator's correction of a wallet (audited); the balance after it.
    func adjustWallet(userId: String, amount: Int64, by operatorName: String, reason: String)
        async throws(LedgerError) -> Int64
}

/// Redemptions: a store transaction credited once across all users, and taken back when the store refunds it.
public protocol RedemptionRepository: Sendable {
    /// Credits a verified key-pack purchase once: its keys, bonus, community share and licences.
    func redeem(store: String, transactionId: String, userId: String, grant: KeyGrant)
        async throws(LedgerError) -> RedemptionOutcome
    /// Credits `amount` keys for a store transaction once.
    func redeem(store: String, transactionId: String, userId: String, amount: Int64)
        async throws(LedgerError) -> LedgerEntry
    /// Takes back what a refunded transaction paid for (all of it, or `share` of it).
    func refund(store: String, transactionId: String, share: RefundShare?) async throws(LedgerError) -> RefundOutcome
    /// The user a store transaction was redeemed for, or nil when it was not redeemed.
    func redeemer(store: String, transactionId: String) async throws(LedgerError) -> String?
    /// The keys of a transaction its holders still hold.
    func heldKeys(store: String, transactionId: String) async throws(LedgerError) -> Int64
    /// A user's redeemed store transactions, refunded or not.
    func redemptions(of userId: String) async throws(LedgerError) -> [(
        store: String, transactionId: String, refunded: Bool
    )]
    /// Records a one-time use (a Steam ticket, a signed link): false when it was used before.
    func useOnce(kind: String, digest: String, subject: String) async throws(LedgerError) -> Bool
}

extension RedemptionRepository {
    /// Takes back all of what a refunded transaction paid for.
    public func refund(store: String, transactionId: String) async throws(LedgerError) -> RefundOutcome {
        try await refund(store: store, transactionId: transactionId, share: nil)
    }
}

/// Subscribers of the OpenCat API: their store transactions, the stores' events in the stores' order, and the
/// promotional entitlements an operator granted.
public protocol SubscriberRepository: Sendable {
    /// An app user's first sighting and transactions.
    func subscriber(_ appUserId: String) async throws(LedgerError) -> (
        firstSeenAt: Date, transactions: [TransactionInfo]
    )
    /// Records a verified transaction for an app user, as of `storeTime`, with the price the store charged.
    func record(_ info: TransactionInfo, appUserId: String, storeTime: Date?, price: Money?) async throws(LedgerError)
    /// Applies a store's event once per event id, never over a newer state.
    func applyStoreEvent(
        source: String,
        eventId: String,
        update: TransactionInfo?,
        refundShare: RefundShare?,
        storeTime: Date?,
        price: Money?
    ) async throws(LedgerError) -> StoreEventOutcome
    /// A transaction as stored.
    func storedTransaction(store: Store, transactionId: String) async throws(LedgerError) -> TransactionInfo?
    /// Grants a promotional entitlement (audited).
    func grantPromotionalEntitlement(_ grant: PromotionalEntitlement) async throws(LedgerError)
    /// Revokes one (audited); false when there was none.
    func revokePromotionalEntitlement(id: String, appUserId: String, by operatorName: String, reason: String)
        async throws(LedgerError) -> Bool
    /// An app user's promotional entitlements.
    func promotionalEntitlements(of appUserId: String) async throws(LedgerError) -> [PromotionalEntitlement]
}

extension SubscriberRepository {
    /// Records a verified transaction for an app user, as of now.
    public func record(_ info: TransactionInfo, appUserId: String) async throws(LedgerError) {
        try await record(info, appUserId: appUserId, storeTime: nil, price: nil)
    }

    /// Records a verified transaction for an app user, as of `storeTime`, price unknown.
    public func record(_ info: TransactionInfo, appUserId: String, storeTime: Date?) async throws(LedgerError) {
        try await record(info, appUserId: appUserId, storeTime: storeTime, price: nil)
    }

    /// Applies a store's event once per event id, price unknown.
    public func applyStoreEvent(
        source: String,
        eventId: String,
        update: TransactionInfo?,
        refundShare: RefundShare?,
        storeTime: Date?
    ) async throws(LedgerError) -> StoreEventOutcome {
        try await applyStoreEvent(
            source: source,
            eventId: eventId,
            update: update,
            refundShare: refundShare,
            storeTime: storeTime,
            price: nil
        )
    }

    /// Applies a store's event once per event id.
    public func applyStoreEvent(source: String, eventId: String, update: TransactionInfo?)
        async throws(LedgerError) -> StoreEventOutcome
    {
        try await applyStoreEvent(
            source: source,
            eventId: eventId,
            update: update,
            refundShare: nil,
            storeTime: nil,
            price: nil
        )
    }
}

/// The web portal's and console's sign-in links and sessions, kept by their SHA-256 only.
public protocol WebSessionRepository: Sendable {
    /// Stores a sign-in link until it expires.
    func createSignInLink(tokenSHA256: String, email: String, expiresAt: Date) async throws(LedgerError)
    /// Uses a sign-in link once: its email, or nil when it is unknown, used or expired.
    func useSignInLink(tokenSHA256: String) async throws(LedgerError) -> String?
    /// Whether a sign-in link can still be used (without using it).
    func signInLinkIsUsable(tokenSHA256: String) async throws(LedgerError) -> Bool
    /// Stores a session until it expires.
    func createWebSession(idSHA256: String, session: WebSession, expiresAt: Date) async throws(LedgerError)
    /// A live session of a kind (`portal`, `console`).
    func webSession(idSHA256: String, kind: String) async throws(LedgerError) -> WebSession?
    /// Ends a session.
    func endWebSession(idSHA256: String) async throws(LedgerError)
}

/// Orders placed on the web portal, before and after the store says they are paid.
public protocol WebOrderRepository: Sendable {
    /// Records an order (a Stripe Checkout Session, a PayPal order).
    func recordWebOrder(_ order: WebOrder) async throws(LedgerError)
    /// An order by its store reference.
    func webOrder(store: String, reference: String) async throws(LedgerError) -> WebOrder?
    /// A user's orders.
    func webOrders(of userId: String) async throws(LedgerError) -> [WebOrder]
    /// Orders by store reference or store transaction.
    func webOrders(store: String, referenceOrTransaction id: String) async throws(LedgerError) -> [WebOrder]
    /// Orders placed with an email.
    func webOrders(email: String) async throws(LedgerError) -> [WebOrder]
    /// Moves an order through the order model (``WebOrderState/after(_:)``); its state now, or nil when the event
    /// did not apply.
    @discardableResult
    func moveWebOrder(store: String, reference: String, _ event: WebOrderEvent) async throws(LedgerError)
        -> WebOrderState?
    /// The unsettled orders whose check is due by a date, or all of them (nil), oldest first.
    func unsettledWebOrders(dueBy date: Date?) async throws(LedgerError) -> [WebOrder]
    /// The orders paid and holding no keys (paid, needing attention), oldest first.
    func webOrdersNeedingAttention() async throws(LedgerError) -> [WebOrder]
    /// How many orders are in each state.
    func webOrderCounts() async throws(LedgerError) -> [String: Int]
}

/// Sales (what the stores charged), the operators' audit log and the console's reports over the ledger.
public protocol SalesAuditRepository: Sendable {
    /// Records a sale of `quantity` packs once per store transaction.
    func recordSale(
        store: String,
        transactionId: String,
        userId: String,
        productId: String,
        price: Money,
        quantity: Int64,
        at date: Date
    )
        async throws(LedgerError)
    /// Sales since a date, by store and day.
    func sales(since date: Date) async throws(LedgerError) -> [(store: String, day: String, price: Money)]
    /// Appends to the audit log.
    func audit(_ record: AuditRecord) async throws(LedgerError)
    /// The newest audit records.
    func auditLog(limit: Int) async throws(LedgerError) -> [AuditRecord]
    /// What the subscription analytics read (``SubscriptionAnalytics``).
    func analyticsFacts() async throws(LedgerError) -> AnalyticsFacts
    /// Entries since a date (kind, amount, time) for the reports.
    func reportEntries(since: Date) async throws(LedgerError) -> [ReportEntry]
    /// Every entry in order, for the export.
    func exportEntries() async throws(LedgerError) -> [(seq: Int64, entry: LedgerEntry)]
    /// Whether the ledger knows an account (an entry, a subscriber, a web order, a promotional entitlement, a portal
    /// session of a web account's email).
    func isKnownCustomer(_ userId: String) async throws(LedgerError) -> Bool
    /// Users an operator's search term finds, and why.
    func customerMatches(_ term: String) async throws(LedgerError) -> [(userId: String, reason: String)]
}

/// The server's own state in the database: generated secrets, reconciliation cursors, and whether it answers.
public protocol ServerStateRepository: Sendable {
    /// `sqlite` or `postgresql`.
    var dialect: SQLDialect { get }
    /// A secret generated once and shared by every instance.
    func serverSecret(_ name: String, make: @Sendable () -> String) async throws(LedgerError) -> String
    /// Where a reconciliation last stopped.
    func reconciliationCursor(_ source: String) async throws(LedgerError) -> Date?
    /// Moves a reconciliation's cursor.
    func setReconciliationCursor(_ source: String, _ cursor: Date) async throws(LedgerError)
    /// Whether the database answers.
    func ping() async throws(LedgerError)
}

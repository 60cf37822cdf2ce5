public import Foundation
import OpenCatCore

/// A promotional entitlement an operator granted for a period.
public struct PromotionalEntitlement: Sendable, Hashable {
    /// Its id (`promo_…`).
    public var id: String
    /// The app user it is for (the ledger's user id).
    public var appUserId: String
    /// The entitlement id.
    public var entitlement: String
    /// From when.
    public var startsAt: Date
    /// Until when.
    public var expiresAt: Date
    /// The operator who granted it.
    public var grantedBy: String
    /// Why.
    public var reason: String
    /// When an operator revoked it, if one did.
    public var revokedAt: Date?

    /// The transaction the OpenCat API reports for it (store `promotional`), so the SDK grants it like a purchase.
    public func transaction(now: Date) -> TransactionInfo {
        TransactionInfo(
            transactionId: id,
            productId: Self.productId(entitlement),
            store: Store(rawValue: "promotional"),
            purchaseDate: startsAt,
            expirationDate: revokedAt.map { min($0, expiresAt) } ?? expiresAt,
            status: revokedAt == nil && expiresAt > now && startsAt <= now ? .active : .expired,
            willRenew: false,
            environment: .production
        )
    }

    /// The product id a promotional entitlement appears under: `promotional:<entitlement>`.
    public static func productId(_ entitlement: String) -> String { "promotional:" + entitlement }
}

/// One operator action, as the audit log keeps it.
public struct AuditRecord: Sendable, Hashable {
    /// The operator.
    public var operatorName: String
    /// What was done (`grant_entitlement`, `revoke_entitlement`, `adjust_wallet`, `reverify`).
    public var action: String
    /// Whom it was about (a user id, a transaction).
    public var subject: String
    /// Why, as the operator wrote it.
    public var reason: String
    /// The outcome or parameters.
    public var detail: String?
    /// When.
    public var createdAt: Date
}

/// A browser session of the portal (a user, by email) or the console (an operator).
public struct WebSession: Sendable, Hashable {
    /// `portal` or `console`.
    public var kind: String
    /// The signed-in email (portal) or operator name (console).
    public var subject: String
    /// The session's CSRF token, which every form posts back.
    public var csrf: String
}

// The web tables: sign-in links and sessions are stored by the SHA-256 of their secret, never the secret.
extension LedgerStore {
    /// Stores a single-use sign-in link for an email, valid until `expiresAt`.
    public func createSignInLink(tokenSHA256: String, email: String, expiresAt: Date) async throws(LedgerError) {
        let now = now
        try await transaction(locking: []) { connection in
            try await connection.execute(
                "INSERT INTO web_sign_in_links (token_sha256, email, created_at, expires_at) VALUES (?, ?, ?, ?)",
                tokenSHA256.sql,
                email.sql,
                now.sql,
                expiresAt.sql
            )
        }
    }

    /// Uses a sign-in link once: its email, or `nil` when it is unknown, used or expired. Two concurrent uses of
    /// one link: one wins.
    public func useSignInLink(tokenSHA256: String) async throws(LedgerError) -> String? {
        let now = now
        return try await transaction(locking: ["signin:" + tokenSHA256]) { connection in
            let rows = try await connection.rows(
                """
                UPDATE web_sign_in_links SET used_at = ? WHERE token_sha256 = ? AND used_at IS NULL AND expires_at > ?
                RETURNING email
                """,
                now.sql,
                tokenSHA256.sql,
                now.sql
            )
            return rows.first?["email"]?.text
        }
    }

    /// Whether a sign-in link exists, unused and unexpired (the confirmation page).
    public func signInLinkIsUsable(tokenSHA256: String) async throws(LedgerError) -> Bool {
        let now = now
        return try await transaction(locking: []) { connection in
            try await connection.integer(
                "SELECT COUNT(*) FROM web_sign_in_links WHERE token_sha256 = ? AND used_at IS NULL AND expires_at > ?",
                tokenSHA256.sql,
                now.sql
            ) > 0
        }
    }

    /// Starts a session.
    public func createWebSession(idSHA256: String, session: WebSession, expiresAt: Date) async throws(LedgerError) {
        let now = now
        try await transaction(locking: []) { connection in
            try await connection.execute(
                """
                INSERT INTO web_sessions (id_sha256, kind, subject, csrf, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                idSHA256.sql,
                session.kind.sql,
                session.subject.sql,
                session.csrf.sql,
                now.sql,
                expiresAt.sql
            )
        }
    }

    /// A live session of a kind, or `nil` (unknown, ended, expired, or of the other kind).
    public func webSession(idSHA256: String, kind: String) async throws(LedgerError) -> WebSession? {
        let now = now
        return try await transaction(locking: []) { connection in
            let rows = try await connection.rows(
                """
                SELECT kind, subject, csrf FROM web_sessions
                WHERE id_sha256 = ? AND kind = ? AND ended_at IS NULL AND expires_at > ?
                """,
                idSHA256.sql,
                kind.sql,
                now.sql
            )
            guard let row = rows.first, let subject = row["subject"]?.text, let csrf = row["csrf"]?.text else {
                return nil
            }
            return WebSession(kind: kind, subject: subject, csrf: csrf)
        }
    }

    /// Ends a session (sign out).
    public func endWebSession(idSHA256: String) async throws(LedgerError) {
        let now = now
        try await transaction(locking: []) { connection in
            try await connection.execute(
                "UPDATE web_sessions SET ended_at = ? WHERE id_sha256 = ? AND ended_at IS NULL",
                now.sql,
                idSHA256.sql
            )
        }
    }

    // MARK: Promotional entitlements and the audit log

    /// Grants a promotional entitlement and writes the audit record, in one transaction.
    public func grantPromotionalEntitlement(_ grant: PromotionalEntitlement) async throws(LedgerError) {
        let now = now
        try await transaction(locking: []) { connection in
            try await connection.execute(
                """
                INSERT INTO promotional_entitlements (id, app_user_id, entitlement, starts_at, expires_at, granted_by,
                    reason)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                grant.id.sql,
                grant.appUserId.sql,
                grant.entitlement.sql,
                grant.startsAt.sql,
                grant.expiresAt.sql,
                grant.grantedBy.sql,
                grant.reason.sql
            )
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: grant.grantedBy,
                    action: "grant_entitlement",
                    subject: grant.appUserId,
                    reason: grant.reason,
                    detail: "\(grant.entitlement) until \(grant.expiresAt.formatted(.iso8601))",
                    createdAt: now
                )
            )
            var data = WebhookEventData()
            data.appUserId = grant.appUserId
            data.entitlement = grant.entitlement
            data.storeTime = WebhookEvent.timestamp(grant.startsAt)
            data.expiresAt = WebhookEvent.timestamp(grant.expiresAt)
            try await connection.enqueue(.promotionalGrant, data, now: now)
        }
    }

    /// Revokes a promotional entitlement (from now) and writes the audit record; false when it was not live.
    public func revokePromotionalEntitlement(id: String, appUserId: String, by operatorName: String, reason: String)
        async throws(LedgerError) -> Bool
    {
        let now = now
        return try await transaction(locking: []) { connection in
            let rows = try await connection.rows(
                """
                UPDATE promotional_entitlements SET revoked_at = ?
                WHERE id = ? AND app_user_id = ? AND revoked_at IS NULL RETURNING entitlement
                """,
                now.sql,
                id.sql,
                appUserId.sql
            )
            guard let entitlement = rows.first?["entitlement"]?.text else { return false }
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: "revoke_entitlement",
                    subject: appUserId,
                    reason: reason,
                    detail: entitlement,
                    createdAt: now
                )
            )
            return true
        }
    }

    /// A user's promotional entitlements, newest first.
    public func promotionalEntitlements(of appUserId: String) async throws(LedgerError) -> [PromotionalEntitlement] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT * FROM promotional_entitlements WHERE app_user_id = ? ORDER BY starts_at DESC",
                appUserId.sql
            ).map { row in
                PromotionalEntitlement(
                    id: row["id"]?.text ?? "",
                    appUserId: row["app_user_id"]?.text ?? "",
                    entitlement: row["entitlement"]?.text ?? "",
                    startsAt: Date(timeIntervalSince1970: row["starts_at"]?.real ?? 0),
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"]?.real ?? 0),
                    grantedBy: row["granted_by"]?.text ?? "",
                    reason: row["reason"]?.text ?? "",
                    revokedAt: row["revoked_at"]?.real.map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    /// Adjusts a wallet by an operator: a ledger entry (`adjustment`, never an edit) and its audit record, in one
    /// transaction. A negative adjustment may not take the balance below zero.
    public func adjustWallet(userId: String, amount: Int64, by operatorName: String, reason: String)
        async throws(LedgerError) -> Int64
    {
        guard amount != 0, abs(amount) <= 1_000_000, !userId.isEmpty else {
            throw LedgerError(.invalidInput, "an adjustment is a non-zero number of keys up to a million")
        }
        let now = now
        return try await transaction(locking: [userId]) { connection in
            let balance = try await Self.balance(connection, userId)
            if amount < 0, balance + amount < 0 {
                throw LedgerError(.insufficientBalance, "the wallet holds fewer keys than the adjustment takes")
            }
            let id = Self.newEntryId()
            try await Self.insert(
                connection,
                LedgerEntry(
                    id: id,
                    userId: userId,
                    amount: amount,
                    kind: "adjustment",
                    reference: "operator:" + operatorName,
                    createdAt: now
                ),
                idempotencyKey: "adjustment:\(id)"
            )
            if amount > 0 {
                try await Self.addLots(
                    connection,
                    userId: userId,
                    [KeyLot(source: nil, keys: amount)],
                    balanceBefore: balance,
                    now: now
                )
            } else {
                _ = try await Self.takeLots(connection, userId: userId, amount: -amount)
            }
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: "adjust_wallet",
                    subject: userId,
                    reason: reason,
                    detail: "\(amount > 0 ? "+" : "")\(amount) keys (\(id))",
                    createdAt: now
                )
            )
            return balance + amount
        }
    }

    /// Writes an audit record on its own (an action whose effect is elsewhere, such as a re-verification).
    public func audit(_ record: AuditRecord) async throws(LedgerError) {
        try await transaction(locking: []) { connection in try await Self.audit(connection, record) }
    }

    /// The newest audit records.
    public func auditLog(limit: Int) async throws(LedgerError) -> [AuditRecord] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?",
                Int64(max(1, min(limit, 1000))).sql
            ).map { row in
                AuditRecord(
                    operatorName: row["operator"]?.text ?? "",
                    action: row["action"]?.text ?? "",
                    subject: row["subject"]?.text ?? "",
                    reason: row["reason"]?.text ?? "",
                    detail: row["detail"]?.text,
                    createdAt: Date(timeIntervalSince1970: row["created_at"]?.real ?? 0)
                )
            }
        }
    }

    static func audit(_ connection: any LedgerConnection, _ record: AuditRecord) async throws {
        try await connection.execute(
            "INSERT INTO audit_log (operator, action, subject, reason, detail, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            record.operatorName.sql,
            record.action.sql,
            record.subject.sql,
            record.reason.sql,
            record.detail.sql,
            record.createdAt.sql
        )
    }

    // MARK: Sales

    /// Records a key-pack sale with its exact price, once per store transaction.
    public func recordSale(
        store: String,
        transactionId: String,
        userId: String,
        productId: String,
        price: Money,
        quantity: Int64,
        at date: Date
    ) async throws(LedgerError) {
        try await transaction(locking: []) { connection in
            try await connection.execute(
                """
                INSERT INTO sales (store, transaction_id, user_id, product_id, amount, currency, sold_at, quantity)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (store, transaction_id) DO NOTHING
                """,
                store.sql,
                transactionId.sql,
                userId.sql,
                productId.sql,
                "\(price.amount)".sql,
                price.currency.uppercased().sql,
                date.sql,
                max(quantity, 1).sql
            )
        }
    }

    /// Every sale since a date: store, currency, day (UTC, `yyyy-MM-dd`) and exact amount.
    public func sales(since date: Date) async throws(LedgerError) -> [(store: String, day: String, price: Money)] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                "SELECT store, amount, currency, sold_at FROM sales WHERE sold_at >= ? ORDER BY sold_at",
                date.sql
            ).compactMap { row in
                guard let store = row["store"]?.text, let amount = row["amount"]?.text,
                    let currency = row["currency"]?.text, let price = Money(decimalString: amount, currency: currency),
                    let seconds = row["sold_at"]?.real
                else { return nil }
                return (store, Self.day(Date(timeIntervalSince1970: seconds)), price)
            }
        }
    }

    /// A UTC day, `yyyy-MM-dd`.
    static func day(_ date: Date) -> String {
        String(date.formatted(.iso8601.year().month().day()).prefix(10))
    }
}

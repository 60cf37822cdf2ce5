import Foundation
import OpenCatCore

// The outbox: an event is written in the transaction of the ledger or subscription change that causes it, with one
// delivery row per endpoint that wants its type, so a change that commits always has its event and a change that
// rolls back never has one. The delivery worker (WebhookDelivery.swift) sends what is due.

extension LedgerConnection {
    /// Writes `event` and one pending delivery per enabled endpoint that asks for its type (or only to `endpoint`,
    /// for a test event), due now. Nothing is written when no endpoint wants it.
    package func enqueue(_ event: WebhookEvent, now: Date, only endpoint: String? = nil) async throws {
        // A test event goes to the endpoint it was sent to, whatever types that endpoint asks for.
        let endpoints = try await query(
            endpoint == nil
                ? "SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL AND (event_types = '*' OR event_types LIKE ?)"
                : "SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL AND id = ?",
            [endpoint.map(\.sql) ?? "%,\(event.type.rawValue),%".sql]
        ).compactMap { $0["id"]?.text }
        guard !endpoints.isEmpty else { return }
        try await execute(
            "INSERT INTO webhook_events (id, type, app_user_id, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            event.id.sql,
            event.type.rawValue.sql,
            event.data.appUserId.sql,
            String(decoding: try event.body(), as: UTF8.self).sql,
            now.sql
        )
        let values = Array(repeating: "(?, ?, 'pending', 0, ?, ?)", count: endpoints.count).joined(separator: ", ")
        try await query(
            """
            INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_attempt_at, created_at)
            VALUES \(values)
            """,
            endpoints.flatMap { [event.id.sql, $0.sql, now.sql, now.sql] }
        )
    }

    /// Writes an event of `type` about `data`, as of `now` (see ``enqueue(_:now:only:)``).
    package func enqueue(_ type: WebhookEventType, _ data: WebhookEventData, now: Date) async throws {
        try await enqueue(WebhookEvent(type: type, data: data, at: now), now: now)
    }
}

/// The subscription events a change of one stored transaction means: a pure function of the row before, the
/// subscription's newest other transaction (for a new row) and the row after, with one event per change it reveals
/// (a renewal that also turns auto-renew off is `renewal` and `cancellation`; a product change that renews is
/// `product_change` and `renewal`), whether the store reports the new state under the same transaction id (PayPal's
/// subscription, a Stripe subscription changed within its period) or a new one (Apple's renewal transaction, Google's
/// renewal order, Stripe's invoice).
enum SubscriptionChange {
    static func events(before: TransactionInfo?, previous: TransactionInfo?, after: TransactionInfo)
        -> [WebhookEventType]
    {
        guard let base = before ?? previous else { return after.status == .refunded ? [] : [.initialPurchase] }
        if after.status == .refunded { return before?.status == .refunded ? [] : [.refund] }
        var events: [WebhookEventType] = []
        if after.productId != base.productId { events.append(.productChange) }
        let later = isLater(after.expirationDate, than: base.expirationDate)
        if after.status != base.status {
            switch after.status {
            case .expired: events.append(.expiration)
            case .billingRetry: events.append(.billingIssue)
            case .gracePeriod: events.append(.gracePeriod)
            case .active where later: events.append(.renewal)
            default: break
            }
        } else if after.status == .active, later {
            events.append(.renewal)
        }
        if after.expirationDate != nil, after.status != .expired, base.willRenew != after.willRenew {
            events.append(after.willRenew ? .uncancellation : .cancellation)
        }
        return events
    }

    /// Whether `date` is later than `other` by the stored precision (milliseconds): a row read back is never
    /// "later" than the same date before it was stored.
    static func isLater(_ date: Date?, than other: Date?) -> Bool {
        guard let date else { return false }
        guard let other else { return true }
        return (date.timeIntervalSince1970 * 1000).rounded() > (other.timeIntervalSince1970 * 1000).rounded()
    }
}

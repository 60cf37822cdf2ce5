public import Foundation

// The endpoints and deliveries over ``LedgerConnection``, once for SQLite and PostgreSQL.
extension LedgerStore {
    public func registerWebhookEndpoint(_ endpoint: WebhookEndpoint, secret: String, by operatorName: String)
        async throws(LedgerError)
    {
        guard !endpoint.id.isEmpty, !endpoint.url.isEmpty else {
            throw LedgerError(.invalidInput, "an endpoint needs an id and a URL")
        }
        let now = now
        try await transaction(locking: ["webhook-endpoint:\(endpoint.id)"]) { connection in
            let existing = try await connection.rows(
                "SELECT url, event_types, secret, app FROM webhook_endpoints WHERE id = ?",
                endpoint.id.sql
            ).first
            if existing?["url"]?.text == endpoint.url, existing?["event_types"]?.text == endpoint.storedTypes,
                existing?["secret"]?.text == secret, existing?["app"]?.text == endpoint.app
            {
                return
            }
            try await connection.execute(
                """
                INSERT INTO webhook_endpoints (id, app, url, event_types, secret, origin, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET app = excluded.app, url = excluded.url,
                    event_types = excluded.event_types, secret = excluded.secret, origin = excluded.origin
                """,
                endpoint.id.sql,
                endpoint.app.sql,
                endpoint.url.sql,
                endpoint.storedTypes.sql,
                secret.sql,
                endpoint.origin.sql,
                now.sql
            )
            let action = existing == nil ? "webhook_endpoint_added" : "webhook_endpoint_changed"
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: action,
                    subject: endpoint.id,
                    reason: endpoint.origin,
                    detail: "\(endpoint.url) \(endpoint.storedTypes)",
                    createdAt: now
                )
            )
        }
    }

    public func webhookEndpoints() async throws(LedgerError) -> [WebhookEndpoint] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT id, app, url, event_types, origin, created_at, disabled_at, disabled_reason, failing_since
                FROM webhook_endpoints ORDER BY created_at, id
                """
            ).map { row in
                WebhookEndpoint(
                    id: row["id"]?.text ?? "",
                    app: row["app"]?.text ?? "",
                    url: row["url"]?.text ?? "",
                    eventTypes: WebhookEndpoint.types(row["event_types"]?.text ?? "*"),
                    origin: row["origin"]?.text ?? "",
                    createdAt: Self.date(row["created_at"]) ?? .distantPast,
                    disabledAt: Self.date(row["disabled_at"]),
                    disabledReason: row["disabled_reason"]?.text,
                    failingSince: Self.date(row["failing_since"])
                )
            }
        }
    }

    public func setWebhookEndpoint(_ id: String, enabled: Bool, by operatorName: String, reason: String)
        async throws(LedgerError) -> Bool
    {
        let now = now
        return try await transaction(locking: ["webhook-endpoint:\(id)"]) { connection in
            try await Self.setEndpoint(connection, id, enabled: enabled, by: operatorName, reason: reason, now: now)
        }
    }

    /// Turns an endpoint on (its failures forgotten) or off, with an audit entry; false when it is unknown.
    static func setEndpoint(
        _ connection: any LedgerConnection,
        _ id: String,
        enabled: Bool,
        by operatorName: String,
        reason: String,
        now: Date
    ) async throws -> Bool {
        let changed = try await connection.query(
            enabled
                ? """
                UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
                WHERE id = ? RETURNING id
                """
                : """
                UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL
                RETURNING id
                """,
            enabled ? [id.sql] : [now.sql, reason.sql, id.sql]
        )
        guard !changed.isEmpty else { return false }
        let action = enabled ? "webhook_endpoint_enabled" : "webhook_endpoint_disabled"
        try await audit(
            connection,
            AuditRecord(operatorName: operatorName, action: action, subject: id, reason: reason, createdAt: now)
        )
        return true
    }

    public func rotateWebhookSecret(_ id: String, to secret: String, overlapUntil: Date, by operatorName: String)
        async throws(LedgerError) -> Bool
    {
        let now = now
        return try await transaction(locking: ["webhook-endpoint:\(id)"]) { connection in
            let rotated = try await connection.rows(
                """
                UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = ?, secret = ?
                WHERE id = ? RETURNING id
                """,
                overlapUntil.sql,
                secret.sql,
                id.sql
            )
            guard !rotated.isEmpty else { return false }
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: "webhook_secret_rotated",
                    subject: id,
                    reason: "rotation",
                    detail: "the old secret signs too until \(WebhookEvent.timestamp(overlapUntil))",
                    createdAt: now
                )
            )
            return true
        }
    }

    public func webhookDeliveries(endpoint: String, limit: Int) async throws(LedgerError) -> [WebhookDeliveryRecord] {
        try await transaction(locking: []) { connection in
            try await connection.rows(
                """
                SELECT d.event_id, v.type, d.endpoint_id, d.state, d.attempts, d.next_attempt_at, d.last_status,
                    d.last_error, v.created_at
                FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
                WHERE d.endpoint_id = ? ORDER BY d.seq DESC LIMIT ?
                """,
                endpoint.sql,
                Int64(max(limit, 1)).sql
            ).map { row in
                let state = row["state"]?.text ?? ""
                return WebhookDeliveryRecord(
                    eventId: row["event_id"]?.text ?? "",
                    eventType: WebhookEventType(rawValue: row["type"]?.text ?? ""),
                    endpointId: row["endpoint_id"]?.text ?? "",
                    state: state,
                    attempts: row["attempts"]?.integer ?? 0,
                    nextAttemptAt: state == "pending" ? Self.date(row["next_attempt_at"]) : nil,
                    lastStatus: row["last_status"]?.integer,
                    lastError: row["last_error"]?.text,
                    createdAt: Self.date(row["created_at"]) ?? .distantPast
                )
            }
        }
    }

    public func resendWebhookEvent(_ eventId: String, endpoint: String, by operatorName: String)
        async throws(LedgerError) -> Bool
    {
        let now = now
        return try await transaction(locking: []) { connection in
            let resent = try await connection.rows(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?
                WHERE event_id = ? AND endpoint_id = ? RETURNING seq
                """,
                now.sql,
                eventId.sql,
                endpoint.sql
            )
            guard !resent.isEmpty else { return false }
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: "webhook_event_resent",
                    subject: endpoint,
                    reason: eventId,
                    createdAt: now
                )
            )
            return true
        }
    }

    public func sendTestWebhookEvent(endpoint: String, by operatorName: String) async throws(LedgerError) -> String? {
        let now = now
        return try await transaction(locking: []) { connection in
            var data = WebhookEventData()
            data.appUserId = "opencat-test"
            let event = WebhookEvent(type: .test, data: data, at: now)
            try await connection.enqueue(event, now: now, only: endpoint)
            let queued = try await connection.rows(
                "SELECT seq FROM webhook_deliveries WHERE event_id = ?",
                event.id.sql
            )
            guard !queued.isEmpty else { return nil }
            try await Self.audit(
                connection,
                AuditRecord(
                    operatorName: operatorName,
                    action: "webhook_test_sent",
                    subject: endpoint,
                    reason: event.id,
                    createdAt: now
                )
            )
            return event.id
        }
    }

    static func date(_ value: SQLValue?) -> Date? {
        value?.real.map { Date(timeIntervalSince1970: $0) }
    }
}

// The delivery worker's two statements: claim what is due, record how an attempt ended.
extension LedgerStore {
    /// Claims up to `limit` due deliveries of enabled endpoints for one attempt each: their due time moves `lease`
    /// seconds on (another instance takes one up only after that), their attempt count up by one. PostgreSQL skips
    /// rows another instance is claiming (`FOR UPDATE SKIP LOCKED`); SQLite has one writer.
    func claimWebhookDeliveries(limit: Int, lease: TimeInterval) async throws(LedgerError) -> [ClaimedDelivery] {
        let now = now
        let dialect = dialect
        return try await transaction(locking: []) { connection in
            let rows = try await connection.rows(
                """
                SELECT d.seq, d.event_id, d.endpoint_id, d.attempts, e.url, e.secret, e.previous_secret,
                    e.previous_secret_until, v.payload, v.created_at
                FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                JOIN webhook_events v ON v.id = d.event_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND e.disabled_at IS NULL
                ORDER BY d.next_attempt_at, d.seq LIMIT ?\(dialect == .postgresql ? " FOR UPDATE OF d SKIP LOCKED" : "")
                """,
                now.sql,
                Int64(max(limit, 1)).sql
            )
            guard !rows.isEmpty else { return [] }
            let seqs = rows.compactMap { $0["seq"]?.integer }
            try await connection.query(
                """
                UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?
                WHERE seq IN (\(Array(repeating: "?", count: seqs.count).joined(separator: ", ")))
                """,
                [now.addingTimeInterval(lease).sql, now.sql] + seqs.map(\.sql)
            )
            return rows.map { row in Self.claimed(row, now: now) }
        }
    }

    static func claimed(_ row: SQLRow, now: Date) -> ClaimedDelivery {
        var secrets = [row["secret"]?.text ?? ""]
        if let previous = row["previous_secret"]?.text, let until = date(row["previous_secret_until"]), until > now {
            secrets.append(previous)
        }
        return ClaimedDelivery(
            seq: row["seq"]?.integer ?? 0,
            eventId: row["event_id"]?.text ?? "",
            endpointId: row["endpoint_id"]?.text ?? "",
            url: row["url"]?.text ?? "",
            payload: Data((row["payload"]?.text ?? "").utf8),
            secrets: secrets,
            attempt: (row["attempts"]?.integer ?? 0) + 1,
            eventCreatedAt: date(row["created_at"]) ?? now
        )
    }

    /// Records how an attempt ended: delivered; failed for good (a 410, which also turns the endpoint off, or the
    /// retry window is over); or due again after a backoff. An endpoint with no 2xx for
    /// ``WebhookSettings/disableAfterDays`` is turned off, audited. A result of a claim that expired and was taken
    /// up again elsewhere changes nothing but a delivery.
    func finishWebhookAttempt(
        _ delivery: ClaimedDelivery,
        result: WebhookAttemptResult,
        settings: WebhookSettings,
        jitter: Double
    ) async throws(LedgerError) {
        let now = now
        try await transaction(locking: ["webhook-endpoint:\(delivery.endpointId)"]) { connection in
            switch result {
            case .delivered(let status):
                try await connection.execute(
                    """
                    UPDATE webhook_deliveries SET state = 'delivered', delivered_at = ?, last_status = ?,
                        last_error = NULL
                    WHERE seq = ? AND state = 'pending'
                    """,
                    now.sql,
                    Int64(status).sql,
                    delivery.seq.sql
                )
                try await connection.execute(
                    "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?",
                    delivery.endpointId.sql
                )
            case .gone:
                _ = try await Self.settle(connection, delivery, state: "failed", next: now, status: 410, error: nil)
                _ = try await Self.setEndpoint(
                    connection,
                    delivery.endpointId,
                    enabled: false,
                    by: "opencat-server",
                    reason: "the endpoint answered 410 Gone",
                    now: now
                )
            case .failed(let status, let error):
                let window = delivery.eventCreatedAt.addingTimeInterval(
                    TimeInterval(max(settings.retryHours, 24) * 3600)
                )
                let wait = WebhookSettings.backoff(after: delivery.attempt, jitter: jitter)
                let over = now >= window
                let next = over ? now : min(now.addingTimeInterval(wait), window)
                let settled = try await Self.settle(
                    connection,
                    delivery,
                    state: over ? "failed" : "pending",
                    next: next,
                    status: status,
                    error: error
                )
                if settled { try await Self.noteFailure(connection, delivery.endpointId, settings: settings, now: now) }
            }
        }
    }

    /// Writes an attempt's outcome, only while the delivery is still this attempt's (not claimed again since);
    /// whether it did.
    static func settle(
        _ connection: any LedgerConnection,
        _ delivery: ClaimedDelivery,
        state: String,
        next: Date,
        status: Int?,
        error: String?
    ) async throws -> Bool {
        let settled = try await connection.rows(
            """
            UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, last_status = ?, last_error = ?
            WHERE seq = ? AND attempts = ? AND state = 'pending' RETURNING seq
            """,
            state.sql,
            next.sql,
            status.map { Int64($0).sql } ?? .null,
            error.sql,
            delivery.seq.sql,
            delivery.attempt.sql
        )
        return !settled.isEmpty
    }

    /// Marks an endpoint failing since now (if it was not already) and turns it off when it has been for days.
    static func noteFailure(_ connection: any LedgerConnection, _ id: String, settings: WebhookSettings, now: Date)
        async throws
    {
        try await connection.execute(
            "UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL",
            now.sql,
            id.sql
        )
        let since = try await connection.rows("SELECT failing_since FROM webhook_endpoints WHERE id = ?", id.sql)
            .first.flatMap { date($0["failing_since"]) }
        let limit = TimeInterval(max(settings.disableAfterDays, 1) * 86_400)
        guard let since, now.timeIntervalSince(since) >= limit else { return }
        _ = try await setEndpoint(
            connection,
            id,
            enabled: false,
            by: "opencat-server",
            reason: "no 2xx answer for \(settings.disableAfterDays) days",
            now: now
        )
    }
}

public import Foundation

/// An integrator's endpoint: where events go, which ones, and whether it is on. Its secrets are never part of it
/// (the console shows a new secret once, when it is made).
public struct WebhookEndpoint: Sendable, Hashable {
    /// The endpoint's id (`ep_…`, or the name the configuration gives it).
    public var id: String
    /// The app it belongs to (a label the console groups by).
    public var app: String
    /// Where events are posted (https; http and private addresses only in development mode).
    public var url: String
    /// The event types it receives; nil: every type.
    public var eventTypes: [WebhookEventType]?
    /// `config` (from the configuration file, kept in step at every start) or `console`.
    public var origin: String
    /// When it was registered.
    public var createdAt: Date
    /// When it was turned off, and why (a 410, days of failures, an operator).
    public var disabledAt: Date?
    /// Why it was turned off.
    public var disabledReason: String?
    /// The first failure since its last 2xx.
    public var failingSince: Date?

    /// An endpoint.
    public init(
        id: String,
        app: String,
        url: String,
        eventTypes: [WebhookEventType]?,
        origin: String,
        createdAt: Date,
        disabledAt: Date? = nil,
        disabledReason: String? = nil,
        failingSince: Date? = nil
    ) {
        self.id = id
        self.app = app
        self.url = url
        self.eventTypes = eventTypes
        self.origin = origin
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.failingSince = failingSince
    }

    /// The types as stored: `*`, or `,a,b,` (so one `LIKE` finds a type).
    var storedTypes: String {
        guard let eventTypes else { return "*" }
        return "," + eventTypes.map(\.rawValue).joined(separator: ",") + ","
    }

    static func types(_ stored: String) -> [WebhookEventType]? {
        stored == "*" ? nil : stored.split(separator: ",").map { WebhookEventType(rawValue: String($0)) }
    }
}

/// One event's delivery to one endpoint, as the console lists it.
public struct WebhookDeliveryRecord: Sendable, Hashable {
    /// The event's id (its `webhook-id`).
    public var eventId: String
    /// The event's type.
    public var eventType: WebhookEventType
    /// The endpoint.
    public var endpointId: String
    /// `pending`, `delivered` or `failed` (retries over, or the endpoint answered 410).
    public var state: String
    /// Attempts made so far.
    public var attempts: Int64
    /// When the next attempt is due (pending only).
    public var nextAttemptAt: Date?
    /// The status code of the last attempt (nil: no answer, see ``lastError``).
    public var lastStatus: Int64?
    /// Why the last attempt got no answer (a timeout, a refused address).
    public var lastError: String?
    /// When the event was written.
    public var createdAt: Date
}

/// A delivery claimed for one attempt: what to send, where, signed with which secrets.
struct ClaimedDelivery: Sendable {
    var seq: Int64
    var eventId: String
    var endpointId: String
    var url: String
    var payload: Data
    /// The endpoint's secrets that sign (the new one, and the old one while a rotation's window lasts).
    var secrets: [String]
    /// This attempt's number (1 for the first).
    var attempt: Int64
    var eventCreatedAt: Date
}

/// How an attempt ended.
enum WebhookAttemptResult: Sendable, Equatable {
    /// A 2xx: delivered.
    case delivered(status: Int)
    /// 410 Gone: the receiver asks for no more events; the endpoint is turned off.
    case gone
    /// Any other status, or no answer (`error`): retried later.
    case failed(status: Int?, error: String?)
}

/// The integrators' endpoints and the outbox's deliveries (Webhooks/): what the console and the delivery worker ask
/// of the database. Every ``LedgerStore`` implements it; its contract suite runs on SQLite and PostgreSQL.
public protocol WebhookRepository: Sendable {
    /// Registers an endpoint with its secret (`whsec_…`), or updates one the configuration names (its URL, types
    /// and secret), with an audit entry.
    func registerWebhookEndpoint(_ endpoint: WebhookEndpoint, secret: String, by operatorName: String)
        async throws(LedgerError)
    /// Every endpoint, oldest first.
    func webhookEndpoints() async throws(LedgerError) -> [WebhookEndpoint]
    /// Turns an endpoint on or off (audited); false when there is no such endpoint.
    func setWebhookEndpoint(_ id: String, enabled: Bool, by operatorName: String, reason: String)
        async throws(LedgerError) -> Bool
    /// Replaces an endpoint's secret; the old one keeps signing until `overlapUntil` (audited).
    func rotateWebhookSecret(_ id: String, to secret: String, overlapUntil: Date, by operatorName: String)
        async throws(LedgerError) -> Bool
    /// An endpoint's deliveries, newest first.
    func webhookDeliveries(endpoint: String, limit: Int) async throws(LedgerError) -> [WebhookDeliveryRecord]
    /// Sends an event to an endpoint again (same `webhook-id`), now (audited); false when it never went there.
    func resendWebhookEvent(_ eventId: String, endpoint: String, by operatorName: String) async throws(LedgerError)
        -> Bool
    /// Queues a `test` event for one endpoint (audited); its id.
    func sendTestWebhookEvent(endpoint: String, by operatorName: String) async throws(LedgerError) -> String?
}

import Foundation
import HTTPTypes
import Logging
public import OpenCatCore
import ServiceLifecycle

/// The events-out settings (`webhooks` in the configuration file).
public struct WebhookSettings: Sendable {
    /// An endpoint the configuration file registers (kept in step with the database at every start).
    public struct ConfiguredEndpoint: Sendable, Hashable {
        /// Its id (stable: the deliveries hang on it).
        public var id: String
        /// The app it belongs to.
        public var app: String
        /// Where events go.
        public var url: String
        /// The types it receives; nil: all.
        public var eventTypes: [WebhookEventType]?
        /// Its secret, `whsec_…` (from `secretFile` or the environment variable `secretEnv`).
        public var secret: Secret<String>

        /// An endpoint.
        public init(id: String, app: String, url: String, eventTypes: [WebhookEventType]?, secret: Secret<String>) {
            self.id = id
            self.app = app
            self.url = url
            self.eventTypes = eventTypes
            self.secret = secret
        }
    }

    /// The endpoints the configuration registers.
    public var endpoints: [ConfiguredEndpoint] = []
    /// Development mode: `http`, loopback and private addresses allowed (default false).
    public var allowPrivateNetworks = false
    /// How long one attempt may take, in seconds (default 15).
    public var timeoutSeconds = 15
    /// How long an event is retried, in hours (default 27, at least 24): the last attempt is that long after the
    /// event.
    public var retryHours = 27
    /// An endpoint failing (no 2xx) for this many days is turned off, with an audit entry (default 5).
    public var disableAfterDays = 5
    /// How long a rotated secret keeps signing beside the new one, in hours (default 24).
    public var rotationOverlapHours = 24

    /// Default settings, no endpoint.
    public init() {}

    /// The wait before attempt `attempt + 1` after `attempt` failed: 5 s × 4ⁿ⁻¹ up to 6 hours, times `jitter`
    /// (a factor in 0.75…1; the first retry comes seconds after the event, later ones hours apart).
    static func backoff(after attempt: Int64, jitter: Double) -> TimeInterval {
        let exponent = Double(max(attempt - 1, 0))
        let base = min(5 * pow(4, min(exponent, 12)), 6 * 3600)
        return base * min(max(jitter, 0.75), 1)
    }
}

/// Sends what the outbox holds: claims due deliveries (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so each one goes to
/// one instance at a time), posts each signed the Standard Webhooks way, and records the answer — delivered on a 2xx,
/// the endpoint turned off on a 410, retried with backoff and jitter otherwise until ``WebhookSettings/retryHours``
/// have passed. A claim moves the delivery's due time past the attempt's timeout: an instance killed mid-delivery
/// leaves it to be tried again, with the same `webhook-id`.
struct WebhookDispatcher: Sendable {
    let store: any LedgerStore
    let client: HTTPClient
    let policy: WebhookAddressPolicy
    let settings: WebhookSettings
    let clock: @Sendable () -> Date
    let logger: Logger
    var jitter: @Sendable () -> Double = { Double.random(in: 0.75...1) }

    /// Claims and sends one batch of due deliveries (at most `limit`, a few at a time); how many were attempted.
    @discardableResult
    func deliverDue(limit: Int = 16) async throws -> Int {
        // Longer than an attempt can take (its timeout, the address check, the answer's write), with a margin.
        let lease = TimeInterval(2 * settings.timeoutSeconds + 10)
        let claimed = try await store.claimWebhookDeliveries(limit: limit, lease: lease)
        await withTaskGroup(of: Void.self) { group in
            for (index, delivery) in claimed.enumerated() {
                if index >= 4 { await group.next() }
                group.addTask {
                    let result = await attempt(delivery)
                    do {
                        try await store.finishWebhookAttempt(
                            delivery,
                            result: result,
                            settings: settings,
                            jitter: jitter()
                        )
                    } catch {
                        logger.error("webhook attempt not recorded", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
        return claimed.count
    }

    /// Sends one attempt: the address checked, the body signed with every valid secret, a timeout, no redirect.
    func attempt(_ delivery: ClaimedDelivery) async -> WebhookAttemptResult {
        let url: URL
        do {
            url = try policy.check(delivery.url)
            try await policy.checkResolved(url)
        } catch { return .failed(status: nil, error: "refused: \(error.message)") }
        let secrets = delivery.secrets.compactMap { try? StandardWebhookSecret($0) }
        var request = HTTPRequest(method: .post, url: url)
        request.headerFields = StandardWebhooks.headers(
            id: delivery.eventId,
            timestamp: clock(),
            payload: delivery.payload,
            secrets: secrets
        )
        request.headerFields[.contentType] = "application/json"
        request.headerFields[.userAgent] = "opencat-server-webhooks/1"
        do {
            let response = try await client.send(
                request,
                body: delivery.payload,
                timeout: .seconds(settings.timeoutSeconds),
                idempotent: false
            )
            let status = response.status.code
            logger.info(
                "webhook attempt",
                metadata: [
                    "endpoint": "\(delivery.endpointId)", "status": "\(status)", "attempt": "\(delivery.attempt)",
                ]
            )
            if (200..<300).contains(status) { return .delivered(status: status) }
            return status == 410 ? .gone : .failed(status: status, error: nil)
        } catch let error as HTTPTransportError {
            return .failed(status: nil, error: error.code == .timeout ? "timed out" : "no answer (\(error.code))")
        } catch {
            return .failed(status: nil, error: "no answer")
        }
    }

    /// Registers the configuration's endpoints (their URLs checked), keeping the database in step.
    func registerConfiguredEndpoints() async throws {
        for endpoint in settings.endpoints {
            _ = try policy.check(endpoint.url)
            try await store.registerWebhookEndpoint(
                WebhookEndpoint(
                    id: endpoint.id,
                    app: endpoint.app,
                    url: endpoint.url,
                    eventTypes: endpoint.eventTypes,
                    origin: "config",
                    createdAt: clock()
                ),
                secret: endpoint.secret.revealed,
                by: "configuration"
            )
        }
    }
}

/// The dispatcher as a service beside the HTTP server: registers the configured endpoints, then sends what is due,
/// looking again every second when there was nothing.
struct WebhookDeliveryService: Service {
    let dispatcher: WebhookDispatcher

    func run() async throws {
        let dispatcher = dispatcher
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await dispatcher.registerConfiguredEndpoints()
                    break
                } catch {
                    dispatcher.logger.error("webhook endpoints not registered", metadata: ["error": "\(error)"])
                    try await Task.sleep(for: .seconds(5))
                }
            }
            while !Task.isCancelled {
                let sent = (try? await dispatcher.deliverDue()) ?? 0
                if sent == 0 { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }
}

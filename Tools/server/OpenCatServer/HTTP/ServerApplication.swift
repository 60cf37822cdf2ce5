public import Foundation
import HTTPTypes
public import Hummingbird
import KeyServerAPI
public import Logging
import NIOCore
public import OpenCatCore
public import Prometheus
public import ServiceLifecycle
public import StoreAdapters

/// The reference server on Hummingbird: the key server API (Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml) and the OpenCat API
/// (docs/api/opencat-server.md) over a ``LedgerStore``, verifying every store proof through StoreAdapters.
///
/// A key-server user reads and moves only their own keys; every balance change is a ledger entry written in the
/// same transaction as the check that allows it; a store transaction is redeemed once across all users.
public struct OpenCatServerApplication: Sendable {
    /// The database the ledger lives in (SQLite or PostgreSQL): every balance change and redeemed store transaction.
    public let ledger: any LedgerStore
    /// The server's settings: bearer tokens, rate limits, timeouts, signing keys.
    public let settings: ServerSettings
    /// The store adapters that verify purchase proofs, one per store (the last one given wins).
    public let adapters: [Store: any StoreAdapter]
    /// Verifies Stripe's webhook signatures; nil: `POST /v1/notifications/stripe` answers 404.
    public let stripeWebhooks: StripeWebhookVerifier?
    /// Verifies PayPal's webhooks; nil: `POST /v1/notifications/paypal` answers 404.
    public let payPalWebhooks: PayPalWebhookVerifier?
    /// The database's name (`sqlite`, `postgresql`), reported by `/health` and `/ready`.
    public let databaseKind: String
    /// Where the server logs requests, background jobs and failures.
    public let logger: Logger
    /// The Prometheus registry the process's metrics go to (bootstrapped as swift-metrics' backend); nil: no
    /// `/metrics` and no request metrics.
    public let metrics: PrometheusCollectorRegistry?
    let clock: @Sendable () -> Date
    let syncLimiter: RateLimiter
    let storeLimiter: RateLimiter

    /// A server.
    /// - Parameters:
    ///   - adapters: one adapter per store the server accepts proofs from.
    ///   - stripeWebhooks, payPalWebhooks: verifiers for those stores' webhooks (the endpoints answer 404 without).
    ///   - now: the server's clock (`requestDate`, ledger times, rate limits).
    public init(
        ledger: any LedgerStore,
        settings: ServerSettings,
        adapters: [any StoreAdapter] = [],
        stripeWebhooks: StripeWebhookVerifier? = nil,
        payPalWebhooks: PayPalWebhookVerifier? = nil,
        databaseKind: String,
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.metrics = metrics
        self.ledger = ledger
        self.settings = settings
        self.adapters = Dictionary(adapters.map { ($0.store, $0) }, uniquingKeysWith: { _, last in last })
        self.stripeWebhooks = stripeWebhooks
        self.payPalWebhooks = payPalWebhooks
        self.databaseKind = databaseKind
        self.logger = logger
        clock = now
        syncLimiter = RateLimiter(limit: settings.syncRateLimit, clock: now)
        storeLimiter = RateLimiter(limit: settings.storeRateLimit, clock: now)
    }

    /// A wallet-only server (no stores).
    public init(ledger: any LedgerStore, tokens: BearerTokens, databaseKind: String, logger: Logger) {
        self.init(ledger: ledger, settings: ServerSettings(users: tokens), databaseKind: databaseKind, logger: logger)
    }

    static let maximumBodyBytes = OpenCatRequestDecoder.maximumBodyBytes

    /// The routes.
    public func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let routes = RouteTable()
        router.add(middleware: RequestLogMiddleware(logger: logger))
        // Metrics see the status the client gets: outside the middleware that turns errors into envelopes.
        if metrics != nil { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: ErrorEnvelopeMiddleware(routes: routes, logger: logger))
        addMetricsRoute(to: router)
        addOperationsRoutes(to: router)
        addKeyServerRoutes(to: router)
        addOpenCatRoutes(to: router)
        addNotificationRoutes(to: router)
        addPortalRoutes(to: router)
        addConsoleRoutes(to: router)
        routes.set(router.routes.map { (method: $0.method, path: $0.path) })
        return router
    }

    /// An application on an address: the routes, the idle timeout (`idleTimeoutSeconds`), a cap on open connections
    /// below the process's descriptor limit (``connectionLimit``), and the background jobs after `services`.
    /// - Parameters:
    ///   - services: services the caller runs (a database client, an HTTP client's shutdown), started before and
    ///     stopped after the server.
    ///   - onServerRunning: called with the bound port.
    ///   - beforeServerStarts: runs once before the server binds (migrations).
    public func application(
        host: String = "127.0.0.1",
        port: Int,
        services: [any Service] = [],
        onServerRunning: @escaping @Sendable (Int) -> Void = { _ in },
        beforeServerStarts: (@Sendable () async throws -> Void)? = nil
    )
        -> some ApplicationProtocol
    {
        var app = Application(
            router: router(),
            server: .http1(
                configuration: .init(idleTimeout: .seconds(Int64(max(settings.idleTimeoutSeconds, 1))))
            ),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port),
                serverName: nil,
                availableConnectionsDelegate: .maximum(Self.connectionLimit(), logger: logger)
            ),
            services: services + backgroundServices(),
            onServerRunning: { channel in onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
        if let beforeServerStarts { app.beforeServerStarts(perform: beforeServerStarts) }
        return app
    }

    /// The most connections the server holds open at once: the process's descriptor limit less an eighth of it (at
    /// least 64) for the database, the stores' HTTP client and files. At the cap the server stops accepting until a
    /// connection closes (idle ones close after `idleTimeoutSeconds`), so silent connections can never take the
    /// descriptors the rest of the server needs.
    public static func connectionLimit() -> Int {
        var limit = rlimit()
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 10_000 }
        // No limit (RLIM_INFINITY) or a huge one: a million is more than any server here holds.
        let descriptors = Int(clamping: min(limit.rlim_cur, 1_048_576))
        return max(descriptors - max(64, descriptors / 8), 16)
    }

    /// The jobs that run beside the HTTP server (the Steam refund reconciliation), after a warning for every store
    /// whose refunds never reach the server.
    func backgroundServices() -> [any Service] {
        let missing = storesWithoutRefunds
        if !missing.isEmpty {
            logger.warning(
                "refunds from these stores never reach this server: configure their notifications",
                metadata: ["stores": .string(missing.joined(separator: ","))]
            )
        }
        guard adapters[.steam] != nil, let seconds = settings.steamReconciliationSeconds else { return [] }
        return [SteamReconciliationService(server: self, interval: .seconds(max(seconds, 60)))]
    }

    /// Serves on an address until the task is cancelled (or SIGTERM / SIGINT).
    public func run(
        host: String = "127.0.0.1",
        port: Int,
        onServerRunning: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        try await application(host: host, port: port, onServerRunning: onServerRunning).runService()
    }

    // MARK: Helpers

    /// 429 with `Retry-After` when `key` (a user, an app user, an API key) called a store-backed endpoint too often.
    func limitStoreCalls(_ keys: String...) async throws {
        try await limit(keys.map { ($0, settings.storeRateLimit) })
    }

    /// Takes one call from each bucket, in order: a 429 with `Retry-After` at the first that is empty.
    func limit(_ buckets: [(key: String, limit: RateLimit)]) async throws {
        if let wait = await wait(buckets) {
            throw APIError.retry(.tooManyRequests, "rate_limited", "too many requests; retry later", after: wait)
        }
    }

    /// Takes one call from each bucket, in order, up to the first that is empty: nil when every bucket allowed it,
    /// else the seconds until that one does.
    func wait(_ buckets: [(key: String, limit: RateLimit)]) async -> Int? {
        for bucket in buckets {
            if let wait = await storeLimiter.take(bucket.key, limit: bucket.limit) { return wait }
        }
        return nil
    }

    /// The client's address: the first address of ``ServerSettings/clientAddressHeader`` when a trusted proxy sets
    /// one, else the connection's peer (`unknown` when neither says).
    func clientAddress(_ request: Request, _ context: ServerRequestContext) -> String {
        if let header = settings.clientAddressHeader, let name = HTTPField.Name(header),
            let first = request.headers[name]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces),
            !first.isEmpty
        {
            return String(first.prefix(64))
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The raw body (webhooks verify the exact bytes).
    func rawBody(_ request: Request) async throws -> Data {
        var request = request
        do { return Data(try await request.collectBody(upTo: Self.maximumBodyBytes).readableBytesView) } catch {
            throw APIError(.contentTooLarge, "invalid_input", "the body is too large")
        }
    }

    static let encoder = JSONCoding.encoder

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error answer, the same envelope on every API of the server (KeyServerAPI's, which the OpenCat API's
    /// `ServerAPI.ErrorEnvelope` reads too); `reason` is the shared StoreAdapters code behind a refused proof.
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String, reason: String? = nil)
        -> Response
    {
        json(status, KeyServerErrorAnswer(error: .init(code: code, message: message, reason: reason)))
    }

    static func error(_ error: LedgerError) -> Response {
        switch error.code {
        case .insufficientBalance: Self.error(HTTPResponse.Status(code: 402), error.code.rawValue, error.message)
        case .alreadyRedeemed, .idempotencyConflict:
            Self.error(.conflict, error.code.rawValue, error.message)
        // Final verdicts on a proof: the SDK drops it from its outbox (409 would be retried).
        case .ownedByAnotherUser, .refunded: Self.error(.unprocessableContent, error.code.rawValue, error.message)
        case .invalidInput: Self.error(.unprocessableContent, error.code.rawValue, error.message)
        case .notFound: Self.error(.notFound, error.code.rawValue, error.message)
        default: Self.error(.serviceUnavailable, "unavailable", "the server could not complete the request")
        }
    }

    /// Logs a store's verdict on a proof by its shared code (never the proof, nor the store's message, which can
    /// quote it) and returns the refusal to answer.
    func refused(_ error: any Error, store: Store) -> APIError {
        let code = (error as? StoreAdapterError)?.code.rawValue ?? "unknown"
        logger.notice("proof refused", metadata: ["store": .string(store.rawValue), "reason": .string(code)])
        ServerMetrics.purchaseRefused(store: store.rawValue, reason: code)
        return Self.refusal(error)
    }

    /// The refusal for a store's verdict: 422 `invalid_receipt` with the shared code when the proof is refused,
    /// 503 with `Retry-After` when the store could not answer.
    static func refusal(_ error: any Error) -> APIError {
        guard let error = error as? StoreAdapterError else {
            return APIError(.unprocessableContent, "invalid_receipt", "the proof was refused")
        }
        switch error.code {
        case .storeUnavailable, .timeout, .network, .rateLimited, .misconfigured, .unauthorized,
            .malformedResponse:
            return APIError.retry(
                .serviceUnavailable,
                "store_unavailable",
                "the store could not verify the proof now",
                after: 30,
                reason: error.code.rawValue
            )
        default:
            return APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the store refused the proof",
                reason: error.code.rawValue
            )
        }
    }
}

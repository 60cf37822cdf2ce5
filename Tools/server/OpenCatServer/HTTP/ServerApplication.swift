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
public struct OpenCatServerApplication: ServerController {
    /// The database the ledger lives in (SQLite or PostgreSQL): every balance change and redeemed store transaction.
    public let ledger: any LedgerStore
    /// The server's settings: bearer tokens, rate limits, timeouts, signing keys.
    public let settings: ServerSettings
    /// The store adapters that verify purchase proofs, one per store (the last one given wins).
    public var adapters: [Store: any StoreAdapter] { purchases.adapters }
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
    /// The one path a purchase takes from a proof to accepted (the adapters by store).
    let purchases: PurchaseDesk
    /// The rate limits every controller shares (one bucket store per instance).
    let limits: RateLimits
    /// The one path store events take into the ledger.
    let storeEvents: StoreEvents
    /// Sends the events the outbox holds to the integrators' endpoints.
    let webhooks: WebhookDispatcher

    /// A server.
    /// - Parameters:
    ///   - adapters: one adapter per store the server accepts proofs from.
    ///   - stripeWebhooks, payPalWebhooks: verifiers for those stores' webhooks (the endpoints answer 404 without).
    ///   - webhookTransport: what posts events to the integrators' endpoints (it must not follow redirects; default
    ///     `URLSessionTransport`, which refuses them).
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
        webhookTransport: (any HTTPTransport)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.metrics = metrics
        webhooks = WebhookDispatcher(
            store: ledger,
            client: HTTPClient(
                transport: webhookTransport ?? URLSessionTransport(),
                retryPolicy: .never,
                timeout: .seconds(settings.webhooks.timeoutSeconds),
                logger: logger
            ),
            policy: WebhookAddressPolicy(allowPrivateNetworks: settings.webhooks.allowPrivateNetworks),
            settings: settings.webhooks,
            clock: now,
            logger: logger
        )
        self.ledger = ledger
        self.settings = settings
        purchases = PurchaseDesk(adapters: adapters, logger: logger)
        storeEvents = StoreEvents(subscribers: ledger, logger: logger)
        self.stripeWebhooks = stripeWebhooks
        self.payPalWebhooks = payPalWebhooks
        self.databaseKind = databaseKind
        self.logger = logger
        clock = now
        limits = RateLimits(settings: settings, clock: now)
    }

    /// A wallet-only server (no stores).
    public init(ledger: any LedgerStore, tokens: BearerTokens, databaseKind: String, logger: Logger) {
        self.init(ledger: ledger, settings: ServerSettings(users: tokens), databaseKind: databaseKind, logger: logger)
    }

    /// The routes: every controller, built from this server's repositories, adapters and settings, on the group
    /// its authenticator guards, behind the request log, the metrics and the JSON error envelope. The one place that
    /// wires the server.
    public func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let routes = RouteTable()
        router.add(middleware: RequestLogMiddleware(logger: logger))
        // Metrics see the status the client gets: outside the middleware that turns errors into envelopes.
        if metrics != nil { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: ErrorEnvelopeMiddleware(routes: routes, logger: logger))
        if let metrics {
            MetricsController(registry: metrics, operators: settings.portal?.operators ?? []).addRoutes(to: router)
        }
        OperationsController(state: ledger, databaseKind: databaseKind, storesWithoutRefunds: storesWithoutRefunds)
            .addRoutes(to: router)
        // One seller and one checkout: the key-pack route, the store notifications and the web pages share them.
        let seller = makeSeller()
        let checkout = makeCheckout(seller)
        addKeyServerControllers(
            to: router.group("/api/v1").add(middleware: KeyServerAuthenticator(users: settings.users)),
            seller: seller
        )
        addOpenCatControllers(to: router.group("/v1").add(middleware: AppKeyAuthenticator(api: settings.openCat)))
        notifications(checkout).addRoutes(to: router)
        let pages = WebPages(
            portal: settings.portal,
            adapters: adapters,
            sessions: ledger,
            state: ledger,
            clock: clock,
            logger: logger
        )
        LandingController(pages: pages, webAreas: settings.portal != nil).addRoutes(to: router)
        if let portal = settings.portal { addWebControllers(portal, pages: pages, checkout: checkout, to: router) }
        routes.set(router.routes.map { (method: $0.method, path: $0.path) })
        return router
    }

    func makeSeller() -> KeyPackSeller {
        KeyPackSeller(settings: settings, redemptions: ledger, clock: clock, logger: logger)
    }

    func makeCheckout(_ seller: KeyPackSeller) -> WebCheckout {
        WebCheckout(
            desk: purchases,
            seller: seller,
            orders: ledger,
            users: settings.users,
            portal: settings.portal,
            environments: settings.acceptedEnvironments,
            clock: clock,
            logger: logger
        )
    }

    func addKeyServerControllers(to group: RouterGroup<ServerRequestContext>, seller: KeyPackSeller) {
        KeyPurchaseController(
            desk: purchases,
            seller: seller,
            wallet: ledger,
            limits: limits,
            bindPurchases: settings.bindPurchases
        ).addRoutes(to: group)
        WalletController(wallet: ledger, users: settings.users, clock: clock).addRoutes(to: group)
        FeaturesController(wallet: ledger, apps: settings.apps).addRoutes(to: group)
        CommunityController(wallet: ledger, users: settings.users, clock: clock).addRoutes(to: group)
        KeySyncController(
            wallet: ledger,
            keyring: settings.keyring,
            licenseOfflineSeconds: settings.licenseOfflineSeconds,
            limits: limits,
            clock: clock
        ).addRoutes(to: group)
    }

    func addOpenCatControllers(to group: RouterGroup<ServerRequestContext>) {
        let subscribers = SubscribersController(subscribers: ledger, clock: clock)
        subscribers.addRoutes(to: group)
        OfferingsController(clock: clock).addRoutes(to: group)
        WebhookEndpointsController(webhooks: ledger, settings: settings.webhooks, clock: clock).addRoutes(to: group)
        ReceiptsController(
            desk: purchases,
            subscribers: ledger,
            redemptions: ledger,
            limits: limits,
            answer: subscribers,
            settings: .init(
                bindPurchases: settings.bindPurchases,
                requireAppleAccountToken: settings.requireAppleAccountToken,
                steamTicketIdentity: settings.steamTicketIdentity,
                environments: settings.acceptedEnvironments
            )
        ).addRoutes(to: group)
    }

    func notifications(_ checkout: WebCheckout) -> NotificationsController {
        NotificationsController(
            desk: purchases,
            stripeWebhooks: stripeWebhooks,
            payPalWebhooks: payPalWebhooks,
            events: storeEvents,
            subscribers: ledger,
            orders: ledger,
            checkout: checkout,
            appleRereadNotifications: settings.appleRereadNotifications,
            googlePushToken: settings.googlePushToken,
            clock: clock
        )
    }

    func addWebControllers(
        _ portal: PortalSettings,
        pages: WebPages,
        checkout: WebCheckout,
        to router: Router<ServerRequestContext>
    ) {
        PortalController(
            pages: pages,
            ledger: ledger,
            checkout: checkout,
            limits: limits,
            portalSettings: portal,
            settings: settings,
            clock: clock,
            logger: logger
        ).addRoutes(to: router)
        ConsoleController(
            pages: pages,
            ledger: ledger,
            desk: purchases,
            events: storeEvents,
            checkout: checkout,
            limits: limits,
            portalSettings: portal,
            settings: settings,
            clock: clock,
            logger: logger
        ).addRoutes(to: router)
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

    /// The jobs that run beside the HTTP server (webhook deliveries, the web orders' reconciliation, the Steam refund
    /// reconciliation), after a warning for every store
    /// whose refunds never reach the server.
    func backgroundServices() -> [any Service] {
        let missing = storesWithoutRefunds
        if !missing.isEmpty {
            logger.warning(
                "refunds from these stores never reach this server: configure their notifications",
                metadata: ["stores": .string(missing.joined(separator: ","))]
            )
        }
        var services: [any Service] = [WebhookDeliveryService(dispatcher: webhooks)]
        if settings.portal != nil {
            // Every unsettled web order is asked about at start (payments made while the server was down), then each
            // on its schedule (a minute after it was made, then backing off), on every instance.
            services.append(OrderReconciliation(checkout: makeCheckout(makeSeller()), interval: .seconds(15)))
        }
        if adapters[.steam] != nil, let seconds = settings.steamReconciliationSeconds {
            services.append(steamReconciliationJob(interval: .seconds(max(seconds, 60))))
        }
        return services
    }

    /// Serves on an address until the task is cancelled (or SIGTERM / SIGINT).
    public func run(
        host: String = "127.0.0.1",
        port: Int,
        onServerRunning: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        try await application(host: host, port: port, onServerRunning: onServerRunning).runService()
    }

    /// `/metrics` alone, without a credential, for a port only the scraper reaches (`--metrics-port`).
    public func metricsApplication(host: String, port: Int) -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        router.get("/metrics") { _, _ in MetricsController.page(metrics) }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            logger: logger
        )
    }
}

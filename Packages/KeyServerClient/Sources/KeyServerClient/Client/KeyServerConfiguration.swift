public import Foundation
public import Logging
public import OpenCatCore

/// How a ``KeyServerClient`` reaches the key server. Defaults from the design: a 15 s timeout, 2 retries with
/// exponential back-off, auto-sync on, 5 minutes between auto-syncs.
public struct KeyServerConfiguration: Sendable {
    /// The server's base URL (the API is under `/api/v1`).
    public var baseURL: URL
    /// The bearer token of the signed-in user (every call is authenticated).
    public var token: Secret<String>
    /// Time allowed for one attempt.
    public var timeout: Duration
    /// Retries after the first attempt (429, 5xx, timeouts; for POSTs only with an idempotency key).
    public var retryAttempts: Int
    /// Whether ``KeysForAllSync/autoSyncOnOpen()`` syncs at all.
    public var autoSyncOnOpen: Bool
    /// The least time between two auto-syncs, on ``clock``.
    public var syncCooldown: Duration
    /// The transport (URLSession by default; `AsyncHTTPClientTransport` on servers).
    public var transport: any HTTPTransport
    /// The clock for timeouts, back-off and the cooldown.
    public var clock: any WallClock
    /// Where the client logs (never tokens, keys or licenses). Off by default.
    public var logger: Logger

    /// Creates a configuration.
    public init(
        baseURL: URL,
        token: Secret<String>,
        timeout: Duration = .seconds(15),
        retryAttempts: Int = 2,
        autoSyncOnOpen: Bool = true,
        syncCooldown: Duration = .seconds(300),
        transport: any HTTPTransport = URLSessionTransport(),
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.keyserver", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
        self.retryAttempts = max(0, retryAttempts)
        self.autoSyncOnOpen = autoSyncOnOpen
        self.syncCooldown = syncCooldown
        self.transport = transport
        self.clock = clock
        self.logger = logger
    }

    /// The HTTP client these settings describe.
    var httpClient: HTTPClient {
        HTTPClient(
            transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: retryAttempts + 1),
            clock: clock,
            timeout: timeout,
            logger: logger
        )
    }
}

public import Foundation
public import Logging
import OpenCatCore

extension OpenCat {
    /// Settings shared by both modes. Every field has a production default; tests inject clocks, transports
    /// and key providers here.
    public struct Options: Sendable {
        /// Where the encrypted cache lives. Default: `$XDG_DATA_HOME/opencat` (or `~/.local/share/opencat`) on
        /// Linux, Application Support on Apple platforms.
        public var cacheDirectory: URL?
        /// Supplies the cache key. Default: a 0600 key file `cache.key` in ``cacheDirectory``.
        public var keyProvider: (any KeyProvider)?
        /// The clock for expiry, staleness, timeouts and back-off.
        public var clock: any WallClock
        /// The HTTP transport for the OpenCat server.
        public var transport: any HTTPTransport
        /// The retry policy for the OpenCat server.
        public var retryPolicy: RetryPolicy
        /// The time allowed for one server request.
        public var requestTimeout: Duration
        /// How long fetched offerings are served without refreshing (24 hours).
        public var offeringsMaxAge: Duration
        /// Where log lines go when logging is on. Default: a logger from the process's `LoggingSystem`.
        public var logger: Logger?
        /// The initial log level; `nil` (the default) is off. See ``OpenCat/setLogLevel(_:)``.
        public var logLevel: Logger.Level?
        /// The store environments whose transactions grant entitlements: production only by default, since
        /// sandbox, Xcode and test purchases cost nothing. Test builds add `.sandbox`.
        public var acceptedEnvironments: Set<TransactionInfo.Environment>
        /// How many purchases ``OpenCat/restorePurchases()`` verifies at once in standalone mode (default 4).
        public var restoreConcurrency: Int
        /// How long a cache write waits for another process holding the database lock (default 5 s).
        public var cacheBusyTimeout: Duration

        /// Creates options.
        public init(
            cacheDirectory: URL? = nil,
            keyProvider: (any KeyProvider)? = nil,
            clock: any WallClock = SystemClock(),
            transport: any HTTPTransport = URLSessionTransport(),
            retryPolicy: RetryPolicy = .default,
            requestTimeout: Duration = .seconds(30),
            offeringsMaxAge: Duration = .seconds(24 * 3600),
            logger: Logger? = nil,
            logLevel: Logger.Level? = nil,
            acceptedEnvironments: Set<TransactionInfo.Environment> = [.production],
            restoreConcurrency: Int = 4,
            cacheBusyTimeout: Duration = .seconds(5)
        ) {
            self.cacheDirectory = cacheDirectory
            self.keyProvider = keyProvider
            self.clock = clock
            self.transport = transport
            self.retryPolicy = retryPolicy
            self.requestTimeout = requestTimeout
            self.offeringsMaxAge = offeringsMaxAge
            self.logger = logger
            self.logLevel = logLevel
            self.acceptedEnvironments = acceptedEnvironments
            self.restoreConcurrency = restoreConcurrency
            self.cacheBusyTimeout = cacheBusyTimeout
        }

        var resolvedCacheDirectory: URL {
            if let cacheDirectory { return cacheDirectory }
            #if canImport(Darwin)
                let base =
                    FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                    ?? FileManager.default.temporaryDirectory
            #else
                let environment = ProcessInfo.processInfo.environment
                let base =
                    environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                    ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
            #endif
            return base.appendingPathComponent("opencat", isDirectory: true)
        }
    }

    /// How purchases are checked and where truth lives.
    public enum Mode: Sendable {
        /// On-device: proofs are verified with a `PurchaseVerifier`; state lives in the local cache only.
        /// - Parameters:
        ///   - verifier: checks proofs (StoreAdapters' `AdapterPurchaseVerifier`).
        ///   - entitlements: which entitlements each product grants.
        ///   - offerings: the offerings to build from the store's products.
        case standalone(verifier: any PurchaseVerifier, entitlements: EntitlementMap, offerings: OfferingsLayout)
        /// Server: proofs are posted to the OpenCat server, which is the source of truth; the cache serves offline.
        /// - Parameters:
        ///   - serverURL: the server's base URL.
        ///   - apiKey: the app's public API key (`ocat_…`).
        case server(serverURL: URL, apiKey: Secret<String>)
    }
}

public import Foundation
public import Logging
import OpenCatCore
import Synchronization

/// The OpenCat entitlement SDK: sell products, verify purchases, and answer "does this user have access to X?".
///
/// Configure once with one of the two entry points, then use the same API in either mode:
///
/// ```swift
/// let openCat = try OpenCat.configureStandalone(
///     appUserId: "user_123", storeClient: storeKit, verifier: AdapterPurchaseVerifier([apple]),
///     entitlements: ["com.example.pro.monthly": ["pro"]])
/// let result = try await openCat.purchase(productID: "com.example.pro.monthly")
/// if openCat.isEntitled("pro") { … }
/// for await info in openCat.customerInfoUpdates { … }
/// ```
///
/// Every method is safe to call from any task or thread. ``isEntitled(_:)`` reads memory only: it never does
/// I/O and never waits for the network. The static methods (`OpenCat.isEntitled`, `OpenCat.offerings()`, …)
/// forward to ``shared`` and throw `notConfigured` before a `configure…` call.
public final class OpenCat: Sendable {
    fileprivate struct Snapshot {
        var info: CustomerInfo
        var lastConfirmed: Date?
        var continuations: [UUID: AsyncStream<CustomerInfo>.Continuation] = [:]
        var lastPublished: CustomerInfo?
    }

    /// The state `isEntitled` reads synchronously, shared with the core's publish callback.
    fileprivate final class SnapshotBox: Sendable {
        let mutex: Mutex<Snapshot>
        init(_ snapshot: Snapshot) { mutex = Mutex(snapshot) }
        func withLock<R>(_ body: (inout Snapshot) throws -> R) rethrows -> R { try mutex.withLock { try body(&$0) } }
    }

    /// The app's identifier for the user.
    public let appUserId: String
    private let core: SDKCore
    private let snapshot: SnapshotBox
    private let clock: any WallClock
    private let logControl: LogControl
    private let updatesTask: Mutex<Task<Void, Never>?>

    /// Set when the local cache was found damaged at start and rebuilt (the damaged file is kept aside).
    public let cacheRecovery: EncryptedCache.Recovery?

    private static let sharedInstance = Mutex<OpenCat?>(nil)

    // MARK: Configuration

    /// Creates an SDK instance without making it ``shared`` (for apps that manage instances themselves, and
    /// for tests). Most apps call ``configureStandalone(appUserId:storeClient:verifier:entitlements:offerings:options:)``
    /// or ``configureWithServer(serverURL:apiKey:appUserId:storeClient:options:)`` instead.
    /// - Throws: `OpenCatError` (`invalidArgument` for an empty user id, `cache` if no cache can be opened).
    public init(mode: Mode, appUserId: String, storeClient: any StoreClient, options: Options = Options()) throws {
        guard !appUserId.isEmpty else { throw OpenCatError(.invalidArgument, "appUserId must not be empty") }
        self.appUserId = appUserId
        self.clock = options.clock
        let logControl = LogControl(base: options.logger ?? Logger(label: "dev.opencat"), level: options.logLevel)
        self.logControl = logControl
        let logger = logControl.logger(label: "dev.opencat.sdk")
        let directory = options.resolvedCacheDirectory
        let cache = try EncryptedCache(
            fileURL: directory.appendingPathComponent("opencat-cache.sqlite"),
            keyProvider: options.keyProvider
                ?? FileKeyProvider(
                    fileURL: directory.appendingPathComponent("cache.key"),
                    logger: logControl.logger(label: "dev.opencat.cache")
                ),
            logger: logControl.logger(label: "dev.opencat.cache"),
            now: options.clock.currentDate,
            busyTimeout: options.cacheBusyTimeout
        )
        self.cacheRecovery = cache.recovery
        let backend = Backend.make(
            mode,
            http: HTTPClient(
                transport: options.transport,
                retryPolicy: options.retryPolicy,
                clock: options.clock,
                timeout: options.requestTimeout,
                logger: logControl.logger(label: "dev.opencat.http")
            ),
            logger: logger
        )
        let empty = CustomerInfo(
            appUserId: appUserId,
            entitlements: [:],
            allTransactions: [],
            firstSeenAt: options.clock.currentDate,
            evaluatedAt: options.clock.currentDate
        )
        let snapshot = SnapshotBox(Snapshot(info: empty))
        self.snapshot = snapshot
        // The cached state is read and opened once, and known synchronously: visible before any await.
        let stored = SDKCore.loadState(cache: cache, appUserId: appUserId, backend: backend, clock: options.clock)
        self.core = SDKCore(
            appUserId: appUserId,
            backend: backend,
            storeClient: storeClient,
            cache: cache,
            clock: options.clock,
            logger: logger,
            offeringsMaxAge: options.offeringsMaxAge,
            acceptedEnvironments: options.acceptedEnvironments,
            restoreConcurrency: options.restoreConcurrency,
            stored: stored,
            publish: { info, confirmed in OpenCat.publish(info, confirmed: confirmed, into: snapshot) }
        )
        self.updatesTask = Mutex(nil)
        let initial = stored.evaluate(
            appUserId: appUserId,
            at: options.clock.currentDate,
            accepting: options.acceptedEnvironments
        )
        snapshot.withLock {
            $0.info = initial
            $0.lastPublished = initial
            $0.lastConfirmed = stored.floor
        }
        let core = self.core
        let updates = storeClient.transactionUpdates()
        updatesTask.withLock {
            $0 = Task {
                await core.refreshPublished()
                for await proof in updates { await core.handleUpdate(proof) }
            }
        }
        logger.debug("configured", metadata: ["mode": "\(backend.name)", "cacheRecovered": "\(cache.recovery != nil)"])
    }

    deinit {
        updatesTask.withLock { $0?.cancel() }
        finishStreams()
    }

    /// Ends every update stream. `finish()` runs the streams' termination handlers, which take the lock: call
    /// it outside.
    private func finishStreams() {
        let continuations = snapshot.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        continuations.forEach { $0.finish() }
    }

    /// Configures the shared instance for standalone mode: purchases are verified on the device and state is
    /// kept in the encrypted local cache.
    /// - Parameters:
    ///   - appUserId: the app's identifier for the user.
    ///   - storeClient: the app-side store (StoreKit, Play Billing, MockStores).
    ///   - verifier: checks proofs (StoreAdapters' `AdapterPurchaseVerifier`).
    ///   - entitlements: which entitlements each product grants.
    ///   - offerings: the offerings to build from the store's products.
    ///   - options: cache, clock and logging settings.
    /// - Returns: the configured instance, also available as ``shared``.
    @discardableResult
    public static func configureStandalone(
        appUserId: String,
        storeClient: any StoreClient,
        verifier: any PurchaseVerifier,
        entitlements: EntitlementMap,
        offerings: OfferingsLayout = OfferingsLayout(currentOfferingId: nil, offerings: []),
        options: Options = Options()
    ) throws -> OpenCat {
        let instance = try OpenCat(
            mode: .standalone(verifier: verifier, entitlements: entitlements, offerings: offerings),
            appUserId: appUserId,
            storeClient: storeClient,
            options: options
        )
        sharedInstance.withLock { $0 = instance }
        return instance
    }

    /// Configures the shared instance for server mode: purchases are posted to the OpenCat server, the source
    /// of truth; the encrypted cache serves offline use and keeps unsent purchases in a durable outbox.
    /// - Parameters:
    ///   - serverURL: the OpenCat server's base URL.
    ///   - apiKey: the app's public API key (`ocat_…`).
    ///   - appUserId: the app's identifier for the user.
    ///   - storeClient: the app-side store.
    ///   - options: transport, cache, clock and logging settings.
    /// - Returns: the configured instance, also available as ``shared``.
    @discardableResult
    public static func configureWithServer(
        serverURL: URL,
        apiKey: String,
        appUserId: String,
        storeClient: any StoreClient,
        options: Options = Options()
    ) throws -> OpenCat {
        let instance = try OpenCat(
            mode: .server(serverURL: serverURL, apiKey: Secret(apiKey)),
            appUserId: appUserId,
            storeClient: storeClient,
            options: options
        )
        sharedInstance.withLock { $0 = instance }
        return instance
    }

    /// The instance made by the last `configure…` call.
    /// - Throws: `notConfigured` before any.
    public static var shared: OpenCat {
        get throws {
            try sharedInstance.withLock { instance in
                guard let instance else { throw OpenCatError.notConfigured }
                return instance
            }
        }
    }

    /// Forgets the shared instance (the next static call throws `notConfigured`).
    public static func reset() { sharedInstance.withLock { $0 = nil } }

    // MARK: API

    /// Whether an entitlement grants access now. Reads memory only; never does I/O or waits.
    /// - Parameter entitlementId: the entitlement (`"pro"`).
    public func isEntitled(_ entitlementId: String) -> Bool {
        let now = clock.currentDate
        return snapshot.withLock { state in
            guard let entitlement = state.info.entitlements[entitlementId], entitlement.isActive else { return false }
            guard let end = entitlement.expirationDate else { return true }
            return end > EntitlementEngine.referenceTime(deviceNow: now, lastConfirmed: state.lastConfirmed)
        }
    }

    /// The latest customer info: refreshed from the server in server mode (cached data when offline), after
    /// delivering any purchase waiting in the outbox.
    public func customerInfo() async -> CustomerInfo { await core.customerInfo() }

    /// The available offerings: from the cache while younger than 24 hours (``Options/offeringsMaxAge``),
    /// otherwise fetched; stale ones are served when fetching fails.
    /// - Throws: `OpenCatError` (`network` or `store`) only when nothing was ever cached.
    public func offerings() async throws -> Offerings { try await core.offerings() }

    /// Buys a product through the store, then verifies (standalone) or posts (server) its proof.
    /// - Parameter productID: the product to buy.
    /// - Returns: completed, pending (store side) or awaitingSync (kept in the outbox while offline).
    /// - Throws: `purchaseCancelled`, `purchaseFailed` (with the verifier's or server's reason) or `store`.
    public func purchase(productID: String) async throws -> PurchaseResult {
        try await core.purchase(productID: productID)
    }

    /// Asks the store for every current purchase and verifies or posts each one again.
    /// - Throws: `store` if the store cannot list purchases.
    public func restorePurchases() async throws -> CustomerInfo { try await core.restorePurchases() }

    /// Delivers purchases waiting in the outbox (call when connectivity returns; also done by
    /// ``customerInfo()``).
    @discardableResult
    public func syncPendingPurchases() async -> SyncReport { await core.syncOutbox() }

    /// Customer info over time: the current value first, then every distinct change, including the moment an
    /// active entitlement reaches its expiration date (no fetch needed).
    public var customerInfoUpdates: AsyncStream<CustomerInfo> {
        let (stream, continuation) = AsyncStream<CustomerInfo>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        snapshot.withLock { state in
            continuation.yield(state.lastPublished ?? state.info)
            state.continuations[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.snapshot.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Turns logging on at a level, or off with `nil`. Logs cover the purchase flow, cache hits and misses and
    /// server calls; never keys, proofs, receipts or tokens.
    public func setLogLevel(_ level: Logger.Level?) { logControl.currentLevel = level }

    /// Stops background work (transaction updates, expiry timers) and ends the update streams.
    public func shutdown() async {
        updatesTask.withLock { $0?.cancel() }
        await core.shutdown()
        finishStreams()
    }

    private static func publish(_ info: CustomerInfo, confirmed: Date?, into snapshot: SnapshotBox) {
        snapshot.withLock { state in
            state.info = info
            state.lastConfirmed = confirmed
            if let last = state.lastPublished, last.sameState(as: info) { return }
            state.lastPublished = info
            state.continuations.values.forEach { $0.yield(info) }
        }
    }
}

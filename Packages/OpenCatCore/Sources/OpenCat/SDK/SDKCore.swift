import Foundation
import Logging
import OpenCatCore
import OpenCatServerAPI
import OpenCatStorage

/// The SDK's mutable state and the order of its async work. One actor, so purchases and deliveries never
/// interleave unsafely; ``OpenCat`` reads a published snapshot synchronously for `isEntitled`.
///
/// The work itself lives in small parts: ``CustomerState`` (the persisted state and its time rules),
/// ``Outbox`` (durable proofs), ``Delivery`` (verify or post one proof), ``OfferingsStore`` and
/// ``ExpiryScheduler``. This actor decides when each runs and applies their results.
actor SDKCore {
    let appUserId: String
    let backend: Backend
    let storeClient: any StoreClient
    let cache: EncryptedCache
    let clock: any WallClock
    let logger: Logger
    let publish: @Sendable (CustomerInfo, Date?) -> Void
    let acceptedEnvironments: Set<TransactionInfo.Environment>
    let restoreConcurrency: Int
    let outbox: Outbox
    let delivery: Delivery
    let offeringsStore: OfferingsStore
    let expiry: ExpiryScheduler

    var state: CustomerState
    /// The high-water mark as last persisted (it is saved when it has moved by a minute or more).
    var savedHighWater: Date?

    /// What a delivery attempt came to, once applied.
    enum DeliveryResult: Sendable {
        case delivered(TransactionInfo?)
        case deferred(any Error)
        case rejected(any Error)
        case alreadyDone
    }

    init(
        appUserId: String,
        backend: Backend,
        storeClient: any StoreClient,
        cache: EncryptedCache,
        clock: any WallClock,
        logger: Logger,
        offeringsMaxAge: Duration,
        acceptedEnvironments: Set<TransactionInfo.Environment> = [.production],
        restoreConcurrency: Int = 4,
        stored: CustomerState? = nil,
        publish: @escaping @Sendable (CustomerInfo, Date?) -> Void
    ) {
        self.appUserId = appUserId
        self.backend = backend
        self.storeClient = storeClient
        self.cache = cache
        self.clock = clock
        self.logger = logger
        self.publish = publish
        self.acceptedEnvironments = acceptedEnvironments
        self.restoreConcurrency = max(1, restoreConcurrency)
        self.outbox = Outbox(cache: cache, namespace: Outbox.sdkNamespace, logger: logger)
        self.delivery = Delivery(backend: backend, appUserId: appUserId)
        self.offeringsStore = OfferingsStore(
            backend: backend,
            storeClient: storeClient,
            cache: cache,
            appUserId: appUserId,
            maxAge: offeringsMaxAge,
            logger: logger
        )
        self.expiry = ExpiryScheduler(clock: clock)
        let stored = stored ?? Self.loadState(cache: cache, appUserId: appUserId, backend: backend, clock: clock)
        self.state = stored
        self.savedHighWater = stored.deviceHighWater
    }

    static func stateKey(_ appUserId: String) -> String { "customer:" + appUserId }

    /// The stored state of a user (read and opened once at start), with the standalone entitlement map applied.
    nonisolated static func loadState(
        cache: EncryptedCache,
        appUserId: String,
        backend: Backend,
        clock: any WallClock
    ) -> CustomerState {
        var stored = cache.value(CustomerState.self, forKey: stateKey(appUserId)) ?? .empty(at: clock.currentDate)
        if let map = backend.entitlementMap { stored.entitlementMap = map }
        return stored
    }

    // MARK: Customer info

    /// The customer info at the current reference time (after noting the device time in the high-water mark).
    func currentInfo() -> CustomerInfo {
        let now = clock.currentDate
        if state.observe(deviceNow: now), now.timeIntervalSince(savedHighWater ?? .distantPast) >= 60 { save() }
        return state.evaluate(appUserId: appUserId, at: now, accepting: acceptedEnvironments)
    }

    /// Re-evaluates, publishes, and arms the timer for the next expiry.
    @discardableResult
    func refreshPublished() -> CustomerInfo {
        let info = currentInfo()
        publish(info, state.floor)
        let next = info.entitlements.values.compactMap { $0.isActive ? $0.expirationDate : nil }.min()
        expiry.arm(at: next) { [weak self] in await self?.refreshPublished() }
        return info
    }

    func save() {
        do {
            try cache.setValue(state, forKey: Self.stateKey(appUserId))
            savedHighWater = state.deviceHighWater
        } catch {
            logger.error("could not persist customer state", metadata: ["error": "\(Delivery.reason(error))"])
        }
    }

    func confirm(_ confirmedAt: Date?, currentTime: Date? = nil) {
        state.confirm(confirmedAt, currentTime: currentTime, deviceNow: clock.currentDate)
    }

    func apply(_ response: ServerAPI.SubscriberResponse) {
        // A response about someone else (a proxy's mix-up, a server bug) must never become this user's state.
        guard response.subscriber.appUserId == appUserId else {
            logger.error("the server answered about another user; ignored")
            return
        }
        state.replace(with: response.subscriber)
        confirm(response.requestDate, currentTime: response.requestDate)
        save()
    }

    func confirmTimes(of verified: VerifiedTransaction) {
        confirm(verified.confirmedAt, currentTime: verified.currentTime)
    }

    func mergeAndSave(_ transactions: [TransactionInfo]) {
        state.merge(transactions)
        save()
    }

    /// Applies what a delivery came to: a verified transaction is merged, a server answer replaces the state.
    func apply(_ outcome: Delivery.Outcome) -> DeliveryResult {
        switch outcome {
        case .verified(let verified):
            confirmTimes(of: verified)
            mergeAndSave([verified.transaction])
            return .delivered(verified.transaction)
        case .posted(let response, let transaction):
            apply(response)
            return .delivered(transaction)
        case .deferred(let error, _):
            return .deferred(error)
        case .rejected(let error):
            return .rejected(error)
        }
    }

    func customerInfo() async -> CustomerInfo {
        _ = await syncOutbox()
        if case .server(let server) = backend {
            do { apply(try await server.subscriber(appUserId: appUserId)) } catch {
                logger.info("serving cached customer info", metadata: ["reason": "\(Delivery.reason(error))"])
            }
        }
        return refreshPublished()
    }

    func offerings() async throws -> Offerings {
        let (offerings, serverTime) = try await offeringsStore.offerings(now: clock.currentDate)
        if let serverTime { confirm(serverTime, currentTime: serverTime) }
        return offerings
    }

    func shutdown() { expiry.cancel() }
}

import Foundation
import Logging

/// The SDK's mutable state and its async work: purchases, the outbox, server sync, offerings, expiry timers.
/// One actor, so purchases and deliveries never interleave in unsafe ways; ``OpenCat`` reads a snapshot
/// synchronously for `isEntitled`.
actor SDKCore {
    /// What is persisted per user (sealed in the cache).
    struct StoredState: Codable, Sendable, Equatable {
        var transactions: [TransactionInfo]
        var entitlementMap: EntitlementMap
        var firstSeenAt: Date
        var lastConfirmed: Date?
    }

    struct StoredOfferings: Codable, Sendable {
        var offerings: Offerings
        var fetchedAt: Date
    }

    /// A proof as kept in the outbox (sealed by the cache).
    struct OutboxPayload: Codable, Sendable {
        var store: Store
        var kind: PurchaseProof.Kind
        var token: String
        var productId: String?
        var transactionId: String?
        var context: [String: String]

        init(_ proof: PurchaseProof) {
            store = proof.store
            kind = proof.kind
            token = proof.token.revealed
            productId = proof.productId
            transactionId = proof.transactionId
            context = proof.context
        }

        var proof: PurchaseProof {
            PurchaseProof(
                store: store, kind: kind, token: Secret(token), productId: productId, transactionId: transactionId,
                context: context)
        }
    }

    enum Delivery: Sendable {
        case delivered(TransactionInfo?)
        case deferred(any Error)
        case rejected(any Error)
        case alreadyDone
    }

    let appUserId: String
    let mode: OpenCat.Mode
    let storeClient: any StoreClient
    let cache: EncryptedCache
    let clock: any WallClock
    let server: ServerConnector?
    let logger: Logger
    let offeringsMaxAge: Duration
    let publish: @Sendable (CustomerInfo, Date?) -> Void

    private var state: StoredState
    private var inFlight: [String: Task<Delivery, Never>] = [:]
    private var expiryTimer: Task<Void, Never>?

    init(
        appUserId: String, mode: OpenCat.Mode, storeClient: any StoreClient, cache: EncryptedCache,
        clock: any WallClock, server: ServerConnector?, logger: Logger, offeringsMaxAge: Duration,
        publish: @escaping @Sendable (CustomerInfo, Date?) -> Void
    ) {
        self.appUserId = appUserId
        self.mode = mode
        self.storeClient = storeClient
        self.cache = cache
        self.clock = clock
        self.server = server
        self.logger = logger
        self.offeringsMaxAge = offeringsMaxAge
        self.publish = publish
        var stored = cache.value(StoredState.self, forKey: Self.stateKey(appUserId))
            ?? StoredState(transactions: [], entitlementMap: [:], firstSeenAt: clock.currentDate, lastConfirmed: nil)
        if case .standalone(_, let map, _) = mode { stored.entitlementMap = map }
        self.state = stored
    }

    static func stateKey(_ appUserId: String) -> String { "customer:" + appUserId }
    static func offeringsKey(_ appUserId: String) -> String { "offerings:" + appUserId }

    // MARK: Customer info

    /// The customer info at the current reference time.
    func currentInfo() -> CustomerInfo { Self.evaluate(state, appUserId: appUserId, at: clock.currentDate) }

    /// Runs the entitlement engine over stored state at the reference time for a device time.
    nonisolated static func evaluate(_ state: StoredState, appUserId: String, at deviceNow: Date) -> CustomerInfo {
        let reference = EntitlementEngine.referenceTime(deviceNow: deviceNow, lastConfirmed: state.lastConfirmed)
        return CustomerInfo(
            appUserId: appUserId,
            entitlements: EntitlementEngine.entitlements(for: state.transactions, map: state.entitlementMap, at: reference),
            allTransactions: state.transactions.sorted { $0.purchaseDate > $1.purchaseDate },
            firstSeenAt: state.firstSeenAt, evaluatedAt: reference)
    }

    /// Re-evaluates, publishes, and arms a timer for the next expiry.
    @discardableResult
    func refreshPublished() -> CustomerInfo {
        let info = currentInfo()
        publish(info, state.lastConfirmed)
        expiryTimer?.cancel()
        let next = info.entitlements.values.compactMap { $0.isActive ? $0.expirationDate : nil }.min()
        if let next {
            let clock = self.clock
            expiryTimer = Task { [weak self] in
                do { try await clock.sleep(untilDate: next) } catch { return }
                await self?.refreshPublished()
            }
        }
        return info
    }

    private func save() {
        do { try cache.setValue(state, forKey: Self.stateKey(appUserId)) } catch {
            logger.error("could not persist customer state", metadata: ["error": "\(error)"])
        }
    }

    private func confirm(_ date: Date?) {
        guard let date else { return }
        state.lastConfirmed = max(state.lastConfirmed ?? date, date)
    }

    private func merge(_ transaction: TransactionInfo) {
        state.transactions.removeAll { $0.transactionId == transaction.transactionId && $0.store == transaction.store }
        state.transactions.append(transaction)
    }

    private func apply(_ response: ServerAPI.SubscriberResponse) {
        state.transactions = response.subscriber.transactions
        state.entitlementMap = EntitlementMap(response.subscriber.entitlementMap.mapValues(Set.init))
        state.firstSeenAt = response.subscriber.firstSeenAt
        confirm(response.requestDate)
        save()
    }

    func customerInfo() async -> CustomerInfo {
        _ = await syncOutbox()
        if let server {
            do { apply(try await server.subscriber(appUserId: appUserId)) } catch {
                logger.info("serving cached customer info", metadata: ["reason": "\(Self.reason(error))"])
            }
        }
        return refreshPublished()
    }

    // MARK: Purchases

    func purchase(productID: String) async throws -> PurchaseResult {
        logger.debug("purchase started", metadata: ["product": "\(productID)"])
        let outcome: StorePurchaseResult
        do {
            outcome = try await storeClient.purchase(productId: productID, appUserId: appUserId)
        } catch let error as OpenCatError {
            throw error
        } catch {
            logger.debug("purchase failed in the store", metadata: ["product": "\(productID)"])
            throw OpenCatError.store("the store failed to complete the purchase", underlying: error)
        }
        switch outcome {
        case .cancelled:
            logger.debug("purchase cancelled", metadata: ["product": "\(productID)"])
            throw OpenCatError.purchaseCancelled(productId: productID)
        case .pending:
            logger.debug("purchase pending", metadata: ["product": "\(productID)"])
            return PurchaseResult(status: .pending, transaction: nil, customerInfo: refreshPublished())
        case .success(let proof):
            let id = proof.deduplicationKey
            do {
                try cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof)))
            } catch {
                // Still try to deliver now; only a later retry would need the outbox.
                logger.error("purchase could not be saved to the outbox", metadata: ["error": "\(error)"])
            }
            switch await deliverOnce(id: id, proof: proof) {
            case .delivered(let transaction):
                logger.debug("purchase completed", metadata: ["product": "\(productID)"])
                return PurchaseResult(status: .completed, transaction: transaction, customerInfo: refreshPublished())
            case .alreadyDone:
                return PurchaseResult(status: .completed, transaction: nil, customerInfo: refreshPublished())
            case .deferred(let error):
                logger.info("purchase kept for later delivery", metadata: ["reason": "\(Self.reason(error))"])
                return PurchaseResult(status: .awaitingSync, transaction: nil, customerInfo: refreshPublished())
            case .rejected(let error):
                logger.debug("purchase rejected", metadata: ["reason": "\(Self.reason(error))"])
                throw OpenCatError.purchaseFailed("the purchase of \(productID) was not accepted", underlying: error)
            }
        }
    }

    func restorePurchases() async throws -> CustomerInfo {
        let proofs: [PurchaseProof]
        do { proofs = try await storeClient.currentEntitlements() } catch {
            throw OpenCatError.store("the store could not list current purchases", underlying: error)
        }
        logger.debug("restore", metadata: ["count": "\(proofs.count)"])
        for proof in proofs {
            if case .standalone = mode {
                // Re-verify every purchase the store reports, even one verified before: it may have changed.
                _ = await deliver(proof)
            } else {
                let id = proof.deduplicationKey
                _ = try? cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof)))
                _ = await deliverOnce(id: id, proof: proof)
            }
        }
        return await customerInfo()
    }

    /// Handles a proof from the store's transaction updates stream (renewal, refund, purchase elsewhere).
    /// Updates are verified or posted directly (a refund reuses the transaction id of the purchase, so the
    /// purchase outbox's once-per-transaction rule must not swallow it); one that cannot be delivered now goes
    /// to the outbox under the fingerprint of its proof.
    func handleUpdate(_ proof: PurchaseProof) async {
        switch await deliver(proof) {
        case .delivered:
            do { try await storeClient.finish(proof) } catch {
                logger.warning("finishing the transaction failed", metadata: ["error": "\(Self.reason(error))"])
            }
        case .deferred:
            let id = "update:\(proof.store.rawValue):#\(proof.fingerprint)"
            _ = try? cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof)))
        case .rejected(let error):
            logger.warning("transaction update rejected", metadata: ["reason": "\(Self.reason(error))"])
        case .alreadyDone:
            break
        }
        refreshPublished()
    }

    // MARK: Outbox

    func syncOutbox() async -> SyncReport {
        var report = SyncReport(delivered: 0, stillPending: 0, rejected: 0)
        let entries: [EncryptedCache.OutboxEntry]
        do { entries = try cache.pendingOutbox() } catch {
            logger.error("outbox unreadable", metadata: ["error": "\(error)"])
            return report
        }
        for entry in entries {
            guard let payload = try? JSONCoding.decoder.decode(OutboxPayload.self, from: entry.payload) else { continue }
            switch await deliverOnce(id: entry.id, proof: payload.proof) {
            case .delivered, .alreadyDone: report.delivered += 1
            case .deferred: report.stillPending += 1
            case .rejected: report.rejected += 1
            }
        }
        if report.delivered > 0 { refreshPublished() }
        return report
    }

    /// Delivers an outbox entry at most once: concurrent callers share one attempt, and an entry already
    /// delivered or rejected is not attempted again.
    private func deliverOnce(id: String, proof: PurchaseProof) async -> Delivery {
        if let running = inFlight[id] { return await running.value }
        if let done = try? cache.outboxState(id: id), done != .pending { return .alreadyDone }
        let task = Task { await self.performDelivery(id: id, proof: proof) }
        inFlight[id] = task
        let outcome = await task.value
        inFlight[id] = nil
        return outcome
    }

    private func performDelivery(id: String, proof: PurchaseProof) async -> Delivery {
        let outcome = await deliver(proof)
        do {
            switch outcome {
            case .delivered:
                try cache.complete(id: id, as: .delivered)
                do { try await storeClient.finish(proof) } catch {
                    logger.warning("finishing the transaction failed", metadata: ["error": "\(Self.reason(error))"])
                }
            case .rejected: try cache.complete(id: id, as: .rejected)
            case .deferred: try cache.recordFailedAttempt(id: id)
            case .alreadyDone: break
            }
        } catch {
            logger.error("outbox update failed", metadata: ["error": "\(error)"])
        }
        return outcome
    }

    /// Verifies (standalone) or posts (server) one proof.
    private func deliver(_ proof: PurchaseProof) async -> Delivery {
        switch mode {
        case .standalone(let verifier, _, _):
            do {
                let verified = try await verifier.verifyPurchase(proof)
                merge(verified.transaction)
                confirm(verified.confirmedAt)
                save()
                return .delivered(verified.transaction)
            } catch {
                return Self.isTransient(error) ? .deferred(error) : .rejected(error)
            }
        case .server:
            guard let server else { return .deferred(OpenCatError.notConfigured) }
            let post = ServerAPI.ReceiptPost(
                appUserId: appUserId, store: proof.store, kind: proof.kind, proof: proof.token.revealed,
                productId: proof.productId, transactionId: proof.transactionId,
                context: proof.context.isEmpty ? nil : proof.context)
            do {
                let response = try await server.postReceipt(post, idempotencyKey: proof.deduplicationKey)
                apply(response)
                let transaction = response.subscriber.transactions.first {
                    proof.transactionId != nil && $0.transactionId == proof.transactionId
                }
                return .delivered(transaction)
            } catch {
                return Self.isTransient(error) ? .deferred(error) : .rejected(error)
            }
        }
    }

    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? any TransientErrorClassifying { return error.isTransient }
        return error is CancellationError
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? OpenCatError { return error.code.rawValue }
        if let error = error as? OpenCatServerError { return "HTTP \(error.status)" }
        if let error = error as? HTTPTransportError { return error.code.rawValue }
        return String(describing: type(of: error))
    }

    // MARK: Offerings

    func offerings() async throws -> Offerings {
        let cached = cache.value(StoredOfferings.self, forKey: Self.offeringsKey(appUserId))
        let now = clock.currentDate
        if let cached, now.timeIntervalSince(cached.fetchedAt) < offeringsMaxAge.timeInterval,
            now >= cached.fetchedAt
        {
            logger.debug("offerings: fresh cache hit")
            return cached.offerings
        }
        do {
            let fresh = try await fetchOfferings()
            try? cache.setValue(StoredOfferings(offerings: fresh, fetchedAt: now), forKey: Self.offeringsKey(appUserId))
            logger.debug("offerings: fetched")
            return fresh
        } catch {
            if let cached {
                logger.info("offerings: serving stale cache", metadata: ["reason": "\(Self.reason(error))"])
                return cached.offerings
            }
            if let error = error as? OpenCatError { throw error }
            throw OpenCatError.network("offerings are unavailable", underlying: error)
        }
    }

    private func fetchOfferings() async throws -> Offerings {
        switch mode {
        case .server:
            guard let server else { throw OpenCatError.notConfigured }
            let response = try await server.offerings(appUserId: appUserId)
            confirm(response.requestDate)
            return response.offerings
        case .standalone(_, _, let layout):
            let products: [Product]
            do { products = try await storeClient.products(for: layout.productIds) } catch {
                throw OpenCatError.store("the store could not load products", underlying: error)
            }
            let byId = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var all: [String: Offering] = [:]
            for entry in layout.offerings {
                let packages = entry.packages.compactMap { ref in byId[ref.productId].map { Package(identifier: ref.identifier, product: $0) } }
                all[entry.identifier] = Offering(identifier: entry.identifier, packages: packages)
            }
            return Offerings(currentOfferingId: layout.currentOfferingId, all: all)
        }
    }

    func shutdown() {
        expiryTimer?.cancel()
        expiryTimer = nil
    }
}

extension SDKCore {
    /// The customer info stored in the cache, evaluated now; read synchronously at start so that `isEntitled`
    /// answers from the cache immediately after a restart.
    nonisolated static func initialInfo(
        cache: EncryptedCache, appUserId: String, mode: OpenCat.Mode, clock: any WallClock
    ) -> (info: CustomerInfo, lastConfirmed: Date?) {
        let now = clock.currentDate
        guard var stored = cache.value(StoredState.self, forKey: stateKey(appUserId)) else {
            return (CustomerInfo(appUserId: appUserId, entitlements: [:], allTransactions: [], firstSeenAt: now, evaluatedAt: now), nil)
        }
        if case .standalone(_, let map, _) = mode { stored.entitlementMap = map }
        return (evaluate(stored, appUserId: appUserId, at: now), stored.lastConfirmed)
    }
}

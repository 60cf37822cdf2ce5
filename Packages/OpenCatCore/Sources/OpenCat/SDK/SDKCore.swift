import Foundation
import Logging
import OpenCatCore

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
        /// The highest (corrected) device time seen: evaluation never goes back before it, even after a restart
        /// with the clock set back (sealed in the cache with the rest).
        var deviceHighWater: Date?
        /// The latest trusted reading of the real time and the device time at that moment: device time is
        /// corrected by their difference before it may raise ``deviceHighWater``.
        var trustAnchor: TrustAnchor?

        /// The floor of the reference time: the later of the confirmed time and the high-water mark.
        var floor: Date? { [lastConfirmed, deviceHighWater].compactMap { $0 }.max() }
    }

    /// A trusted reading of the current time (a store's HTTP `Date`, a server's `requestDate`) and the device's
    /// clock when it arrived.
    struct TrustAnchor: Codable, Sendable, Equatable {
        var trusted: Date
        var device: Date
    }

    /// How far a trusted time may lie ahead of the device clock before it is capped (and how far the high-water
    /// mark may lie ahead of a trusted current time before it is brought back to it).
    static let maximumClockSkew: TimeInterval = 300

    /// How far the high-water mark may run ahead of the latest confirmed time (35 days: a monthly renewal is
    /// confirmed well within it). It bounds both what a wrong clock can cost a paying user and how long past its
    /// last confirmation an offline device keeps rollback protection.
    static let maximumHighWaterLead: TimeInterval = 35 * 86_400

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
    let acceptedEnvironments: Set<TransactionInfo.Environment>
    let restoreConcurrency: Int

    private var state: StoredState
    /// The high-water mark as last persisted (it is saved when it has moved by a minute or more).
    private var savedHighWater: Date?
    private var inFlight: [String: Task<Delivery, Never>] = [:]
    private var expiryTimer: Task<Void, Never>?

    init(
        appUserId: String, mode: OpenCat.Mode, storeClient: any StoreClient, cache: EncryptedCache,
        clock: any WallClock, server: ServerConnector?, logger: Logger, offeringsMaxAge: Duration,
        acceptedEnvironments: Set<TransactionInfo.Environment> = [.production], restoreConcurrency: Int = 4,
        stored: StoredState? = nil, publish: @escaping @Sendable (CustomerInfo, Date?) -> Void
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
        self.acceptedEnvironments = acceptedEnvironments
        self.restoreConcurrency = max(1, restoreConcurrency)
        let stored = stored ?? Self.loadState(cache: cache, appUserId: appUserId, mode: mode, clock: clock)
        self.state = stored
        self.savedHighWater = stored.deviceHighWater
    }

    static func stateKey(_ appUserId: String) -> String { "customer:" + appUserId }
    static func offeringsKey(_ appUserId: String) -> String { "offerings:" + appUserId }

    // MARK: Customer info

    /// The customer info at the current reference time (after noting the device time in the high-water mark).
    func currentInfo() -> CustomerInfo {
        let now = clock.currentDate
        observe(deviceNow: now)
        return Self.evaluate(state, appUserId: appUserId, at: now, accepting: acceptedEnvironments)
    }

    /// Runs the entitlement engine over stored state at the reference time for a device time.
    nonisolated static func evaluate(
        _ state: StoredState, appUserId: String, at deviceNow: Date, accepting environments: Set<TransactionInfo.Environment>
    ) -> CustomerInfo {
        let reference = EntitlementEngine.referenceTime(deviceNow: deviceNow, lastConfirmed: state.floor)
        return CustomerInfo(
            appUserId: appUserId,
            entitlements: EntitlementEngine.entitlements(
                for: state.transactions, map: state.entitlementMap, at: reference, acceptedEnvironments: environments,
                confirmedAt: state.lastConfirmed),
            allTransactions: state.transactions.sorted { $0.purchaseDate > $1.purchaseDate },
            firstSeenAt: state.firstSeenAt, evaluatedAt: reference)
    }

    /// Re-evaluates, publishes, and arms a timer for the next expiry.
    @discardableResult
    func refreshPublished() -> CustomerInfo {
        let info = currentInfo()
        publish(info, state.floor)
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
        do {
            try cache.setValue(state, forKey: Self.stateKey(appUserId))
            savedHighWater = state.deviceHighWater
        } catch {
            logger.error("could not persist customer state", metadata: ["error": "\(Self.reason(error))"])
        }
    }

    /// Raises the high-water mark to the device time, corrected by the latest trusted reading (so a clock that
    /// was found to run ahead does not drag the mark with it); saves it when it has moved by a minute.
    private func observe(deviceNow: Date) {
        var corrected = state.trustAnchor.map { $0.trusted.addingTimeInterval(deviceNow.timeIntervalSince($0.device)) }
            ?? deviceNow
        // Never further ahead of the latest confirmed time than ``maximumHighWaterLead``: a clock that ran ahead
        // with no current time to correct it (an offline App Store JWS carries none) locks no one out for longer.
        if let confirmed = state.lastConfirmed {
            corrected = min(corrected, confirmed.addingTimeInterval(Self.maximumHighWaterLead))
        }
        guard corrected > (state.deviceHighWater ?? .distantPast) else { return }
        state.deviceHighWater = corrected
        if corrected.timeIntervalSince(savedHighWater ?? .distantPast) >= 60 { save() }
    }

    /// Takes in a store's or server's times. `confirmedAt` (a signed date, a response time) is a lower bound of
    /// the real time: it may raise the confirmed time, capped at the device's now plus ``maximumClockSkew`` so
    /// that one bogus date cannot lock a user out. `currentTime` (an HTTP `Date`, a server's `requestDate`) is a
    /// reading of the real time now: it anchors the correction of device time and brings back a high-water mark
    /// that a clock running ahead had pushed past it.
    private func confirm(_ confirmedAt: Date?, currentTime: Date? = nil) {
        let deviceNow = clock.currentDate
        if let confirmedAt {
            let capped = min(confirmedAt, deviceNow.addingTimeInterval(Self.maximumClockSkew))
            let confirmed = max(state.lastConfirmed ?? capped, capped)
            state.lastConfirmed = confirmed
            // Keep the high-water mark within its lead over the confirmed time (it may have been raised before
            // the first confirmation, by a clock running ahead).
            let ceiling = confirmed.addingTimeInterval(Self.maximumHighWaterLead)
            if let mark = state.deviceHighWater, mark > ceiling { state.deviceHighWater = ceiling }
        }
        if let currentTime {
            state.trustAnchor = TrustAnchor(trusted: currentTime, device: deviceNow)
            let ceiling = currentTime.addingTimeInterval(Self.maximumClockSkew)
            if let mark = state.deviceHighWater, mark > ceiling { state.deviceHighWater = ceiling }
        }
    }

    /// Replaces or adds transactions (same store and transaction id), in one pass.
    private func merge(_ transactions: [TransactionInfo]) {
        guard !transactions.isEmpty else { return }
        struct Identity: Hashable {
            var store: Store
            var transactionId: String
        }
        let incoming = Dictionary(
            transactions.map { (Identity(store: $0.store, transactionId: $0.transactionId), $0) },
            uniquingKeysWith: { _, last in last })
        state.transactions.removeAll { incoming[Identity(store: $0.store, transactionId: $0.transactionId)] != nil }
        state.transactions.append(contentsOf: incoming.values.sorted { $0.purchaseDate < $1.purchaseDate })
    }

    private func apply(_ response: ServerAPI.SubscriberResponse) {
        // A response about someone else (a proxy's mix-up, a server bug) must never become this user's state.
        guard response.subscriber.appUserId == appUserId else {
            logger.error("the server answered about another user; ignored")
            return
        }
        state.transactions = response.subscriber.transactions
        state.entitlementMap = EntitlementMap(response.subscriber.entitlementMap.mapValues(Set.init))
        state.firstSeenAt = response.subscriber.firstSeenAt
        confirm(response.requestDate, currentTime: response.requestDate)
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
            let id = outboxId(for: proof)
            var saved = true
            do {
                try cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof)))
            } catch {
                // Still try to deliver now; only a later retry would need the outbox.
                saved = false
                logger.error("purchase could not be saved to the outbox", metadata: ["error": "\(Self.reason(error))"])
            }
            // A purchase is a new, explicit attempt: an earlier rejection of the same transaction is tried again.
            switch await deliverOnce(id: id, proof: proof, retryRejected: true) {
            case .delivered(let transaction):
                logger.debug("purchase completed", metadata: ["product": "\(productID)"])
                return PurchaseResult(status: .completed, transaction: transaction, customerInfo: refreshPublished())
            case .alreadyDone:
                return PurchaseResult(status: .completed, transaction: nil, customerInfo: refreshPublished())
            case .deferred(let error):
                guard saved else {
                    // Nothing would deliver it later: say so rather than promise a sync.
                    throw OpenCatError(
                        .cache, "the purchase of \(productID) could not be delivered now nor saved for later",
                        underlying: error)
                }
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
        if case .standalone(let verifier, _, _) = mode {
            // Re-verify every purchase the store reports, even one verified before: it may have changed. Bounded
            // concurrency, one merge and one cache write: restoring N transactions is O(N).
            let results = await Self.verifyAll(proofs, with: verifier, concurrency: restoreConcurrency)
            var verified: [TransactionInfo] = []
            verified.reserveCapacity(proofs.count)
            var rejected = 0
            for result in results {
                switch result {
                case .success(let transaction):
                    verified.append(transaction.transaction)
                    confirm(transaction.confirmedAt, currentTime: transaction.currentTime)
                case .failure:
                    rejected += 1
                }
            }
            if rejected > 0 { logger.info("restore: some purchases did not verify", metadata: ["count": "\(rejected)"]) }
            merge(verified)
            save()
        } else {
            for proof in proofs {
                let id = outboxId(for: proof)
                do { try cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof))) } catch {
                    logger.error("restore: could not save a purchase to the outbox", metadata: ["error": "\(Self.reason(error))"])
                }
                _ = await deliverOnce(id: id, proof: proof, retryRejected: true)
            }
        }
        return await customerInfo()
    }

    /// Verifies proofs with at most `concurrency` verifications in flight; results in the proofs' order.
    nonisolated static func verifyAll(
        _ proofs: [PurchaseProof], with verifier: any PurchaseVerifier, concurrency: Int
    ) async -> [Result<VerifiedTransaction, any Error>] {
        let verify: @Sendable (Int) async -> (Int, Result<VerifiedTransaction, any Error>) = { index in
            do { return (index, .success(try await verifier.verifyPurchase(proofs[index]))) } catch {
                return (index, .failure(error))
            }
        }
        return await withTaskGroup(of: (Int, Result<VerifiedTransaction, any Error>).self) { group in
            var results = [Result<VerifiedTransaction, any Error>?](repeating: nil, count: proofs.count)
            var next = min(concurrency, proofs.count)
            for index in 0..<next { group.addTask { await verify(index) } }
            while let (index, result) = await group.next() {
                results[index] = result
                if next < proofs.count {
                    let index = next
                    group.addTask { await verify(index) }
                    next += 1
                }
            }
            return results.map { $0 ?? .failure(CancellationError()) }
        }
    }

    /// The outbox id of a proof, which is also its server idempotency key: one scheme, bound to the user.
    /// Purchases are keyed by the store's transaction id (else the proof's fingerprint); store updates (a refund
    /// reuses the purchase's transaction id) by the fingerprint, so the purchase's entry cannot swallow them.
    func outboxId(for proof: PurchaseProof, update: Bool = false) -> String {
        update
            ? "\(appUserId)|update|\(proof.store.rawValue):#\(proof.fingerprint)"
            : "\(appUserId)|\(proof.deduplicationKey)"
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
            let id = outboxId(for: proof, update: true)
            do { try cache.enqueue(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof))) } catch {
                logger.error("transaction update could not be saved to the outbox", metadata: ["error": "\(Self.reason(error))"])
            }
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
        do {
            entries = try cache.pendingOutbox()
            report.unreadable = try cache.unreadableOutboxCount()
        } catch {
            logger.error("outbox unreadable", metadata: ["error": "\(Self.reason(error))"])
            return report
        }
        for entry in entries {
            guard let payload = try? JSONCoding.decoder.decode(OutboxPayload.self, from: entry.payload) else {
                // Kept in place (a later version may read it) and counted, never silently skipped.
                report.unreadable += 1
                logger.error("outbox entry undecodable; kept in place")
                continue
            }
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
    /// delivered is not attempted again. A rejected entry is attempted again only on an explicit new attempt
    /// (a purchase, a restore: `retryRejected`), never by background sync.
    private func deliverOnce(id: String, proof: PurchaseProof, retryRejected: Bool = false) async -> Delivery {
        if let running = inFlight[id] { return await running.value }
        switch try? cache.outboxState(id: id) {
        case .delivered?: return .alreadyDone
        case .rejected?:
            guard retryRejected else { return .alreadyDone }
            do { try cache.reopen(id: id, payload: try JSONCoding.encoder.encode(OutboxPayload(proof))) } catch {
                logger.error("a rejected purchase could not be reopened", metadata: ["error": "\(Self.reason(error))"])
            }
        default: break
        }
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
                merge([verified.transaction])
                confirm(verified.confirmedAt, currentTime: verified.currentTime)
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
                let response = try await server.postReceipt(post, idempotencyKey: outboxId(for: proof))
                apply(response)
                let transaction = response.subscriber.transactions.first {
                    proof.transactionId != nil && $0.transactionId == proof.transactionId
                }
                return .delivered(transaction)
            } catch let error as OpenCatServerError where error.isVerdict {
                return .rejected(error)
            } catch {
                // Only the server's verdict on the proof is final; 401, 403, 404, 408, 409, an unreadable answer
                // or no answer keep the paid purchase in the outbox.
                return .deferred(error)
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
            confirm(response.requestDate, currentTime: response.requestDate)
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
    /// The stored state of a user (read and opened once at start), with the standalone entitlement map applied.
    nonisolated static func loadState(
        cache: EncryptedCache, appUserId: String, mode: OpenCat.Mode, clock: any WallClock
    ) -> StoredState {
        var stored = cache.value(StoredState.self, forKey: stateKey(appUserId))
            ?? StoredState(transactions: [], entitlementMap: [:], firstSeenAt: clock.currentDate, lastConfirmed: nil)
        if case .standalone(_, let map, _) = mode { stored.entitlementMap = map }
        return stored
    }
}

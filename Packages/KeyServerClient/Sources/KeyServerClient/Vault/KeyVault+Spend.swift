import Foundation
import Logging
import OpenCatCore
import OpenCatStorage
import Synchronization

extension KeyVault {
    /// Spends keys on a feature: allowed up to the known balance, applied here at once (the feature unlocks), and
    /// sent to the server now when it can be reached, else kept in the durable outbox for ``sync(retryingStalled:)``.
    /// - Returns: confirmed (with the server's balance) or pending.
    /// - Throws: ``KeyVaultError`` `.insufficientBalance` (nothing changes), `.invalidInput`, `.storage`.
    public func spend(amount: Int, feature: String, app: String) async throws(KeyVaultError) -> SpendOutcome {
        guard amount > 0, !feature.isEmpty, !app.isEmpty else {
            throw KeyVaultError(.invalidInput, "a spend is of one key or more, on a named feature of a named app")
        }
        let spend = PendingSpend(
            id: UUID().uuidString.lowercased(),
            amount: amount,
            feature: feature,
            app: app,
            userId: userId,
            madeAt: clock.currentDate,
            wasUnlocked: false
        )
        let outbox = self.outbox
        let outboxId = Self.outboxId(userId, spend.id)
        try await core.mutate(self) { state throws(KeyVaultError) in
            guard amount <= state.balance else {
                throw KeyVaultError(.insufficientBalance, "\(amount) keys asked, \(state.balance) known")
            }
            // The outbox entry is written before the state that depends on it: a crash between the two leaves an
            // entry that sync confirms or reverts, never a spend the server will not hear about.
            do { try outbox.enqueue(spend, id: outboxId, owner: spend.userId) } catch {
                throw KeyVaultError(.storage, "the spend could not be saved", underlying: error)
            }
            var recorded = spend
            recorded.wasUnlocked = state.unlocked[app]?.contains(feature) ?? false
            state.balance -= amount
            state.unlocked[app, default: []].insert(feature)
            state.pending[spend.id] = recorded
            state.history.append(
                WalletTransaction(
                    kind: "spend",
                    id: spend.id,
                    amount: -amount,
                    feature: feature,
                    app: app,
                    date: spend.madeAt
                )
            )
        }
        await core.advance()
        guard client != nil else { return .pending }
        switch await deliver(spendId: spend.id) {
        case .confirmed(let remaining): return .confirmed(remainingBalance: remaining)
        case .reverted(_, let error):
            let code: KeyVaultError.Code = error.code == .insufficientBalance ? .insufficientBalance : .rejected
            throw KeyVaultError(code, "the key server refused the spend (\(error.code))", underlying: error)
        case .kept: return .pending
        }
    }

    enum Delivery: Sendable {
        case confirmed(Int)
        case reverted(PendingSpend, KeyServerError)
        case kept
    }

    /// Sends one pending spend and applies the answer. The outbox runs one attempt per spend at a time (a concurrent
    /// caller waits for it) and never sends a spend it has marked confirmed or reverted.
    func deliver(spendId: String, explicit: Bool = false) async -> Delivery {
        guard client != nil, let spend = snapshot.withLock({ $0.pending[spendId] }) else { return .kept }
        let (delivery, joined) = await outbox.deliver(
            id: Self.outboxId(userId, spendId),
            payload: spend,
            explicit: explicit,
            alreadyDone: Delivery.kept
        ) {
            await self.attempt(spend)
        }
        // A caller that joined another's attempt reports nothing of it: each confirmation is reported once.
        return joined ? .kept : delivery
    }

    private func attempt(_ spend: PendingSpend) async -> DurableOutbox<PendingSpend>.Verdict<Delivery> {
        guard let client, snapshot.withLock({ $0.pending[spend.id] }) != nil else { return .unchanged(.kept) }
        let result: SpendResult
        do {
            result = try await client.spendKeys(
                amount: spend.amount,
                feature: spend.feature,
                app: spend.app,
                userId: spend.userId,
                idempotencyKey: Self.outboxId(userId, spend.id)
            )
        } catch  where Self.isVerdict(error) {
            // The server's verdict on this spend (not enough keys, a refused request): undo it here. Anything else
            // (an unreadable answer, 401, 404, 409, no answer) may hide a spend the server took: it stays pending.
            do {
                try await core.mutate(self) { state in
                    guard let spend = state.pending.removeValue(forKey: spend.id) else { return }
                    state.balance += spend.amount
                    let stillClaimed = state.pending.values.contains {
                        $0.app == spend.app && $0.feature == spend.feature
                    }
                    if !spend.wasUnlocked, !stillClaimed { state.unlocked[spend.app]?.remove(spend.feature) }
                    state.history.removeAll { $0.id == spend.id }
                }
            } catch {
                // Marked rejected only once the revert is saved: else it stays pending and is tried again.
                logger.error(
                    "a refused spend could not be reverted; kept pending",
                    metadata: ["error": "\(error.code)"]
                )
                return .deferred(.kept, counted: false)
            }
            await core.advance()
            logger.info("a spend was reverted", metadata: ["reason": "\(error.code)"])
            return .rejected(.reverted(spend, error))
        } catch {
            // Waiting cures no network, timeouts, 429 and 5xx, and a cancelled call says nothing: those never stall.
            let transient: Set<KeyServerError.Code> = [
                .network, .timeout, .serverUnavailable, .rateLimited, .cancelled,
            ]
            return .deferred(.kept, counted: !transient.contains(error.code))
        }
        // The local balance was lowered when the spend was made: a confirmation only clears it (a server balance
        // from this answer may be older than another spend's, and is not applied).
        do {
            try await core.mutate(self) { state in _ = state.pending.removeValue(forKey: spend.id) }
        } catch {
            // Marked delivered only once that is saved: else it is sent again, and the idempotency key replays it.
            logger.error("a confirmed spend could not be cleared here", metadata: ["error": "\(error.code)"])
            return .deferred(.kept, counted: false)
        }
        await core.advance()
        return .delivered(.confirmed(result.remainingBalance))
    }

    /// Confirms or reverts every pending spend, then refreshes the wallet from the server (its balance less what is
    /// still pending, its unlocks plus the provisional ones).
    /// A spend that failed `DurableOutbox.maximumAttempts` times for a reason waiting does not cure
    /// (the server refused the credentials, answered something unreadable) is stalled: it stays applied here and is
    /// not sent again until a sync with `retryingStalled` set.
    public func sync(retryingStalled: Bool = false) async -> VaultSyncReport {
        var report = VaultSyncReport()
        defer { report.storageFailures = outbox.failureCount }
        guard let client else { return report }
        let stalled = Set(
            (outbox.pending(owner: userId)?.entries ?? []).filter(\.isStalled).compactMap(\.payload?.id)
        )
        let ids = snapshot.withLock { $0.pending.values.sorted { $0.madeAt < $1.madeAt }.map(\.id) }
        for id in ids {
            if stalled.contains(id), !retryingStalled {
                report.stalled += 1
                continue
            }
            switch await deliver(spendId: id, explicit: retryingStalled) {
            case .confirmed: report.confirmed += 1
            case .reverted(let spend, let error):
                report.reverted.append(
                    RevertedSpend(feature: spend.feature, app: spend.app, amount: spend.amount, reason: error.code)
                )
            case .kept: report.stillPending += 1
            }
        }
        let generation = await core.generation
        if let wallet = try? await client.syncWallet(userId: userId), await core.generation == generation {
            // Applied only when no spend was made, confirmed or reverted while it was in flight: a wallet read
            // before a change must not undo it.
            _ = try? await core.mutate(self) { state in
                let pending = Array(state.pending.values)
                let pendingSum = pending.reduce(0) { $0.addingReportingOverflow($1.amount).partialValue }
                state.balance = max(
                    0,
                    max(0, wallet.balance).subtractingReportingOverflow(max(0, pendingSum)).partialValue
                )
                var unlocked = wallet.unlockedFeatures.mapValues(Set.init)
                for spend in pending { unlocked[spend.app, default: []].insert(spend.feature) }
                state.unlocked = unlocked
                state.lastConfirmed = max(state.lastConfirmed ?? wallet.updatedAt, wallet.updatedAt)
            }
            report.walletRefreshed = true
        }
        // The server's history, then the spends it has not heard of yet.
        if let history = try? await client.walletHistory(userId: userId) {
            _ = try? await core.mutate(self) { state in
                let pendingIds = Set(state.pending.keys)
                state.history = history + state.history.filter { pendingIds.contains($0.id) }
            }
        }
        return report
    }

    /// A refusal of the spend itself: not enough keys, or a request the server refused as invalid (400, 422).
    static func isVerdict(_ error: KeyServerError) -> Bool {
        error.code == .insufficientBalance || (error.code == .invalidInput && [400, 422].contains(error.status ?? 0))
    }

    static func outboxId(_ userId: String, _ spendId: String) -> String { "keyvault|\(userId)|spend|\(spendId)" }
}

extension KeyVault {
    /// Buys a key pack through the key server, stores the keys it minted (each license verified offline first) and
    /// refreshes the wallet.
    /// - Throws: ``KeyServerError`` from the server, or ``KeyVaultError`` `.invalidLicense` when a minted license does
    ///   not verify (nothing is stored then), `.offlineOnly` without a client.
    @discardableResult
    public func purchaseKeyPack(_ proof: PurchaseProof, email: String? = nil, steamId: String? = nil) async throws
        -> KeyPurchaseResult
    {
        guard let client else { throw KeyVaultError(.offlineOnly, "the vault has no key server to buy from") }
        let result = try await client.purchaseKeyPack(proof, email: email, steamId: steamId)
        try await store(result.licenses)
        _ = await sync()
        return result
    }
}

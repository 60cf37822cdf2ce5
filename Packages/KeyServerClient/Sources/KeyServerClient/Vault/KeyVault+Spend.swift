import Foundation
import Logging
import OpenCat
import OpenCatCore
import Synchronization

extension KeyVault {
    /// Spends keys on a feature: allowed up to the known balance, applied here at once (the feature unlocks), and
    /// sent to the server now when it can be reached, else kept in the durable outbox for ``sync()``.
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
        let cache = self.cache
        let outboxId = Self.outboxId(userId, spend.id)
        try await core.mutate(self) { state throws(KeyVaultError) in
            guard amount <= state.balance else {
                throw KeyVaultError(.insufficientBalance, "\(amount) keys asked, \(state.balance) known")
            }
            // The outbox entry is written before the state that depends on it: a crash between the two leaves an
            // entry that sync confirms or reverts, never a spend the server will not hear about.
            do { try cache.enqueue(id: outboxId, payload: try JSONEncoder().encode(spend)) } catch {
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

    /// Sends one pending spend (at most once at a time: the outbox state decides) and applies the answer.
    func deliver(spendId: String) async -> Delivery {
        guard await core.claim(spendId) else { return .kept }
        let delivery = await deliverClaimed(spendId: spendId)
        await core.release(spendId)
        return delivery
    }

    private func deliverClaimed(spendId: String) async -> Delivery {
        guard let client, let spend = snapshot.withLock({ $0.pending[spendId] }) else { return .kept }
        let outboxId = Self.outboxId(userId, spendId)
        if (try? cache.outboxState(id: outboxId)) != .pending { return .kept }
        do {
            let result = try await client.spendKeys(
                amount: spend.amount,
                feature: spend.feature,
                app: spend.app,
                userId: spend.userId,
                idempotencyKey: outboxId
            )
            _ = try await core.mutate(self) { state in
                guard state.pending.removeValue(forKey: spendId) != nil else { return }
                let stillPending = state.pending.values.reduce(0) { $0 + $1.amount }
                state.balance = max(0, result.remainingBalance - stillPending)
            }
            try? cache.complete(id: outboxId, as: .delivered)
            return .confirmed(result.remainingBalance)
        } catch let error as KeyServerError where !error.isTransient && error.code != .unauthorized {
            // The server's verdict on this spend: undo it here.
            _ = try? await core.mutate(self) { state in
                guard let spend = state.pending.removeValue(forKey: spendId) else { return }
                state.balance += spend.amount
                let stillClaimed = state.pending.values.contains { $0.app == spend.app && $0.feature == spend.feature }
                if !spend.wasUnlocked, !stillClaimed { state.unlocked[spend.app]?.remove(spend.feature) }
                state.history.removeAll { $0.id == spendId }
            }
            try? cache.complete(id: outboxId, as: .rejected)
            logger.info("a spend was reverted", metadata: ["reason": "\(error.code)"])
            return .reverted(spend, error)
        } catch {
            _ = try? cache.recordFailedAttempt(id: outboxId)
            return .kept
        }
    }

    /// Confirms or reverts every pending spend, then refreshes the wallet from the server (its balance less what is
    /// still pending, its unlocks plus the provisional ones).
    public func sync() async -> VaultSyncReport {
        var report = VaultSyncReport()
        guard let client else { return report }
        let ids = snapshot.withLock { $0.pending.values.sorted { $0.madeAt < $1.madeAt }.map(\.id) }
        for id in ids {
            switch await deliver(spendId: id) {
            case .confirmed: report.confirmed += 1
            case .reverted(let spend, let error):
                report.reverted.append(
                    RevertedSpend(feature: spend.feature, app: spend.app, amount: spend.amount, reason: error.code)
                )
            case .kept: report.stillPending += 1
            }
        }
        if let wallet = try? await client.syncWallet(userId: userId) {
            _ = try? await core.mutate(self) { state in
                let pending = Array(state.pending.values)
                state.balance = max(0, wallet.balance - pending.reduce(0) { $0 + $1.amount })
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

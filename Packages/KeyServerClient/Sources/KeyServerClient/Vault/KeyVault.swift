public import Foundation
public import Logging
public import OpenCatCore
public import OpenCatStorage
import Synchronization

/// The offline-first store of a user's keys, wallet and unlocked features, sealed in OpenCat's encrypted cache.
///
/// Every check (``isUnlocked(_:app:)``, ``balance``, ``licenses``) answers from memory with no network. A license
/// is verified offline before it is stored; ``validLicenses(at:)`` verifies them again against a time that a set-back
/// clock cannot move back. A spend made offline is allowed up to the known balance, unlocks the feature
/// provisionally and waits in the cache's durable outbox with an idempotency key; ``sync(retryingStalled:)`` confirms it once or
/// reverts it (feature locked again, balance restored, with the server's reason), never twice, across restarts and
/// concurrent calls.
public final class KeyVault: Sendable {
    /// The user the vault belongs to.
    public let userId: String
    let cache: EncryptedCache
    /// Spends still to be sent, in the cache's `keyvault` namespace, owned by ``userId``.
    let outbox: DurableOutbox<PendingSpend>
    let verifier: LicenseVerifier
    let client: KeyServerClient?
    let clock: any WallClock
    let logger: Logger
    let core: VaultCore
    let snapshot: Mutex<VaultState>

    /// Opens (or creates) the vault of a user.
    /// - Parameters:
    ///   - cache: the encrypted cache (one file may hold the vaults of several users and OpenCat's own state).
    ///   - userId: the user.
    ///   - verifier: checks licenses with the server's public keys.
    ///   - client: the key server, for spends and sync (nil: offline only).
    ///   - clock: the device clock.
    ///   - logger: where the vault logs (never keys or licenses).
    public init(
        cache: EncryptedCache,
        userId: String,
        verifier: LicenseVerifier,
        client: KeyServerClient? = nil,
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.keyvault", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(KeyVaultError) {
        guard !userId.isEmpty else { throw KeyVaultError(.invalidInput, "the user id is empty") }
        self.userId = userId
        self.cache = cache
        self.verifier = verifier
        self.client = client
        self.clock = clock
        self.logger = logger
        var state: VaultState
        do { state = try cache.existingValue(VaultState.self, forKey: Self.stateKey(userId)) ?? VaultState() } catch {
            // Never start empty over a state that exists but cannot be read now: that would overwrite it.
            throw KeyVaultError(.storage, "the key vault cannot be read", underlying: error)
        }
        outbox = DurableOutbox(cache: cache, namespace: "keyvault", logger: logger)
        // A spend whose outbox entry was written but whose state was not (a crash in between) is pending too.
        guard let stored = outbox.pending(owner: userId) else {
            throw KeyVaultError(.storage, "the key vault's outbox cannot be read")
        }
        for entry in stored.entries {
            guard let spend = entry.payload, state.pending[spend.id] == nil else { continue }
            var recovered = spend
            recovered.wasUnlocked = true  // never re-lock what may have been unlocked otherwise
            state.pending[spend.id] = recovered
        }
        self.snapshot = Mutex(state)
        self.core = VaultCore(state: state)
    }

    /// Opens a vault in its own encrypted file (key from a `KeyProvider`).
    public convenience init(
        fileURL: URL,
        keyProvider: any KeyProvider,
        userId: String,
        verifier: LicenseVerifier,
        client: KeyServerClient? = nil,
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.keyvault", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(KeyVaultError) {
        let cache: EncryptedCache
        do {
            cache = try EncryptedCache(
                fileURL: fileURL,
                keyProvider: keyProvider,
                logger: logger,
                now: clock.currentDate
            )
        } catch { throw KeyVaultError(.storage, "the vault file cannot be opened", underlying: error) }
        try self.init(cache: cache, userId: userId, verifier: verifier, client: client, clock: clock, logger: logger)
    }

    static func stateKey(_ userId: String) -> String { "keyvault:" + userId }

    // MARK: Reads (memory only)

    /// The wallet balance as known here (confirmed balance less pending spends).
    public var balance: Int { snapshot.withLock { $0.balance } }

    /// Whether a feature of an app is unlocked (confirmed or provisionally). Memory only.
    public func isUnlocked(_ feature: String, app: String) -> Bool {
        snapshot.withLock { $0.unlocked[app]?.contains(feature) ?? false }
    }

    /// Every stored key.
    public var licenses: [VULicenseKey] {
        snapshot.withLock { Array($0.licenses.values) }.compactMap(\.model).sorted { $0.purchaseDate < $1.purchaseDate }
    }

    /// The wallet's history as the server last sent it, then the spends still pending here.
    public var history: [WalletTransaction] { snapshot.withLock { $0.history } }

    /// How many keys are stored (no parsing).
    public var licenseCount: Int { snapshot.withLock { $0.licenses.count } }

    /// Whether a key is stored (by its canonical or typed spelling).
    public func contains(_ key: HumanKey) -> Bool { snapshot.withLock { $0.licenses[key.description] != nil } }

    /// Spends waiting for the server.
    public var pendingSpendCount: Int { snapshot.withLock { $0.pending.count } }

    /// The stored keys whose licenses verify now, offline; the highest plan among them decides what the app
    /// unlocks. Verification uses the later of the device clock and the last confirmed server time, and the newest
    /// revocation list the vault accepted.
    public func validLicenses(at now: Date? = nil) -> [VerifiedLicense] {
        let (keys, confirmed, revocations) = snapshot.withLock {
            (Array($0.licenses.values), $0.lastConfirmed, $0.revocations?.list)
        }
        let time = now ?? clock.currentDate
        return keys.compactMap {
            try? verifier.verify($0.license, at: time, lastConfirmed: confirmed, revocations: revocations)
        }
    }

    /// The serial of the newest revocation list the vault accepted (nil: none yet). A list with a lower serial is
    /// refused.
    public var revocationSerial: UInt64? { snapshot.withLock { $0.revocations?.serial } }

    /// The highest plan among the valid licenses.
    public func highestPlan(at now: Date? = nil) -> PlanLevel? { validLicenses(at: now).map(\.payload.plan).max() }

    // MARK: Writes

    /// Stores keys the server delivered, after verifying each license offline; keys already stored are kept. A key
    /// the vault's revocation list revokes is skipped (not stored, not an error).
    /// - Returns: the keys that were new.
    /// - Throws: ``KeyVaultError`` `.invalidLicense` (naming the human key's position, never the key) when a license
    ///   does not verify: nothing is stored then.
    @discardableResult
    public func store(_ keys: [VULicenseKey]) async throws(KeyVaultError) -> [VULicenseKey] {
        let now = clock.currentDate
        let (confirmed, revocations) = snapshot.withLock { ($0.lastConfirmed, $0.revocations?.list) }
        var verified: [VULicenseKey] = []
        var refused: [String] = []
        var revoked = 0
        for (index, key) in keys.enumerated() {
            let license: VerifiedLicense
            do {
                license = try verifier.verify(key.license, at: now, lastConfirmed: confirmed, revocations: revocations)
            } catch .revoked {
                revoked += 1
                continue
            } catch {
                refused.append("key \(index + 1)")
                continue
            }
            guard license.payload.key == key.keyValue else {
                refused.append("key \(index + 1)")
                continue
            }
            // What is stored is what the server signed, not the unsigned fields beside it.
            var checked = key
            checked.planType = license.payload.plan
            checked.purchaseDate = license.payload.purchasedAt
            verified.append(checked)
        }
        let accepted = verified
        let added = try await core.mutate(self) { state in
            var added: [VULicenseKey] = []
            // A list accepted while these keys were verified still applies.
            let revocations = state.revocations?.list
            for key in accepted where revocations?.revokes(key.keyValue) != true {
                let slot = key.keyValue.description
                if state.licenses[slot] == nil { added.append(key) }
                // A key already stored is replaced by a license that verifies (a renewal), never by one that does not.
                state.licenses[slot] = StoredLicense(key)
            }
            return added
        }
        if revoked > 0 { logger.info("revoked licenses skipped", metadata: ["count": "\(revoked)"]) }
        if !refused.isEmpty {
            logger.warning("licenses refused", metadata: ["count": "\(refused.count)"])
            throw KeyVaultError(
                .invalidLicense,
                "\(refused.joined(separator: ", ")) did not verify; the others were stored"
            )
        }
        return added
    }

    /// Accepts the server's signed revocation list: verified with the vault's `LicenseVerifier`
    /// keys, refused when older than the one accepted before (rollback), then kept (sealed, across restarts). Every
    /// stored key it revokes is dropped, so ``validLicenses(at:)`` and ``highestPlan(at:)`` no longer count it, and
    /// ``store(_:)`` skips it from then on. A list with the serial already accepted and the same contents changes
    /// nothing.
    /// - Parameter signedList: the list (`rev/….…`), as `VUUserKeySync.revocations` carries it.
    /// - Returns: how many stored keys were dropped.
    /// - Throws: ``KeyVaultError`` `.invalidRevocations` (forged, tampered, an unknown `kid`, malformed),
    ///   `.staleRevocations` (older than the list accepted), with the `LicenseRevocationError` as
    ///   the underlying error; `.storage`. Nothing changes then.
    @discardableResult
    public func applyRevocations(_ signedList: String) async throws(KeyVaultError) -> Int {
        let list: LicenseRevocationList
        do { list = try LicenseRevocationList(signedList, keys: verifier.keys) } catch {
            logger.warning("a revocation list was refused", metadata: ["reason": "\(error.code)"])
            throw KeyVaultError(.invalidRevocations, error.message, underlying: error)
        }
        let dropped = try await core.mutate(self) { state throws(KeyVaultError) in
            do throws(LicenseRevocationError) { try list.checkCanReplace(state.revocations?.list) } catch {
                throw KeyVaultError(.staleRevocations, error.message, underlying: error)
            }
            state.revocations = StoredRevocations(list)
            let revoked = state.licenses.keys.filter { list.revokes(canonical: $0) }
            for slot in revoked { state.licenses.removeValue(forKey: slot) }
            return revoked.count
        }
        if dropped > 0 { logger.info("revoked licenses dropped", metadata: ["count": "\(dropped)"]) }
        return dropped
    }

    /// Persists a state and publishes it to the memory snapshot.
    func persist(_ state: VaultState) throws(KeyVaultError) {
        do { try cache.setValue(state, forKey: Self.stateKey(userId)) } catch {
            logger.error("the key vault could not be saved", metadata: ["error": "\(type(of: error))"])
            throw KeyVaultError(.storage, "the key vault could not be saved", underlying: error)
        }
        snapshot.withLock { $0 = state }
    }
}

/// Serializes the vault's writes: one mutation at a time, each persisted before it is published.
actor VaultCore {
    var state: VaultState
    /// Counts spends made, confirmed or reverted: a wallet read started before a change is not applied after it.
    var generation = 0

    func advance() { generation += 1 }

    init(state: VaultState) { self.state = state }

    func mutate<Result: Sendable>(
        _ vault: KeyVault,
        _ change: @Sendable (inout VaultState) throws(KeyVaultError) -> Result
    ) throws(KeyVaultError) -> Result {
        var next = state
        let result = try change(&next)
        try vault.persist(next)
        state = next
        return result
    }
}

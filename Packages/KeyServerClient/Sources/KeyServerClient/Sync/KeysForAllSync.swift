public import Foundation
import KeyServerAPI
import Logging
import OpenCatCore
import Synchronization

/// "Keys for All": brings the keys the account owns on any platform into the vault.
///
/// ``autoSyncOnOpen()`` syncs when the feature opens, only when ``canSync()`` and at most once per
/// ``KeyServerConfiguration/syncCooldown`` (measured on the injected clock from the last successful sync, which the
/// vault remembers across restarts); ``manualSync()`` ignores the cooldown. Keys are merged by their human key: none
/// is lost, none is duplicated, and a sync that fails leaves every stored key working.
public struct KeysForAllSync: Sendable {
    /// Where the keys are merged and kept.
    public let vault: KeyVault
    /// The key server the keys are read from.
    public let client: KeyServerClient
    /// The account's email, for `GET /keys/email/{email}`.
    public var email: String?
    /// The account's Steam id, for `GET /keys/steam/{steamId}` (used when there is no email).
    public var steamId: String?

    /// A sync of one account's keys into a vault (by email, else by Steam id).
    public init(vault: KeyVault, client: KeyServerClient, email: String? = nil, steamId: String? = nil) {
        self.vault = vault
        self.client = client
        self.email = email
        self.steamId = steamId
    }

    /// Whether the account can sync: a valid email or Steam id, and a token.
    public func canSync() -> Bool {
        guard !client.configuration.token.revealed.isEmpty else { return false }
        if let email, EmailAddress.isValid(email) { return true }
        if let steamId, SteamID.isValid(steamId) { return true }
        return false
    }

    /// Syncs when the feature opens: nothing when auto-sync is off, the account cannot sync, or the last sync is
    /// more recent than the cooldown.
    /// - Returns: the keys that were new.
    /// - Throws: ``KeyServerError`` when the sync was attempted and failed (stored keys keep working).
    @discardableResult
    public func autoSyncOnOpen() async throws -> [VULicenseKey] {
        guard client.configuration.autoSyncOnOpen, canSync() else { return [] }
        if let last = vault.lastKeySync {
            let elapsed = vault.clock.currentDate.timeIntervalSince(last)
            if elapsed >= 0, elapsed < client.configuration.syncCooldown.timeInterval { return [] }
        }
        return try await manualSync()
    }

    /// Syncs now, whatever the cooldown. When the answer carries a revocation list, the vault applies it first
    /// (``KeyVault/applyRevocations(_:)``): revoked keys are dropped and not stored again.
    /// - Returns: the keys that were new.
    /// - Throws: ``KeyServerError`` (`invalidInput` when there is no email or Steam id), or ``KeyVaultError`` when
    ///   a delivered license does not verify (nothing is stored then) or the revocation list is refused
    ///   (`invalidRevocations`, `staleRevocations`: no key is stored then, and every stored key keeps working).
    @discardableResult
    public func manualSync() async throws -> [VULicenseKey] {
        let answer: VUUserKeySync
        if let email, EmailAddress.isValid(email) {
            answer = try await client.keys(email: email)
        } else if let steamId, SteamID.isValid(steamId) {
            answer = try await client.keys(steamId: steamId)
        } else {
            throw KeyServerError(.invalidInput, "Keys for All needs the account's email or Steam id")
        }
        // The server's time first: a device clock that runs slow must not refuse keys bought minutes ago.
        try await vault.recordKeySync(at: vault.clock.currentDate, serverTime: answer.syncTimestamp)
        if let revocations = answer.revocations { try await vault.applyRevocations(revocations) }
        return try await storeRetrievedKeys(answer.availableKeys)
    }

    /// Stores keys fetched from the server in the vault (verified offline first; keys already there are kept).
    @discardableResult
    public func storeRetrievedKeys(_ keys: [VULicenseKey]) async throws -> [VULicenseKey] {
        try await vault.store(keys)
    }
}

extension KeyVault {
    /// When Keys for All last synced.
    public var lastKeySync: Date? { snapshot.withLock { $0.lastKeySync } }

    func recordKeySync(at date: Date, serverTime: Date) async throws(KeyVaultError) {
        try await core.mutate(self) { state in
            state.lastKeySync = date
            state.lastConfirmed = max(state.lastConfirmed ?? serverTime, serverTime)
        }
    }
}

public import Foundation
public import KeyServerClient
import OpenCatStorage

/// A user's keys on the device, offline: each license verified before it is stored, all of them sealed in OpenCat's
/// encrypted cache (AES-GCM, nothing in clear), and the features the best valid one unlocks, answered from memory.
///
/// ```swift
/// let keys = try OfflineKeyVault(
///     folder: appSupport.appendingPathComponent("keys"),
///     userId: "ada",
///     licenses: OfflineLicenseCheck(publicKeys: ["2026-a": embeddedPublicKeyPEM]),
///     features: [1: ["basic-voices"], 2: ["voice-pack"], 3: ["studio"]]
/// )
/// try await keys.add(license: deliveredLicense)        // refused, and nothing stored, unless it verifies
/// if keys.unlockedFeatures().contains("voice-pack") { … }
/// ```
///
/// Buying and syncing go through the key server (`KeyServerClient`, `KeysForAllSync`); this vault is opened without
/// one, so it never touches the network.
public struct OfflineKeyVault: Sendable {
    /// The vault of KeyServerClient, opened offline (no key server).
    public let vault: KeyVault
    /// The features each plan level adds; a plan unlocks its own and every lower level's.
    public let features: [Int: Set<String>]

    /// Opens (or creates) the vault of a user in a folder: `keys.sqlite`, sealed with the key in `keys.key` (a 0600
    /// file of 32 random bytes, made on first use).
    /// - Parameters:
    ///   - folder: where the vault lives (created if missing).
    ///   - userId: the user.
    ///   - licenses: checks licenses with the key server's public keys.
    ///   - features: see ``features``.
    /// - Throws: ``KeyVaultError`` (`storage` when the folder or the vault cannot be opened, `invalidInput` for an
    ///   empty user id).
    public init(
        folder: URL,
        userId: String,
        licenses: OfflineLicenseCheck,
        features: [Int: Set<String>]
    ) throws(KeyVaultError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw KeyVaultError(.storage, "the vault's folder cannot be created", underlying: error)
        }
        self.vault = try KeyVault(
            fileURL: folder.appendingPathComponent("keys.sqlite"),
            keyProvider: FileKeyProvider(fileURL: folder.appendingPathComponent("keys.key")),
            userId: userId,
            verifier: licenses.verifier
        )
        self.features = features
    }

    /// Stores a license (as the key server delivered it, or as the user pasted it) after verifying it offline. What is
    /// stored is what the server signed: the plan and purchase date come from the verified payload.
    /// - Parameter license: the license text (`key/<payload>.<signature>`).
    /// - Returns: the human key it carries.
    /// - Throws: ``KeyVaultError`` `.invalidLicense` when it is not a license or does not verify (forged, altered,
    ///   another issuer's, expired): nothing is stored then.
    @discardableResult
    public func add(license: String) async throws(KeyVaultError) -> HumanKey {
        let signed: SignedLicense
        let payload: LicensePayload
        do {
            signed = try SignedLicense(license)
            payload = try signed.unverifiedPayload()
        } catch {
            throw KeyVaultError(.invalidLicense, "not a license: \(error)")
        }
        let key = VULicenseKey(
            keyValue: payload.key,
            planType: payload.plan,
            purchaseDate: payload.purchasedAt,
            license: signed
        )
        try await vault.store([key])
        return payload.key
    }

    /// The highest plan among the stored licenses that verify now (offline, against a time a clock set back cannot
    /// move back).
    /// - Parameter now: the time to check at (default: the device's clock).
    public func plan(at now: Date? = nil) -> PlanLevel? { vault.highestPlan(at: now) }

    /// The features the highest valid plan unlocks: its own level's and every lower level's.
    /// - Parameter now: the time to check at (default: the device's clock).
    public func unlockedFeatures(at now: Date? = nil) -> Set<String> {
        guard let plan = plan(at: now) else { return [] }
        return features.filter { $0.key <= plan.level }.values.reduce(into: Set<String>()) { $0.formUnion($1) }
    }
}

public import Foundation
public import KeyServerClient

/// Checks the key server's signed licenses on the device, offline, with the server's Ed25519 public keys embedded in
/// the app (by `kid`, so that the server can rotate its signing key).
///
/// ```swift
/// let licenses = try OfflineLicenseCheck(publicKeys: ["2026-a": embeddedPublicKeyPEM])
/// if case .valid(let plan, _, _, _) = licenses.check(licenseText, at: Date()) { unlock(plan) }
/// ```
public struct OfflineLicenseCheck: Sendable {
    /// What a license means on this device.
    public enum Status: Sendable, Hashable {
        /// Genuine and in force: the plan it unlocks, its owner and its key; `clockRolledBack` when it was bought
        /// after the device's clock says it is now, yet before a time the app confirmed (the clock was set back).
        case valid(plan: PlanLevel, owner: String, key: HumanKey, clockRolledBack: Bool)
        /// Not valid: forged or altered (`invalidSignature`), another issuer's (`unknownKey`), expired, not yet
        /// valid, or not a license at all (`malformed`).
        case refused(LicenseError)
    }

    /// The verifier, with the server's public keys by `kid`.
    public let verifier: LicenseVerifier

    /// Creates a check from a verifier.
    /// - Parameter verifier: see ``verifier``.
    public init(verifier: LicenseVerifier) {
        self.verifier = verifier
    }

    /// Creates a check from the public keys the app embeds.
    /// - Parameter publicKeys: by `kid`, each a PEM `PUBLIC KEY` (Ed25519) or the base64 of its raw 32 bytes.
    /// - Throws: ``LicenseError`` `.malformed` for a key that is neither.
    public init(publicKeys: [String: String]) throws(LicenseError) {
        let parsed = try publicKeys.map { (entry) throws(LicenseError) in
            try (entry.key, LicenseVerifier.publicKey(parsing: entry.value))
        }
        self.init(verifier: LicenseVerifier(keys: Dictionary(uniqueKeysWithValues: parsed)))
    }

    /// Checks a license offline.
    /// - Parameters:
    ///   - license: the license text (`key/<payload>.<signature>`).
    ///   - now: the device's time.
    ///   - lastConfirmed: the latest time a server confirmed, if any: a clock set back cannot revive an expired
    ///     license.
    /// - Returns: what the license means now; a refusal is a value, not a throw.
    public func check(_ license: String, at now: Date, lastConfirmed: Date? = nil) -> Status {
        do {
            let verified = try verifier.verify(license, at: now, lastConfirmed: lastConfirmed)
            return .valid(
                plan: verified.payload.plan,
                owner: verified.payload.owner,
                key: verified.payload.key,
                clockRolledBack: verified.clockRolledBack
            )
        } catch {
            return .refused(error)
        }
    }
}

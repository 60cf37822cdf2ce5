public import Crypto
public import Foundation
import OpenCatCore

/// Signs licenses: the key server's side of ``LicenseVerifier`` (also what tests, MockStores fixtures and the
/// benchmarks mint licenses with). Keep the private key on the server.
public struct LicenseIssuer: Sendable {
    /// The signing key.
    public let privateKey: Curve25519.Signing.PrivateKey
    /// The `kid` its licenses carry.
    public let kid: String

    /// Creates an issuer.
    public init(privateKey: Curve25519.Signing.PrivateKey, kid: String) {
        self.privateKey = privateKey
        self.kid = kid
    }

    /// The public key apps embed under ``kid``.
    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }

    /// Signs a payload (its `kid` is set to this issuer's).
    /// - Throws: when the payload cannot be encoded or signed.
    public func sign(_ payload: LicensePayload) throws -> SignedLicense {
        var payload = payload
        payload.kid = kid
        return try sign(payloadJSON: try LicensePayload.encoder.encode(payload))
    }

    /// Signs a license again with a new offline window (`offlineUntil`): what a key sync sends. The license is the
    /// server's own (read from its database), so its payload is taken as it is; the new one names this issuer's `kid`.
    /// - Throws: ``LicenseError`` for a license that does not parse; an error when it cannot be signed.
    public func renew(_ license: SignedLicense, offlineUntil: Date) throws -> SignedLicense {
        var payload = try license.unverifiedPayload()
        payload.offlineUntil = offlineUntil
        return try sign(payload)
    }

    /// Signs payload JSON as given (a server that adds its own members, or writes dates its own way). The JSON must
    /// still be a ``LicensePayload`` naming this issuer's `kid` for apps to accept it.
    public func sign(payloadJSON: Data) throws -> SignedLicense {
        try SignedLicense(SignedEnvelope.sign(payloadJSON, prefix: SignedLicense.prefix, with: privateKey))
    }

    /// Signs a revocation list: the complete set of licenses this issuer's server has withdrawn (refunded, charged
    /// back), as of `issuedAt`. Each list supersedes every list with a lower serial, so the serial must grow with
    /// every list the server publishes (a list is cumulative, not a delta).
    /// - Parameters:
    ///   - serial: the list's number; apps refuse a list older than one they accepted.
    ///   - keys: the human keys of the revoked licenses (the list carries only their
    ///     ``LicenseRevocationList/licenseID(of:)``, never the keys).
    ///   - issuedAt: when the list was made.
    /// - Throws: when the list cannot be encoded or signed.
    public func signRevocations(
        serial: UInt64,
        revoking keys: some Sequence<HumanKey>,
        issuedAt: Date
    ) throws -> LicenseRevocationList {
        let payload = LicenseRevocationList.Payload(
            kid: kid,
            serial: serial,
            issuedAt: issuedAt,
            revoked: Set(keys.map(LicenseRevocationList.licenseID(of:))).sorted()
        )
        let text = try SignedEnvelope.sign(
            try LicensePayload.encoder.encode(payload),
            prefix: LicenseRevocationList.prefix,
            with: privateKey
        )
        return try LicenseRevocationList(text, keys: [kid: publicKey])
    }
}

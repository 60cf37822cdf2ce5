public import Crypto
import Foundation
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

    /// Signs payload JSON as given (a server that adds its own members, or writes dates its own way). The JSON must
    /// still be a ``LicensePayload`` naming this issuer's `kid` for apps to accept it.
    public func sign(payloadJSON: Data) throws -> SignedLicense {
        let part = Base64URL.encode(payloadJSON)
        let signingInput = SignedLicense.prefix + part
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return try SignedLicense(signingInput + "." + Base64URL.encode(signature))
    }
}

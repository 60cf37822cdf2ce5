import Foundation
import OpenCatCore
import _CryptoExtras

/// The self-signed JWT a service account exchanges for an access token (RS256, RSASSA-PKCS1-v1_5 with SHA-256).
///
/// Header `{"alg": "RS256", "typ": "JWT", "kid": private_key_id}`; claims `iss` (client e-mail), `scope`, `aud`
/// (the token URI), `iat` and `exp` (at most one hour after `iat`).
///
/// See <https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests>.
enum GoogleJWTAssertion {
    /// The JWT header.
    struct Header: Codable, Equatable, Sendable {
        var alg = "RS256"
        var typ = "JWT"
        var kid: String
    }

    /// The JWT claim set.
    struct Claims: Codable, Equatable, Sendable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    /// The longest lifetime Google accepts for an assertion.
    static let maximumLifetimeSeconds: Int64 = 3600

    /// Builds and signs an assertion.
    /// - Parameters:
    ///   - header: the header (its `kid` is the service account's key id).
    ///   - claims: the claim set; `exp - iat` must not exceed ``maximumLifetimeSeconds``.
    ///   - key: the service account's RSA private key.
    /// - Returns: the compact JWS `header.claims.signature`, base64url without padding.
    static func sign(header: Header, claims: Claims, with key: _RSA.Signing.PrivateKey) throws -> String {
        precondition(claims.exp - claims.iat <= maximumLifetimeSeconds, "a Google assertion lives at most one hour")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput =
            Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

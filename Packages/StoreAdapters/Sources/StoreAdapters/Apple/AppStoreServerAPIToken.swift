import Crypto
import Foundation
import OpenCatCore

/// The bearer token of App Store Server API requests: a JWT signed with ES256.
///
/// Header `{alg: ES256, kid, typ: JWT}`; claims `{iss, iat, exp, aud: "appstoreconnect-v1", bid}`, `exp` at most
/// 60 minutes after `iat`.
enum AppStoreServerAPIToken {
    static let audience = "appstoreconnect-v1"
    static let maximumLifetime: Duration = .seconds(3600)

    struct Header: Codable, Equatable {
        var alg: String
        var kid: String
        var typ: String
    }

    struct Claims: Codable, Equatable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var bid: String
    }

    static func make(credentials: AppleStoreAdapter.APICredentials, bundleId: String, now: Date) throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let lifetime = min(max(credentials.tokenLifetime, .seconds(1)), maximumLifetime).components.seconds
        return try sign(
            Claims(iss: credentials.issuerId, iat: issuedAt, exp: issuedAt + lifetime, aud: audience, bid: bundleId),
            keyId: credentials.keyId,
            privateKey: credentials.privateKey.revealed
        )
    }

    /// Signs `claims` as a compact JWS with an App Store Connect key: header `{alg: ES256, kid, typ: JWT}`, both
    /// parts JSON with sorted keys in unpadded base64url, the signature raw `r||s` (RFC 7518 §3.4). The App Store
    /// Server API token and the StoreKit request signatures (``AppleOfferJWSSigner``) share it.
    static func sign(_ claims: some Encodable, keyId: String, privateKey: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(alg: "ES256", kid: keyId, typ: "JWT"))
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

import Crypto
public import Foundation
public import LLMKeyResolver
import OpenCatCore

/// Who a bearer token belongs to. The API calls it on every request; an app plugs in its own.
public protocol LLMAuthenticator: Sendable {
    /// The user a token names, or nil when the token is not valid (the API answers 401).
    func user(forBearerToken token: String, now: Date) -> LLMUser?
}

/// HS256 JWTs: `sub` is the user id, `plan_tier` the tier, `exp` required (and `nbf` honoured); the secret comes
/// from the environment (`OPENCAT_LLM_JWT_SECRET`).
public struct HS256JWTAuthenticator: LLMAuthenticator {
    let key: SymmetricKey

    /// - Throws: `LLMKeyError` `.misconfigured` for a secret shorter than 32 bytes.
    public init(secret: Secret<String>) throws(LLMKeyError) {
        guard secret.revealed.utf8.count >= 32 else {
            throw LLMKeyError(.misconfigured, "the JWT secret must be at least 32 bytes")
        }
        key = SymmetricKey(data: Data(secret.revealed.utf8))
    }

    public func user(forBearerToken token: String, now: Date) -> LLMUser? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 8192, parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode([String: String].self, from: headerData), header["alg"] == "HS256",
            HMAC<SHA256>.isValidAuthenticationCode(
                signature,
                authenticating: Data("\(parts[0]).\(parts[1])".utf8),
                using: key
            )
        else { return nil }
        struct Claims: Decodable {
            var sub: String
            var plan_tier: String
            var exp: Int64
            var nbf: Int64?
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: payloadData), !claims.sub.isEmpty,
            Double(claims.exp) > now.timeIntervalSince1970, Double(claims.nbf ?? 0) <= now.timeIntervalSince1970 + 60
        else { return nil }
        return LLMUser(id: claims.sub, tier: PlanTier(rawValue: claims.plan_tier))
    }

    /// Mints a token (for `opencat llm-keys token` and tests).
    public func token(user: String, tier: PlanTier, expiresAt: Date) -> String {
        let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let claims: [String: any Sendable] = [
            "sub": user, "plan_tier": tier.rawValue, "exp": Int64(expiresAt.timeIntervalSince1970),
        ]
        let payload = Base64URL.encode(
            (try? JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)) ?? Data()
        )
        let input = "\(header).\(payload)"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)
        return "\(input).\(Base64URL.encode(Data(mac)))"
    }
}

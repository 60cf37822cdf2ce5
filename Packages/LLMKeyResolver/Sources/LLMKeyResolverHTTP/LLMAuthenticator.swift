import Crypto
public import Foundation
public import LLMKeyResolver
import OpenCatCore

/// Who a bearer token belongs to. The API calls it on every request; an app plugs in its own.
public protocol LLMAuthenticator: Sendable {
    /// The user a token names, or nil when the token is not valid (the API answers 401).
    func user(forBearerToken token: String, now: Date) -> LLMUser?

    /// The user a token names, or why the token is refused (the API answers 401 with the reason's code). The
    /// default implementation calls ``user(forBearerToken:now:)`` and refuses with
    /// ``LLMAuthenticationError/Code/refused``.
    func authenticate(bearerToken token: String, now: Date) throws(LLMAuthenticationError) -> LLMUser
}

extension LLMAuthenticator {
    /// Calls ``user(forBearerToken:now:)``; nil is ``LLMAuthenticationError/Code/refused``.
    public func authenticate(bearerToken token: String, now: Date) throws(LLMAuthenticationError) -> LLMUser {
        guard let user = user(forBearerToken: token, now: now) else {
            throw LLMAuthenticationError(.refused, "the authenticator refused the token")
        }
        return user
    }
}

/// HS256 JWTs: `sub` is the user id, `plan_tier` the tier; `exp` and `iat` are required, `nbf` honoured, `iss` and
/// `aud` must match the ``LLMTokenPolicy`` (by default `opencat` and `llm-keys`), and a token may live at most the
/// policy's ``LLMTokenPolicy/maximumLifetime`` (`exp - iat`, 24 h by default). The secret comes from the environment
/// (`OPENCAT_LLM_JWT_SECRET`).
///
/// The checks are written once here over swift-crypto's HMAC and OpenCatCore's `Base64URL`: the header must say
/// `alg` `HS256` (no `none`, no key confusion), the signature is compared in constant time before any claim is
/// read, and a refusal never carries the token.
public struct HS256JWTAuthenticator: LLMAuthenticator {
    let key: SymmetricKey
    /// What a token must say about its issuer, audience and lifetime.
    public let policy: LLMTokenPolicy

    /// The longest token read (bytes); a longer one is ``LLMAuthenticationError/Code/malformed``.
    public static let maximumTokenBytes = 8192

    /// - Throws: `LLMKeyError` `.misconfigured` for a secret shorter than 32 bytes, or a policy with an empty
    ///   issuer or audience, a maximum lifetime that is not positive, or a leeway outside 0…300 seconds.
    public init(secret: Secret<String>, policy: LLMTokenPolicy = LLMTokenPolicy()) throws(LLMKeyError) {
        guard secret.revealed.utf8.count >= 32 else {
            throw LLMKeyError(.misconfigured, "the JWT secret must be at least 32 bytes")
        }
        try policy.validate()
        key = SymmetricKey(data: Data(secret.revealed.utf8))
        self.policy = policy
    }

    /// The user the token names, or `nil` when the token is refused for any reason (see
    /// `authenticate(bearerToken:now:)` for the reason).
    public func user(forBearerToken token: String, now: Date) -> LLMUser? {
        try? authenticate(bearerToken: token, now: now)
    }

    /// Checks the token's form, signature and claims against ``policy`` at `now`.
    /// - Throws: ``LLMAuthenticationError`` naming the first check that failed (never the token).
    public func authenticate(bearerToken token: String, now: Date) throws(LLMAuthenticationError) -> LLMUser {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= Self.maximumTokenBytes, parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode([String: String].self, from: headerData)
        else { throw LLMAuthenticationError(.malformed, "not a compact JWS") }
        guard header["alg"] == "HS256" else {
            throw LLMAuthenticationError(.unsupportedAlgorithm, "the token is not signed with HS256")
        }
        guard
            HMAC<SHA256>.isValidAuthenticationCode(
                signature,
                authenticating: Data("\(parts[0]).\(parts[1])".utf8),
                using: key
            )
        else { throw LLMAuthenticationError(.badSignature, "the signature does not verify") }
        let claims: Claims
        do { claims = try JSONDecoder().decode(Claims.self, from: payloadData) } catch {
            throw LLMAuthenticationError(.invalidClaims, "the claims are not a JSON object with sub and plan_tier")
        }
        try policy.check(claims, now: now)
        return LLMUser(id: claims.sub, tier: PlanTier(rawValue: claims.planTier))
    }

    /// Mints a token issued now (the wall clock) that expires at `expiresAt`, with the policy's `iss` and `aud`.
    /// It does not check the lifetime: a token living longer than ``LLMTokenPolicy/maximumLifetime`` is refused when
    /// presented. For tests and benchmarks; `opencat llm-keys token` uses ``token(user:tier:issuedAt:lifetime:)``.
    public func token(user: String, tier: PlanTier, issuedAt: Date = Date(), expiresAt: Date) -> String {
        sign(
            Claims(
                sub: user,
                planTier: tier.rawValue,
                exp: expiresAt.timeIntervalSince1970.rounded(.down),
                iat: issuedAt.timeIntervalSince1970.rounded(.down),
                iss: policy.issuer,
                aud: policy.audience.map { .one($0) }
            )
        )
    }

    /// Mints a token issued at `issuedAt` that lives `lifetime` seconds, with the policy's `iss` and `aud`.
    /// - Throws: ``LLMAuthenticationError`` ``LLMAuthenticationError/Code/lifetimeTooLong`` for a lifetime over the
    ///   policy's maximum, ``LLMAuthenticationError/Code/invalidClaims`` for an empty user or a lifetime that is
    ///   not positive.
    public func token(user: String, tier: PlanTier, issuedAt: Date, lifetime: TimeInterval)
        throws(LLMAuthenticationError) -> String
    {
        guard !user.isEmpty, !tier.rawValue.isEmpty else {
            throw LLMAuthenticationError(.invalidClaims, "the user and the tier must not be empty")
        }
        guard lifetime.isFinite, lifetime >= 1 else {
            throw LLMAuthenticationError(.invalidClaims, "the lifetime must be at least 1 second")
        }
        guard lifetime <= policy.maximumLifetime else {
            throw LLMAuthenticationError(
                .lifetimeTooLong,
                "a token may live at most \(Int(policy.maximumLifetime)) seconds"
            )
        }
        return token(user: user, tier: tier, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(lifetime))
    }

    func sign(_ claims: Claims) -> String {
        let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let input = "\(header).\(payload)"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)
        return "\(input).\(Base64URL.encode(Data(mac)))"
    }
}

/// The claims ``HS256JWTAuthenticator`` reads and writes (RFC 7519 NumericDates as seconds).
struct Claims: Codable {
    var sub: String
    var planTier: String
    var exp: Double?
    var iat: Double?
    var nbf: Double?
    var iss: String?
    var aud: Audience?

    init(
        sub: String,
        planTier: String,
        exp: Double?,
        iat: Double?,
        nbf: Double? = nil,
        iss: String?,
        aud: Audience?
    ) {
        self.sub = sub
        self.planTier = planTier
        self.exp = exp
        self.iat = iat
        self.nbf = nbf
        self.iss = iss
        self.aud = aud
    }

    enum CodingKeys: String, CodingKey {
        case sub, exp, iat, nbf, iss, aud
        case planTier = "plan_tier"
    }

    /// Writes the times as whole seconds (`"exp":1795352400`), the form every JWT library reads.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sub, forKey: .sub)
        try container.encode(planTier, forKey: .planTier)
        try container.encodeIfPresent(exp.map { Int64($0) }, forKey: .exp)
        try container.encodeIfPresent(iat.map { Int64($0) }, forKey: .iat)
        try container.encodeIfPresent(nbf.map { Int64($0) }, forKey: .nbf)
        try container.encodeIfPresent(iss, forKey: .iss)
        try container.encodeIfPresent(aud, forKey: .aud)
    }

    /// `aud`: one string or an array of strings (RFC 7519 §4.1.3).
    enum Audience: Codable {
        case one(String)
        case many([String])

        var values: [String] {
            switch self {
            case .one(let value): [value]
            case .many(let values): values
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                self = .one(one)
            } else {
                self = .many(try container.decode([String].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let value): try container.encode(value)
            case .many(let values): try container.encode(values)
            }
        }
    }
}

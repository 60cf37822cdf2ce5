public import Foundation
public import LLMKeyResolver

/// Why a bearer token was refused, typed. Never carries the token or any of its claims' values.
public struct LLMAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason, also sent as `error.reason` in the API's 401 body.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the 401 body's `error.reason` carries it.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// No `Authorization: Bearer …` header.
        public static let missing = Code(rawValue: "missing")
        /// Not a compact JWS (three base64url parts, a JSON header), or longer than the authenticator reads.
        public static let malformed = Code(rawValue: "malformed")
        /// Signed with another algorithm than the authenticator's (or `none`).
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The signature does not verify under the configured secret.
        public static let badSignature = Code(rawValue: "badSignature")
        /// The claims are not an object with a non-empty `sub` and a `plan_tier`, or `exp` is not after `iat`.
        public static let invalidClaims = Code(rawValue: "invalidClaims")
        /// `exp` or `iat` is absent.
        public static let missingClaim = Code(rawValue: "missingClaim")
        /// `exp` has passed.
        public static let expired = Code(rawValue: "expired")
        /// `nbf` is still ahead (beyond the leeway).
        public static let notYetValid = Code(rawValue: "notYetValid")
        /// `iat` is in the future (beyond the leeway).
        public static let issuedInFuture = Code(rawValue: "issuedInFuture")
        /// `exp - iat` exceeds the policy's maximum lifetime.
        public static let lifetimeTooLong = Code(rawValue: "lifetimeTooLong")
        /// `iss` is absent or not the expected issuer.
        public static let wrongIssuer = Code(rawValue: "wrongIssuer")
        /// `aud` is absent or does not name the expected audience.
        public static let wrongAudience = Code(rawValue: "wrongAudience")
        /// An app's own authenticator refused the token without a reason.
        public static let refused = Code(rawValue: "refused")
    }

    /// What failed.
    public var code: Code
    /// What failed, in words; never the token or a claim's value.
    public var message: String

    /// An error with its code and a message that holds no secret.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `LLMAuthenticationError.<code>: <message>` (no token, no claim's value).
    public var description: String { "LLMAuthenticationError.\(code): \(message)" }
}

/// What a token for the LLM key API must say beyond its signature: who issued it (`iss`), for whom (`aud`), and how
/// long it may live (`exp - iat`). Both `iss` and `aud` must match when configured (nil skips that check).
///
/// Defaults: issuer `opencat`, audience `llm-keys`, at most 24 hours, 60 seconds of leeway for clocks that disagree
/// (applied to `iat` and `nbf`; `exp` is strict). `opencat-server llm-keys` and `opencat llm-keys token` read
/// `--jwt-issuer`, `--jwt-audience` and `--jwt-max-lifetime`, or `OPENCAT_LLM_JWT_ISSUER`,
/// `OPENCAT_LLM_JWT_AUDIENCE` and `OPENCAT_LLM_JWT_MAX_LIFETIME` (``init(environment:issuer:audience:maximumLifetime:)``).
public struct LLMTokenPolicy: Sendable, Hashable {
    /// `opencat`.
    public static let defaultIssuer = "opencat"
    /// `llm-keys`.
    public static let defaultAudience = "llm-keys"
    /// 24 hours, in seconds.
    public static let defaultMaximumLifetime: TimeInterval = 86_400
    /// 60 seconds.
    public static let defaultLeeway: TimeInterval = 60
    /// `OPENCAT_LLM_JWT_ISSUER`: the expected issuer, read by ``init(environment:issuer:audience:maximumLifetime:)``.
    public static let issuerVariable = "OPENCAT_LLM_JWT_ISSUER"
    /// `OPENCAT_LLM_JWT_AUDIENCE`: the expected audience, read by ``init(environment:issuer:audience:maximumLifetime:)``.
    public static let audienceVariable = "OPENCAT_LLM_JWT_AUDIENCE"
    /// `OPENCAT_LLM_JWT_MAX_LIFETIME`: the maximum lifetime in whole seconds, read by ``init(environment:issuer:audience:maximumLifetime:)``.
    public static let maximumLifetimeVariable = "OPENCAT_LLM_JWT_MAX_LIFETIME"

    /// The `iss` a token must carry (nil: not checked).
    public var issuer: String?
    /// The `aud` a token must name, as its string or among its array (nil: not checked).
    public var audience: String?
    /// The longest `exp - iat` accepted, in seconds.
    public var maximumLifetime: TimeInterval
    /// How far `iat` and `nbf` may be ahead of the verifier's clock, in seconds.
    public var leeway: TimeInterval

    /// A policy; every value defaults to the documented default.
    public init(
        issuer: String? = LLMTokenPolicy.defaultIssuer,
        audience: String? = LLMTokenPolicy.defaultAudience,
        maximumLifetime: TimeInterval = LLMTokenPolicy.defaultMaximumLifetime,
        leeway: TimeInterval = LLMTokenPolicy.defaultLeeway
    ) {
        self.issuer = issuer
        self.audience = audience
        self.maximumLifetime = maximumLifetime
        self.leeway = leeway
    }

    /// The defaults, overridden by `OPENCAT_LLM_JWT_ISSUER`, `OPENCAT_LLM_JWT_AUDIENCE` and
    /// `OPENCAT_LLM_JWT_MAX_LIFETIME` (whole seconds) when they are set and not empty, themselves overridden by the
    /// explicit values (a command's `--jwt-issuer`, `--jwt-audience`, `--jwt-max-lifetime`).
    /// - Throws: `LLMKeyError` `.misconfigured` naming the variable whose value is not usable, or as ``validate()``.
    public init(
        environment: [String: String],
        issuer explicitIssuer: String? = nil,
        audience explicitAudience: String? = nil,
        maximumLifetime explicitMaximumLifetime: TimeInterval? = nil
    ) throws(LLMKeyError) {
        self.init()
        if let issuer = environment[Self.issuerVariable], !issuer.isEmpty { self.issuer = issuer }
        if let audience = environment[Self.audienceVariable], !audience.isEmpty { self.audience = audience }
        if let text = environment[Self.maximumLifetimeVariable], !text.isEmpty {
            guard let seconds = Int(text) else {
                throw LLMKeyError(.misconfigured, "\(Self.maximumLifetimeVariable) must be a whole number of seconds")
            }
            maximumLifetime = TimeInterval(seconds)
        }
        if let explicitIssuer { issuer = explicitIssuer }
        if let explicitAudience { audience = explicitAudience }
        if let explicitMaximumLifetime { maximumLifetime = explicitMaximumLifetime }
        try validate()
    }

    /// - Throws: `LLMKeyError` `.misconfigured` for an empty issuer or audience, a maximum lifetime outside
    ///   1 second…366 days, or a leeway outside 0…300 seconds.
    public func validate() throws(LLMKeyError) {
        guard issuer.map({ !$0.isEmpty }) ?? true else {
            throw LLMKeyError(.misconfigured, "the JWT issuer must not be empty (nil skips the check)")
        }
        guard audience.map({ !$0.isEmpty }) ?? true else {
            throw LLMKeyError(.misconfigured, "the JWT audience must not be empty (nil skips the check)")
        }
        guard maximumLifetime.isFinite, (1...31_622_400).contains(maximumLifetime) else {
            throw LLMKeyError(.misconfigured, "the JWT maximum lifetime must be 1 to 31622400 seconds")
        }
        guard leeway.isFinite, (0...300).contains(leeway) else {
            throw LLMKeyError(.misconfigured, "the JWT leeway must be 0 to 300 seconds")
        }
    }

    /// The claim checks, in order: subject, `exp`/`iat` present, expiry, `nbf`, `iat` not ahead, lifetime, `iss`,
    /// `aud`.
    func check(_ claims: Claims, now: Date) throws(LLMAuthenticationError) {
        let now = now.timeIntervalSince1970
        guard !claims.sub.isEmpty else { throw LLMAuthenticationError(.invalidClaims, "sub is empty") }
        guard let exp = claims.exp, exp.isFinite else {
            throw LLMAuthenticationError(.missingClaim, "exp is required")
        }
        guard let iat = claims.iat, iat.isFinite else {
            throw LLMAuthenticationError(.missingClaim, "iat is required")
        }
        guard exp > now else { throw LLMAuthenticationError(.expired, "the token has expired") }
        if let nbf = claims.nbf {
            guard nbf.isFinite, nbf <= now + leeway else {
                throw LLMAuthenticationError(.notYetValid, "the token is not valid yet (nbf)")
            }
        }
        guard iat <= now + leeway else {
            throw LLMAuthenticationError(.issuedInFuture, "the token is issued in the future (iat)")
        }
        guard exp > iat else { throw LLMAuthenticationError(.invalidClaims, "exp is not after iat") }
        guard exp - iat <= maximumLifetime else {
            throw LLMAuthenticationError(
                .lifetimeTooLong,
                "the token lives longer than \(Int(maximumLifetime)) seconds (exp - iat)"
            )
        }
        if let issuer {
            guard claims.iss == issuer else {
                throw LLMAuthenticationError(.wrongIssuer, "iss is not the expected issuer")
            }
        }
        if let audience {
            guard claims.aud?.values.contains(audience) == true else {
                throw LLMAuthenticationError(.wrongAudience, "aud does not name the expected audience")
            }
        }
    }
}

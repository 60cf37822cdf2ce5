import Crypto
import Foundation
import HTTPTypes
import LLMKeyResolver
import LLMKeyResolverHTTP
import OpenCatCore
import OpenCatTesting
import Testing

/// The JWT's issuer, audience and lifetime: each refused with its typed reason (401, the reason in the body, never
/// the token), a good token accepted, the minting side refusing a lifetime over the maximum.
struct TokenPolicyTests {
    static let secret = "a-test-secret-of-at-least-32-bytes!!"
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_348_800))
    let logs = LogCapture()
    let authenticator = try! HS256JWTAuthenticator(secret: Secret(TokenPolicyTests.secret))

    var now: Int64 { Int64(clock.currentDate.timeIntervalSince1970) }

    /// A token signed with the test secret over exactly this payload (written by hand, not by the authenticator).
    static func signed(
        _ payload: String,
        header: String = #"{"alg":"HS256","typ":"JWT"}"#,
        secret: String = TokenPolicyTests.secret
    ) -> String {
        let input = "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(Data(payload.utf8)))"
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(input.utf8),
            using: SymmetricKey(data: Data(secret.utf8))
        )
        return "\(input).\(Base64URL.encode(Data(mac)))"
    }

    func claims(
        iss: String? = "opencat",
        aud: String? = #""llm-keys""#,
        iat: Int64? = nil,
        exp: Int64? = nil,
        omitIat: Bool = false,
        omitExp: Bool = false
    ) -> String {
        var fields = [#""sub":"u1""#, #""plan_tier":"starter""#]
        if !omitExp { fields.append(#""exp":\#(exp ?? now + 3600)"#) }
        if !omitIat { fields.append(#""iat":\#(iat ?? now)"#) }
        if let iss { fields.append(#""iss":"\#(iss)""#) }
        if let aud { fields.append(#""aud":\#(aud)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    func reason(_ token: String) -> LLMAuthenticationError.Code? {
        do {
            _ = try authenticator.authenticate(bearerToken: token, now: clock.currentDate)
            return nil
        } catch {
            return error.code
        }
    }

    func api() throws -> LLMKeysAPI {
        let vault = UserKeyVault(
            store: try SQLiteLLMKeyStore(fileURL: Keys.temporaryFile("keys.sqlite")),
            cipher: try Keys.cipher()
        )
        return LLMKeysAPI(
            resolver: LLMKeyResolver(systemKeys: Keys.systemKeys, vault: vault),
            authenticator: authenticator,
            clock: clock,
            logger: logs.logger
        )
    }

    func status(_ api: LLMKeysAPI, token: String) async -> (Int, String) {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/api/api-key-status")
        request.headerFields[.authorization] = "Bearer \(token)"
        let (response, data) = await api.handle(request, body: Data())
        return (response.status.code, String(decoding: data, as: UTF8.self))
    }

    @Test func aGoodTokenIsAccepted() async throws {
        let token = Self.signed(claims())
        #expect(reason(token) == nil)
        #expect(authenticator.user(forBearerToken: token, now: clock.currentDate) == LLMUser(id: "u1", tier: .starter))
        let (code, _) = await status(try api(), token: token)
        #expect(code == 200)
        // An audience array naming ours, and a lifetime of exactly the maximum, are accepted too.
        #expect(reason(Self.signed(claims(aud: #"["other","llm-keys"]"#))) == nil)
        #expect(reason(Self.signed(claims(iat: now - 3600, exp: now - 3600 + 86_400))) == nil)
        // So is the authenticator's own token.
        let minted = try authenticator.token(user: "u2", tier: .pro, issuedAt: clock.currentDate, lifetime: 3600)
        #expect(authenticator.user(forBearerToken: minted, now: clock.currentDate) == LLMUser(id: "u2", tier: .pro))
    }

    @Test func aWrongAudienceIsRefused() async throws {
        for aud in [#""other-service""#, #"["a","b"]"#, nil] {
            let token = Self.signed(claims(aud: aud))
            #expect(reason(token) == .wrongAudience)
            let (code, body) = await status(try api(), token: token)
            #expect(code == 401 && body.contains(#""reason":"wrongAudience""#) && body.contains("unauthorized"))
            #expect(!body.contains(token) && !logs.contains(token))
        }
    }

    @Test func aWrongIssuerIsRefused() async throws {
        for iss in ["someone-else", nil] {
            let token = Self.signed(claims(iss: iss))
            #expect(reason(token) == .wrongIssuer)
            let (code, body) = await status(try api(), token: token)
            #expect(code == 401 && body.contains(#""reason":"wrongIssuer""#))
            #expect(!body.contains(token) && !logs.contains(token))
        }
    }

    @Test func aLifetimeOverTheMaximumIsRefused() async throws {
        // 25 hours, issued an hour ago and still unexpired: refused for its lifetime alone.
        let token = Self.signed(claims(iat: now - 3600, exp: now - 3600 + 25 * 3600))
        #expect(reason(token) == .lifetimeTooLong)
        let (code, body) = await status(try api(), token: token)
        #expect(code == 401 && body.contains(#""reason":"lifetimeTooLong""#) && !body.contains(token))
        // The minting side refuses it before signing.
        #expect(throws: LLMAuthenticationError.self) {
            try authenticator.token(user: "u1", tier: .starter, issuedAt: clock.currentDate, lifetime: 25 * 3600)
        }
        let error = #expect(throws: LLMAuthenticationError.self) {
            try authenticator.token(user: "u1", tier: .starter, issuedAt: clock.currentDate, lifetime: 90_000)
        }
        #expect(error?.code == .lifetimeTooLong)
        // A shorter maximum is honoured on both sides.
        let strict = try HS256JWTAuthenticator(
            secret: Secret(Self.secret),
            policy: LLMTokenPolicy(maximumLifetime: 600)
        )
        #expect(
            (try? strict.authenticate(bearerToken: Self.signed(claims()), now: clock.currentDate)) == nil
        )
        #expect(throws: LLMAuthenticationError.self) {
            try strict.token(user: "u1", tier: .starter, issuedAt: clock.currentDate, lifetime: 601)
        }
    }

    @Test func missingTimesAFutureIatAndOtherFormsAreRefusedWithTheirReason() {
        #expect(reason(Self.signed(claims(omitIat: true))) == .missingClaim)
        #expect(reason(Self.signed(claims(omitExp: true))) == .missingClaim)
        #expect(reason(Self.signed(claims(iat: now + 120, exp: now + 3600))) == .issuedInFuture)
        #expect(reason(Self.signed(claims(iat: now + 30, exp: now + 3600))) == nil)  // within the 60 s leeway
        #expect(reason(Self.signed(claims(iat: now - 7200, exp: now))) == .expired)
        #expect(reason(Self.signed(claims(), header: #"{"alg":"none"}"#)) == .unsupportedAlgorithm)
        #expect(reason(Self.signed(claims(), secret: "another-secret-of-at-least-32-bytes!")) == .badSignature)
        #expect(reason("not.a.jwt") == .malformed)
        #expect(reason(Self.signed(#"{"sub":"u1"}"#)) == .invalidClaims)
    }

    @Test func theChecksFollowTheConfiguredIssuerAndAudience() throws {
        let custom = try HS256JWTAuthenticator(
            secret: Secret(Self.secret),
            policy: LLMTokenPolicy(issuer: "https://id.example.com", audience: "keys-api")
        )
        let ours = Self.signed(claims(iss: "https://id.example.com", aud: #""keys-api""#))
        #expect((try? custom.authenticate(bearerToken: ours, now: clock.currentDate)) != nil)
        #expect((try? custom.authenticate(bearerToken: Self.signed(claims()), now: clock.currentDate)) == nil)
        // A minted token carries the configured iss and aud.
        let minted = custom.token(
            user: "u",
            tier: .pro,
            issuedAt: clock.currentDate,
            expiresAt: clock.currentDate.addingTimeInterval(60)
        )
        let payload = try #require(Base64URL.decode(minted.split(separator: ".")[1]))
        let text = String(decoding: payload, as: UTF8.self)
        #expect(text.contains(#""iss":"https://id.example.com""#) && text.contains(#""aud":"keys-api""#))
        #expect(text.contains(#""iat":\#(now)"#) && text.contains(#""exp":\#(now + 60)"#))
    }

    @Test func thePolicyIsReadFromTheEnvironmentAndChecked() throws {
        let defaults = try LLMTokenPolicy(environment: [:])
        #expect(defaults == LLMTokenPolicy())
        #expect(defaults.issuer == "opencat" && defaults.audience == "llm-keys" && defaults.maximumLifetime == 86_400)
        let set = try LLMTokenPolicy(environment: [
            "OPENCAT_LLM_JWT_ISSUER": "me", "OPENCAT_LLM_JWT_AUDIENCE": "you", "OPENCAT_LLM_JWT_MAX_LIFETIME": "900",
        ])
        #expect(set == LLMTokenPolicy(issuer: "me", audience: "you", maximumLifetime: 900))
        // Explicit values (the commands' flags) win over the environment.
        let flagged = try LLMTokenPolicy(
            environment: ["OPENCAT_LLM_JWT_ISSUER": "me", "OPENCAT_LLM_JWT_MAX_LIFETIME": "900"],
            issuer: "flag-issuer",
            maximumLifetime: 300
        )
        #expect(flagged == LLMTokenPolicy(issuer: "flag-issuer", audience: "llm-keys", maximumLifetime: 300))
        #expect(throws: LLMKeyError.self) { try LLMTokenPolicy(environment: [:], maximumLifetime: 0) }
        for bad in ["1h", "0", "-5", "99999999"] {
            let error = #expect(throws: LLMKeyError.self) {
                try LLMTokenPolicy(environment: ["OPENCAT_LLM_JWT_MAX_LIFETIME": bad])
            }
            #expect(error?.code == .misconfigured)
        }
        #expect(throws: LLMKeyError.self) {
            try HS256JWTAuthenticator(secret: Secret(Self.secret), policy: LLMTokenPolicy(issuer: ""))
        }
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import Synchronization
import _CryptoExtras

/// Google's checks.
///
/// The token endpoint (`POST` ``MockCredentials/Google/tokenPath``) takes the form `grant_type=urn:ietf:params:
/// oauth:grant-type:jwt-bearer&assertion=<JWT>`; the assertion must be RS256, signed by the service account's key,
/// with `iss` = its client e-mail, a `scope` naming androidpublisher, `aud` = the token URI, `exp` > `iat` and at
/// most one hour after it. It answers `{"access_token", "expires_in": 3599, "token_type": "Bearer"}` when no cassette
/// entry does, or Google's OAuth error (`invalid_grant` 400, `invalid_client` 401, …). Every other endpoint needs
/// `Bearer <an issued token>`, else Google's 401 `UNAUTHENTICATED` envelope.
final class GoogleAuthenticator: MockAuthenticator {
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    let credentials: MockCredentials.Google
    private let issued = Mutex(Set<String>())

    init(credentials: MockCredentials.Google) { self.credentials = credentials }

    func isTokenEndpoint(_ request: MockRequest) -> Bool {
        request.method == "POST" && request.path == credentials.tokenPath
    }

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        if isTokenEndpoint(request) { return assertionRejection(request, context: context) }
        guard let token = Authorization.bearer(request) else {
            return Self.unauthenticated(
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or "
                    + "other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                reason: "required"
            )
        }
        guard issued.withLock({ $0.contains(token) }) else {
            return Self.unauthenticated(
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
                    + "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                reason: "authError"
            )
        }
        return nil
    }

    func builtInResponse(to request: MockRequest, context: MockAuthContext) -> MockResponse? {
        guard isTokenEndpoint(request) else { return nil }
        if let rejection = assertionRejection(request, context: context) { return rejection }
        let token = credentials.accessToken.revealed
        issued.withLock { _ = $0.insert(token) }
        return .json(200, ["access_token": .string(token), "expires_in": 3599, "token_type": "Bearer"])
    }

    func observe(_ response: MockResponse, to request: MockRequest) {
        guard isTokenEndpoint(request), (200..<300).contains(response.status),
            let token = response.json?["access_token"]?.stringValue
        else { return }
        issued.withLock { _ = $0.insert(token) }
    }

    private func assertionRejection(_ request: MockRequest, context: MockAuthContext) -> MockResponse? {
        let grant = request.formValue("grant_type")
        guard grant == Self.jwtBearerGrant else {
            return Self.oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(grant ?? "")")
        }
        guard let assertion = request.formValue("assertion"), let jws = CompactJWS(assertion),
            let header = jws.decodedHeader(), let claims = jws.decodedClaims()
        else {
            return Self.oauthError(400, "invalid_grant", "Invalid JWT: the assertion is not a well-formed JWT.")
        }
        guard header.alg == "RS256",
            credentials.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: jws.signature),
                for: jws.signingInput,
                padding: .insecurePKCS1v1_5
            )
        else {
            return Self.oauthError(400, "invalid_grant", "Invalid JWT Signature.")
        }
        guard claims.iss == credentials.clientEmail else {
            return Self.oauthError(401, "invalid_client", "The OAuth client was not found.")
        }
        let scopes = (claims.scope ?? "").split(separator: " ")
        guard scopes.contains(where: { $0.contains("androidpublisher") }) else {
            return Self.oauthError(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        }
        let audience = credentials.audience ?? Self.join(context.baseURL, credentials.tokenPath)
        guard claims.aud == audience else {
            return Self.oauthError(400, "invalid_grant", "Invalid JWT: Failed audience check.")
        }
        guard let iat = claims.iat, let exp = claims.exp, exp > iat, exp - iat <= 3600 else {
            return Self.oauthError(
                400,
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your "
                    + "iat and exp values in the JWT claim."
            )
        }
        return nil
    }

    static func join(_ base: URL, _ path: String) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text + path
    }

    static func oauthError(_ status: Int, _ error: String, _ description: String) -> MockResponse {
        .json(status, ["error": .string(error), "error_description": .string(description)])
    }

    /// Google's API error envelope for 401.
    static func unauthenticated(_ message: String, reason: String) -> MockResponse {
        .json(
            401,
            [
                "error": [
                    "code": 401,
                    "message": .string(message),
                    "errors": [
                        [
                            "message": .string(message), "domain": "global", "reason": .string(reason),
                            "location": "Authorization", "locationType": "header",
                        ]
                    ],
                    "status": "UNAUTHENTICATED",
                ]
            ],
            headers: [.wwwAuthenticate: "Bearer realm=\"https://accounts.google.com/\""]
        )
    }
}

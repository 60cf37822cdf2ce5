public import Foundation
import HTTPTypes
public import Logging
public import OpenCatCore
import _CryptoExtras

/// Obtains and caches OAuth 2.0 access tokens for a Google service account (the JWT-bearer grant).
///
/// A signed RS256 assertion is posted to the account's token URI as
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`; the access token that comes back is cached
/// until ``refreshMargin`` before its `expires_in`, measured on the injected clock. Concurrent callers share one
/// in-flight refresh, so ten simultaneous verifications cost one token request.
///
/// See <https://developers.google.com/identity/protocols/oauth2/service-account#httprest>.
public actor GoogleAccessTokenProvider {
    /// The OAuth scope of the Google Play Developer API.
    public static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"

    /// The grant type of the JWT-bearer flow (RFC 7523).
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The account whose tokens this provider fetches.
    public nonisolated let serviceAccount: GoogleServiceAccount
    /// The scope requested.
    public nonisolated let scope: String
    /// Where assertions are posted (the key file's `token_uri` unless overridden).
    public nonisolated let tokenURL: URL
    /// How long before expiry a cached token is replaced.
    public nonisolated let refreshMargin: Duration

    private let signingKey: _RSA.Signing.PrivateKey
    private let assertionLifetime: Int64
    private let http: StoreHTTP
    private let logger: Logger

    /// The cached token and its shared refresh (set once, right after init).
    private var cache: AccessTokenCache?
    /// Callers currently waiting for a refresh (for tests that check the refresh is shared).
    var refreshWaiterCount: Int { get async { await cache?.refreshWaiterCount ?? 0 } }

    /// Creates a provider.
    /// - Parameters:
    ///   - serviceAccount: the service account; its private key must be an RSA key of 2048 bits or more.
    ///   - scope: the OAuth scope (default ``androidPublisherScope``).
    ///   - tokenURL: overrides the key file's `token_uri` (for a MockStores server on loopback).
    ///   - httpClient: sends token requests; its clock decides when a token is stale.
    ///   - assertionLifetime: the assertion's `exp - iat`, capped at one hour.
    ///   - refreshMargin: how long before expiry a token is replaced (default 60 s).
    ///   - logger: receives refresh events (never a token or a key).
    /// - Throws: ``StoreAdapterError`` `unauthorized` when the private key cannot be read; `misconfigured` when the
    ///   token URL is not `https` (plain `http` is allowed only for a loopback host, see
    ///   ``isAcceptableTokenURL(_:)``): the signed assertion is a bearer credential for an hour.
    public init(
        serviceAccount: GoogleServiceAccount,
        scope: String = GoogleAccessTokenProvider.androidPublisherScope,
        tokenURL: URL? = nil,
        httpClient: HTTPClient = HTTPClient(),
        assertionLifetime: Duration = .seconds(3600),
        refreshMargin: Duration = .seconds(60),
        logger: Logger = Logger(label: "dev.opencat.google.oauth", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        let effectiveTokenURL = tokenURL ?? serviceAccount.tokenURI
        guard Self.isAcceptableTokenURL(effectiveTokenURL) else {
            throw StoreAdapterError(
                .misconfigured,
                store: .google,
                "the token URL must use https (http only for 127.0.0.1, ::1 or localhost)",
                storeReason: "token_uri scheme \(effectiveTokenURL.scheme ?? "none")"
            )
        }
        do {
            signingKey = try _RSA.Signing.PrivateKey(pemRepresentation: serviceAccount.privateKey.revealed)
        } catch {
            throw StoreAdapterError(
                .unauthorized,
                store: .google,
                "the service account private key is not a PEM RSA key of 2048 bits or more"
            )
        }
        self.serviceAccount = serviceAccount
        self.scope = scope
        self.tokenURL = effectiveTokenURL
        self.refreshMargin = refreshMargin
        self.assertionLifetime = min(
            GoogleJWTAssertion.maximumLifetimeSeconds,
            max(1, assertionLifetime.components.seconds)
        )
        self.http = StoreHTTP(client: httpClient, store: .google)
        self.logger = logger
    }

    /// Whether the signed assertion may be posted to a URL: `https` with a host, or `http` to a loopback host
    /// (`127.0.0.1`, `::1`, `localhost`: MockStores in tests). Anything else would hand the assertion to whoever
    /// sits on the network path.
    public static func isAcceptableTokenURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return false
        }
        if scheme == "https" { return true }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"]
        return scheme == "http" && loopback.contains(host)
    }

    /// Returns a valid access token, fetching a new one if none is cached or the cached one is about to expire.
    ///
    /// Callers that arrive while a refresh is under way wait for that refresh instead of starting another.
    /// - Returns: the bearer token.
    /// - Throws: ``StoreAdapterError``: `unauthorized` when Google rejects the assertion, `rateLimited`,
    ///   `storeUnavailable`, `timeout`, `network` or `malformedResponse` otherwise.
    public func accessToken() async throws -> Secret<String> {
        try await tokenCache().token()
    }

    /// Forgets a token the API refused (HTTP 401), so that the next ``accessToken()`` fetches a new one.
    ///
    /// Only the given token is dropped: a newer token fetched meanwhile by another caller stays cached.
    /// - Parameter token: the token that was refused.
    public func invalidate(_ token: Secret<String>) async {
        await tokenCache().invalidate(token)
    }

    /// The token cache (created on first use: its fetch calls back into this actor).
    func tokenCache() -> AccessTokenCache {
        if let cache { return cache }
        let made = AccessTokenCache(clock: http.client.clock, refreshMargin: refreshMargin) { [weak self] in
            guard let self else { throw CancellationError() }
            return try await self.fetchToken()
        }
        cache = made
        return made
    }

    /// Builds the signed assertion for a moment (exposed for tests and diagnostics).
    func assertion(issuedAt: Date) throws -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        return try GoogleJWTAssertion.sign(
            header: .init(kid: serviceAccount.privateKeyId),
            claims: .init(
                iss: serviceAccount.clientEmail,
                scope: scope,
                aud: serviceAccount.tokenURI.absoluteString,
                iat: iat,
                exp: iat + assertionLifetime
            ),
            with: signingKey
        )
    }

    private func fetchToken() async throws -> AccessTokenCache.Issued {
        let issuedAt = http.client.clock.currentDate
        let assertion: String
        do {
            assertion = try self.assertion(issuedAt: issuedAt)
        } catch {
            throw StoreAdapterError(
                .unauthorized,
                store: .google,
                "the service account key could not sign the assertion"
            )
        }
        var request = HTTPRequest(
            method: .post,
            scheme: tokenURL.scheme,
            authority: Self.authority(of: tokenURL),
            path: tokenURL.path.isEmpty ? "/" : tokenURL.path
        )
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        let body = "grant_type=\(Self.formEncoded(Self.grantType))&assertion=\(Self.formEncoded(assertion))"

        // Repeating the grant is harmless (it only mints another token), so retries are allowed.
        let response = try await http.send(request, body: Data(body.utf8), idempotent: true)
        guard (200..<300).contains(response.status.code) else {
            let reason = (try? JSONDecoder().decode(GoogleOAuthErrorResponse.self, from: response.body))?.error
            logger.notice(
                "google access token request refused",
                metadata: ["status": "\(response.status.code)", "reason": "\(reason ?? "-")"]
            )
            if let error = http.commonError(for: response, reason: reason) { throw error }
            throw StoreAdapterError(
                .unauthorized,
                store: .google,
                "the token endpoint refused the service account assertion",
                storeReason: reason,
                httpStatus: response.status.code
            )
        }
        let token = try http.decode(GoogleOAuthTokenResponse.self, from: response.body)
        if let type = token.tokenType, type.caseInsensitiveCompare("Bearer") != .orderedSame {
            throw StoreAdapterError(.malformedResponse, store: .google, "the token endpoint issued a non-bearer token")
        }
        let lifetime = max(1, token.expiresIn?.value ?? 3600)
        logger.debug("google access token fetched", metadata: ["expiresIn": "\(lifetime)"])
        return AccessTokenCache.Issued(token: token.accessToken, lifetimeSeconds: lifetime, requestedAt: issuedAt)
    }

    static func authority(of url: URL) -> String? {
        guard let host = url.host else { return nil }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// `application/x-www-form-urlencoded` value encoding: everything but RFC 3986 unreserved characters escaped.
    static func formEncoded(_ value: String) -> String { APIRequest.percentEncoded(value) }
}

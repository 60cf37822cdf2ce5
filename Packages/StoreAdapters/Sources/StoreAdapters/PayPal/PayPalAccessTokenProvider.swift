import Foundation
import HTTPTypes
import Logging
import OpenCatCore

/// Fetches and caches PayPal OAuth 2.0 access tokens (client credentials grant).
///
/// `POST /v1/oauth2/token` with `Authorization: Basic base64(client_id:secret)` and
/// `grant_type=client_credentials`. The token is reused until `expires_in` (minus a margin) has passed on the
/// injected clock, and concurrent callers share one fetch. See <https://developer.paypal.com/api/rest/authentication/>.
actor PayPalAccessTokenProvider {
    private struct CachedToken: Sendable {
        var token: Secret<String>
        var refreshAt: Date
    }

    private let http: StoreHTTP
    private let baseURL: URL
    private let clientId: String
    private let clientSecret: Secret<String>
    private let margin: Duration
    private let logger: Logger
    private var cached: CachedToken?
    private var inFlight: Task<CachedToken, any Error>?

    init(
        http: StoreHTTP,
        baseURL: URL,
        clientId: String,
        clientSecret: Secret<String>,
        margin: Duration,
        logger: Logger
    ) {
        self.http = http
        self.baseURL = baseURL
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.margin = margin
        self.logger = logger
    }

    /// A valid access token: the cached one, or a fresh one (one fetch at a time).
    func token() async throws -> Secret<String> {
        if let cached, http.client.clock.currentDate < cached.refreshAt { return cached.token }
        if let inFlight { return try await inFlight.value.token }
        let task = Task { [http, baseURL, clientId, clientSecret, margin, logger] in
            try await Self.fetch(
                http: http,
                baseURL: baseURL,
                clientId: clientId,
                clientSecret: clientSecret,
                margin: margin,
                logger: logger
            )
        }
        inFlight = task
        defer { inFlight = nil }
        let fresh = try await task.value
        cached = fresh
        return fresh.token
    }

    /// Forgets a token the API rejected (unless a newer one has replaced it already).
    func invalidate(_ token: Secret<String>) {
        if cached?.token == token { cached = nil }
    }

    private static func fetch(
        http: StoreHTTP,
        baseURL: URL,
        clientId: String,
        clientSecret: Secret<String>,
        margin: Duration,
        logger: Logger
    ) async throws -> CachedToken {
        var request = StoreHTTP.request(.post, baseURL: baseURL, path: "/v1/oauth2/token")
        let credentials = Data("\(clientId):\(clientSecret.revealed)".utf8).base64EncodedString()
        request.headerFields[.authorization] = "Basic \(credentials)"
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        let response = try await http.send(request, body: Data("grant_type=client_credentials".utf8), idempotent: true)
        guard response.status.code == 200 else {
            let body = try? JSONDecoder().decode(PayPal.ErrorResponse.self, from: response.body)
            if let common = http.commonError(for: response, reason: body?.reason) { throw common }
            throw StoreAdapterError(
                .unauthorized,
                store: .paypal,
                "PayPal refused an access token (HTTP \(response.status.code))",
                storeReason: body?.reason,
                httpStatus: response.status.code
            )
        }
        let answer = try http.decode(PayPal.AccessTokenResponse.self, from: response.body)
        let lifetime = Duration.seconds(max(0, answer.expiresIn))
        let usable = lifetime > margin * 2 ? lifetime - margin : lifetime / 2
        let now = http.client.clock.currentDate
        logger.debug("paypal access token fetched", metadata: ["expires_in": "\(answer.expiresIn)"])
        return CachedToken(
            token: answer.accessToken,
            refreshAt: now.addingTimeInterval(TimeInterval(usable.components.seconds))
        )
    }
}

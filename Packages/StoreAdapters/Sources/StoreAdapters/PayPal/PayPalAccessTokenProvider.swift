import Foundation
import HTTPTypes
import Logging
import OpenCatCore

/// PayPal OAuth 2.0 access tokens (client credentials grant), cached by an ``AccessTokenCache``.
///
/// `POST /v1/oauth2/token` with `Authorization: Basic base64(client_id:secret)` and
/// `grant_type=client_credentials`. The token is reused until `expires_in` (minus a margin) has passed on the
/// injected clock, and concurrent callers share one fetch. See <https://developer.paypal.com/api/rest/authentication/>.
enum PayPalAccessTokenProvider {
    /// A cache that fetches PayPal tokens.
    static func cache(
        http: StoreHTTP,
        baseURL: URL,
        clientId: String,
        clientSecret: Secret<String>,
        margin: Duration,
        logger: Logger
    ) -> AccessTokenCache {
        AccessTokenCache(clock: http.client.clock, refreshMargin: margin) {
            try await fetch(
                http: http,
                baseURL: baseURL,
                clientId: clientId,
                clientSecret: clientSecret,
                logger: logger
            )
        }
    }

    static func fetch(
        http: StoreHTTP,
        baseURL: URL,
        clientId: String,
        clientSecret: Secret<String>,
        logger: Logger
    ) async throws -> AccessTokenCache.Issued {
        let requestedAt = http.client.clock.currentDate
        var request = APIRequest.make(.post, baseURL: baseURL, path: "/v1/oauth2/token")
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
        logger.debug("paypal access token fetched", metadata: ["expires_in": "\(answer.expiresIn)"])
        return AccessTokenCache.Issued(
            token: answer.accessToken,
            lifetimeSeconds: Int64(answer.expiresIn),
            requestedAt: requestedAt
        )
    }
}

import Foundation
import HTTPTypes
import Logging
import OpenCatCore

/// The PayPal REST plumbing shared by ``PayPalAdapter`` and ``PayPalWebhookVerifier``: bearer tokens from one
/// ``AccessTokenCache`` (refreshed once when the API answers 401), and PayPal's error bodies mapped to
/// ``StoreAdapterError``.
struct PayPalAPI: Sendable {
    let http: StoreHTTP
    let baseURL: URL
    let tokens: AccessTokenCache
    let logger: Logger

    init(configuration: PayPalAdapter.Configuration) {
        let http = StoreHTTP(client: configuration.httpClient, store: .paypal)
        self.http = http
        self.baseURL = configuration.baseURL
        self.logger = configuration.logger
        self.tokens = PayPalAccessTokenProvider.cache(
            http: http,
            baseURL: configuration.baseURL,
            clientId: configuration.clientId,
            clientSecret: configuration.clientSecret,
            margin: configuration.tokenRefreshMargin,
            logger: configuration.logger
        )
    }

    /// Sends an authenticated JSON request; on 401 the token is replaced and the request sent once more.
    func send(
        _ method: HTTPRequest.Method,
        path: String,
        headers: [(HTTPField.Name, String)] = [],
        body: Data? = nil
    ) async throws -> HTTPTransportResponse {
        try await tokens.sendAuthorized(
            onRefused: { [logger] in logger.debug("paypal rejected the access token; fetching a new one") }
        ) { [http, baseURL] token in
            var request = APIRequest.make(method, baseURL: baseURL, path: path)
            request.headerFields[.authorization] = "Bearer \(token.revealed)"
            request.headerFields[.accept] = "application/json"
            if body != nil { request.headerFields[.contentType] = "application/json" }
            for (name, value) in headers { request.headerFields[name] = value }
            return try await http.send(request, body: body)
        }
    }

    /// The shared error for a PayPal error response.
    /// - Parameter subject: what was asked for, for the message (`"order"`, `"webhook verification"`).
    func error(for response: HTTPTransportResponse, subject: String) -> StoreAdapterError {
        let body = try? JSONDecoder().decode(PayPal.ErrorResponse.self, from: response.body)
        let reason = body?.reason
        let status = response.status.code
        let issues = body?.issues ?? []
        if status == 404 || body?.name == "RESOURCE_NOT_FOUND" || issues.contains("INVALID_RESOURCE_ID") {
            return StoreAdapterError(
                .notFound,
                store: .paypal,
                "PayPal does not know this \(subject)",
                storeReason: reason,
                httpStatus: status
            )
        }
        if let common = http.commonError(for: response, reason: reason) { return common }
        if body?.name == "RATE_LIMIT_REACHED" {
            return StoreAdapterError(
                .rateLimited,
                store: .paypal,
                "PayPal is rate limiting requests",
                storeReason: reason,
                httpStatus: status
            )
        }
        if status == 422 || body?.name == "UNPROCESSABLE_ENTITY" {
            return StoreAdapterError(
                .notPaid,
                store: .paypal,
                "PayPal could not complete the payment of this \(subject)",
                storeReason: reason,
                httpStatus: status
            )
        }
        if (400...499).contains(status) {
            return StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "PayPal rejected the request for this \(subject) (HTTP \(status))",
                storeReason: reason,
                httpStatus: status
            )
        }
        return StoreAdapterError(
            .malformedResponse,
            store: .paypal,
            "unexpected HTTP status \(status)",
            storeReason: reason,
            httpStatus: status
        )
    }
}

extension HTTPField.Name {
    /// `PayPal-Request-Id`: makes a PayPal `POST` idempotent.
    static let paypalRequestId = HTTPField.Name("PayPal-Request-Id")!
    /// `Prefer`: `return=representation` asks PayPal for the whole resource.
    static let paypalPrefer = HTTPField.Name("Prefer")!
}

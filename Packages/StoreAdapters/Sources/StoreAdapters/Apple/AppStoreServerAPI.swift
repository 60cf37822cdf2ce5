import Foundation
import HTTPTypes
import OpenCatCore

/// The App Store Server API calls the adapter makes, and Apple's numeric error codes mapped to the shared codes.
///
/// [Get Transaction Info](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info)
struct AppStoreServerAPI: Sendable {
    /// Apple's error codes that have a shared meaning.
    enum ErrorCode {
        static let invalidTransactionId: Int64 = 4_000_006
        static let transactionIdNotFound: Int64 = 4_040_010
        static let rateLimitExceeded: Int64 = 4_290_000
        static let generalInternal: Int64 = 5_000_000
        static let generalInternalRetryable: Int64 = 5_000_001
        // Renewal-date extensions (Extend a Subscription Renewal Date; Get Status of … Extensions).
        static let subscriptionExtensionIneligible: Int64 = 4_030_004
        static let subscriptionMaxExtension: Int64 = 4_030_005
        static let familySharedSubscriptionExtensionIneligible: Int64 = 4_030_007
        static let statusRequestNotFound: Int64 = 4_040_009
        /// Get App Transaction Info: the customer has no app transaction for the app.
        static let appTransactionDoesNotExist: Int64 = 4_040_019
        // Retention Messaging.
        static let imageNotFound: Int64 = 4_040_014
        static let messageNotFound: Int64 = 4_040_015
        static let performanceTestRunNotFound: Int64 = 4_040_018
        static let defaultMessageNotFound: Int64 = 4_040_020
        static let realtimeURLNotFound: Int64 = 4_040_021
        static let imageAlreadyExists: Int64 = 4_090_000
        static let messageAlreadyExists: Int64 = 4_090_001
    }

    let http: StoreHTTP
    let credentials: AppleStoreAdapter.APICredentials
    let bundleId: String

    /// `GET /inApps/v1/transactions/{transactionId}` on one environment's base URL.
    /// - Returns: the signed transaction (not yet verified).
    /// - Throws: ``StoreAdapterError`` with Apple's code in `storeReason`.
    func transactionInfo(transactionId: String, baseURL: URL) async throws -> Secret<String> {
        let request = try makeRequest(baseURL: baseURL, path: "/inApps/v1/transactions/" + transactionId)
        let response = try await http.send(request)
        guard response.status.code == 200 else { throw error(for: response) }
        let body = try http.decode(AppStore.TransactionInfoResponse.self, from: response.body)
        guard let signed = body.signedTransactionInfo, !signed.revealed.isEmpty else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "the App Store answered without signedTransactionInfo",
                httpStatus: 200
            )
        }
        return signed
    }

    /// `GET /inApps/v1/subscriptions/{transactionId}` (Get All Subscription Statuses) on one environment's base URL,
    /// only the subscriptions in `status` (Apple's repeated `status` query: 1 to 5) when it is not empty.
    func subscriptionStatuses(transactionId: String, status: [Int] = [], baseURL: URL) async throws
        -> AppStore.StatusResponse
    {
        let query = status.isEmpty ? "" : "?" + APIRequest.query(status.map { ("status", String($0)) })
        let request = try makeRequest(baseURL: baseURL, path: "/inApps/v1/subscriptions/" + transactionId + query)
        let response = try await http.send(request)
        guard response.status.code == 200 else { throw error(for: response) }
        return try http.decode(AppStore.StatusResponse.self, from: response.body)
    }

    /// One call of the App Store Server API: a signed bearer token, `query` appended, `body` sent as JSON.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the path below the environment's base URL, percent-encoded (`/inApps/v2/history/…`).
    ///   - query: query pairs, encoded here.
    ///   - body: a JSON body (`Content-Type: application/json`).
    ///   - idempotent: whether a failed attempt may be repeated (Apple's PUT and POST calls carry their own request
    ///     identifier, or are harmless to repeat).
    ///   - baseURL: the environment's base URL.
    /// - Returns: the answer, whatever its status (callers map a non-2xx with ``error(for:)``).
    func call(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable & Sendable)? = nil,
        idempotent: Bool? = nil,
        baseURL: URL
    ) async throws -> HTTPTransportResponse {
        var request = try makeRequest(baseURL: baseURL, path: path)
        request.method = method
        if !query.isEmpty { request.path = (request.path ?? "") + "?" + APIRequest.query(query) }
        var data: Data?
        if let body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(body)
            request.headerFields[.contentType] = "application/json"
        }
        return try await http.send(request, body: data, idempotent: idempotent)
    }

    /// One call with a body that is not JSON (Retention Messaging's PNG images): `data` sent as `contentType`.
    /// Repeating it is harmless (it is a `PUT` under the caller's identifier), so a failed attempt is retried.
    func upload(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        data: Data,
        contentType: String,
        baseURL: URL
    ) async throws -> HTTPTransportResponse {
        var request = try makeRequest(baseURL: baseURL, path: path)
        request.method = method
        if !query.isEmpty { request.path = (request.path ?? "") + "?" + APIRequest.query(query) }
        request.headerFields[.contentType] = contentType
        return try await http.send(request, body: data, idempotent: true)
    }

    private func makeRequest(baseURL: URL, path: String) throws -> HTTPRequest {
        guard let scheme = baseURL.scheme, let host = baseURL.host, !host.isEmpty else {
            throw StoreAdapterError(
                .network,
                store: .apple,
                "the App Store Server API base URL is not valid",
                storeReason: "invalidBaseURL"
            )
        }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = baseURL.port { authority += ":\(port)" }
        var basePath = baseURL.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        var request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: basePath + path)
        let token: String
        do {
            token = try AppStoreServerAPIToken.make(
                credentials: credentials,
                bundleId: bundleId,
                now: http.client.clock.currentDate
            )
        } catch {
            throw StoreAdapterError(
                .unauthorized,
                store: .apple,
                "could not sign the App Store Server API token",
                storeReason: "tokenSigningFailed"
            )
        }
        request.headerFields[.authorization] = "Bearer \(token)"
        request.headerFields[.accept] = "application/json"
        request.headerFields[.userAgent] = "OpenCat-StoreAdapters"
        return request
    }

    /// Apple's error body mapped to the shared codes; Apple's numeric code is kept in `storeReason`.
    func error(for response: HTTPTransportResponse) -> StoreAdapterError {
        let payload = try? JSONDecoder().decode(AppStore.ErrorPayload.self, from: response.body)
        let status = response.status.code
        let reason = payload?.errorCode.map(String.init)
        func error(_ code: StoreAdapterError.Code, _ message: String, retryAfter: Duration? = nil) -> StoreAdapterError
        {
            StoreAdapterError(
                code,
                store: .apple,
                message,
                storeReason: reason,
                httpStatus: status,
                retryAfter: retryAfter
            )
        }
        if let known = payload?.errorCode.flatMap({ Self.knownErrors[$0] }) { return error(known.code, known.message) }
        switch payload?.errorCode {
        case let code? where status == 403 && (4_030_000...4_039_999).contains(code):
            // Apple answers bad credentials with 401; a 403 with an error code refuses the request itself.
            return error(.invalidProof, "the App Store refused the request")
        case ErrorCode.rateLimitExceeded:
            let wait = RetryPolicy.retryAfter(in: response.head.headerFields, now: http.client.clock.currentDate)
            return error(.rateLimited, "the App Store is rate limiting requests", retryAfter: wait)
        case ErrorCode.generalInternal, ErrorCode.generalInternalRetryable:
            return error(.storeUnavailable, "the App Store Server API failed after retries")
        default:
            if let common = http.commonError(for: response, reason: reason) { return common }
            switch status {
            case 404: return error(.notFound, "the App Store found nothing for this request")
            case 400...499: return error(.invalidProof, "the App Store rejected the request")
            default: return error(.malformedResponse, "unexpected App Store answer (HTTP \(status))")
            }
        }
    }

    /// Apple's error codes with a meaning of their own: the shared code and what it means.
    static let knownErrors: [Int64: (code: StoreAdapterError.Code, message: String)] = [
        ErrorCode.transactionIdNotFound: (.notFound, "the App Store does not know this transaction"),
        ErrorCode.invalidTransactionId: (.invalidProof, "the App Store rejected the transaction id as invalid"),
        // A limit, not "this extension was applied already": Apple extends again for each new request.
        ErrorCode.subscriptionMaxExtension: (
            .invalidProof,
            "the subscription has already received the most renewal-date extensions the App Store allows"
        ),
        ErrorCode.subscriptionExtensionIneligible: (
            .invalidProof,
            "the subscription's state does not allow a renewal-date extension (a free offer, billing retry, an "
                + "ended grace period, expired, or two extensions in the past year)"
        ),
        ErrorCode.familySharedSubscriptionExtensionIneligible: (
            .invalidProof,
            "a Family Sharing member's subscription cannot be extended directly; extend the purchaser's"
        ),
        ErrorCode.statusRequestNotFound: (
            .notFound,
            "the App Store has no extension request with this product and request identifier"
        ),
        ErrorCode.appTransactionDoesNotExist: (.notFound, "the App Store has no app transaction for this customer"),
        ErrorCode.imageNotFound: (.notFound, "the App Store has no image with this identifier"),
        ErrorCode.messageNotFound: (.notFound, "the App Store has no message with this identifier"),
        ErrorCode.performanceTestRunNotFound: (.notFound, "the App Store has no performance test with this request id"),
        ErrorCode.defaultMessageNotFound: (.notFound, "no default message is configured for this product and locale"),
        ErrorCode.realtimeURLNotFound: (.notFound, "no realtime URL is configured"),
        ErrorCode.imageAlreadyExists: (.alreadyDone, "an image with this identifier was uploaded already"),
        ErrorCode.messageAlreadyExists: (.alreadyDone, "a message with this identifier was uploaded already"),
    ]
}

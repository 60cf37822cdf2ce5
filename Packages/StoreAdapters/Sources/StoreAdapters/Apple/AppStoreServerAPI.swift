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

    /// `GET /inApps/v1/subscriptions/{transactionId}` (Get All Subscription Statuses) on one environment's base URL.
    func subscriptionStatuses(transactionId: String, baseURL: URL) async throws -> AppStore.StatusResponse {
        let request = try makeRequest(baseURL: baseURL, path: "/inApps/v1/subscriptions/" + transactionId)
        let response = try await http.send(request)
        guard response.status.code == 200 else { throw error(for: response) }
        return try http.decode(AppStore.StatusResponse.self, from: response.body)
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
        switch payload?.errorCode {
        case ErrorCode.transactionIdNotFound:
            return StoreAdapterError(
                .notFound,
                store: .apple,
                "the App Store does not know this transaction",
                storeReason: reason,
                httpStatus: status
            )
        case ErrorCode.invalidTransactionId:
            return StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the App Store rejected the transaction id as invalid",
                storeReason: reason,
                httpStatus: status
            )
        case ErrorCode.rateLimitExceeded:
            let wait = RetryPolicy.retryAfter(in: response.head.headerFields, now: http.client.clock.currentDate)
            return StoreAdapterError(
                .rateLimited,
                store: .apple,
                "the App Store is rate limiting requests",
                storeReason: reason,
                httpStatus: status,
                retryAfter: wait
            )
        case ErrorCode.generalInternal, ErrorCode.generalInternalRetryable:
            return StoreAdapterError(
                .storeUnavailable,
                store: .apple,
                "the App Store Server API failed after retries",
                storeReason: reason,
                httpStatus: status
            )
        default:
            if let common = http.commonError(for: response, reason: reason) { return common }
            switch status {
            case 404:
                return StoreAdapterError(
                    .notFound,
                    store: .apple,
                    "the App Store found nothing for this request",
                    storeReason: reason,
                    httpStatus: status
                )
            case 400...499:
                return StoreAdapterError(
                    .invalidProof,
                    store: .apple,
                    "the App Store rejected the request",
                    storeReason: reason,
                    httpStatus: status
                )
            default:
                return StoreAdapterError(
                    .malformedResponse,
                    store: .apple,
                    "unexpected App Store answer (HTTP \(status))",
                    storeReason: reason,
                    httpStatus: status
                )
            }
        }
    }
}

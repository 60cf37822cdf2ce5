import Foundation
import HTTPTypes
import OpenCatCore

/// The HTTP plumbing every adapter shares: send through OpenCatCore's ``HTTPClient`` (timeouts, retries,
/// `Retry-After`), and turn what is common to all stores into ``StoreAdapterError``: transport failures,
/// 401/403, 429 and 5xx after retries, unreadable bodies. Requests are built with OpenCatCore's ``APIRequest``,
/// which keeps the base URL's path (MockStores, a proxy).
struct StoreHTTP: Sendable {
    let client: HTTPClient
    let store: Store

    /// Sends a request; a transport failure becomes `timeout` or `network`.
    func send(_ request: HTTPRequest, body: Data? = nil, idempotent: Bool? = nil) async throws -> HTTPTransportResponse
    {
        do {
            return try await client.send(request, body: body, idempotent: idempotent)
        } catch let error as HTTPTransportError {
            let code: StoreAdapterError.Code = error.code == .timeout ? .timeout : .network
            throw StoreAdapterError(code, store: store, error.message, storeReason: error.code.rawValue)
        }
    }

    /// The shared error for a status every store means the same way, or `nil` for the adapter to decide.
    /// - Parameter reason: the store's own code/reason parsed from the body, if any.
    func commonError(for response: HTTPTransportResponse, reason: String?) -> StoreAdapterError? {
        let status = response.status.code
        switch status {
        case 401, 403:
            return StoreAdapterError(
                .unauthorized,
                store: store,
                "the store rejected our credentials",
                storeReason: reason,
                httpStatus: status
            )
        case 429:
            let wait = RetryPolicy.retryAfter(in: response.head.headerFields, now: client.clock.currentDate)
            return StoreAdapterError(
                .rateLimited,
                store: store,
                "the store is rate limiting requests",
                storeReason: reason,
                httpStatus: status,
                retryAfter: wait
            )
        case 500...599:
            return StoreAdapterError(
                .storeUnavailable,
                store: store,
                "the store failed (HTTP \(status)) after retries",
                storeReason: reason,
                httpStatus: status
            )
        default:
            return nil
        }
    }

    /// Decodes a JSON body; anything unreadable becomes `malformedResponse`.
    func decode<Value: Decodable>(_ type: Value.Type, from body: Data, decoder: JSONDecoder = JSONDecoder()) throws
        -> Value
    {
        do {
            return try decoder.decode(Value.self, from: body)
        } catch {
            throw StoreAdapterError(
                .malformedResponse,
                store: store,
                "unreadable \(Value.self): \(Self.summary(of: error))"
            )
        }
    }

    /// A decoding error's path and kind, without the data it was looking at (OpenCatCore's ``JSONCoding``).
    static func summary(of error: any Error) -> String { JSONCoding.summary(of: error) }
}

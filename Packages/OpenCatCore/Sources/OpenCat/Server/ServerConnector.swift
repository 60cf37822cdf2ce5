import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging
import OpenCatCore
import OpenCatServerAPI

/// An error answer of the OpenCat server.
public struct OpenCatServerError: Error, Hashable, Sendable, CustomStringConvertible, TransientErrorClassifying {
    /// The HTTP status.
    public var status: Int
    /// The server's error code (`"invalid_receipt"`, …), if it sent one.
    public var code: String?
    /// The server's message, if it sent one.
    public var message: String?

    /// Creates an error.
    public init(status: Int, code: String?, message: String?) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// 429 and 5xx are transient: the purchase stays in the outbox.
    public var isTransient: Bool { status == 429 || status >= 500 }

    /// The server's error codes that are a verdict on the proof itself.
    public static let verdictCodes: Set<String> = [
        "invalid_receipt", "not_paid", "wrong_application", "product_mismatch", "purchaser_mismatch",
    ]

    /// Whether this is the server's final verdict on the proof (422, or a 4xx with a verdict code): the only
    /// answer that removes a purchase from the outbox. 401, 403, 404, 408, 409 and the rest leave it there.
    public var isVerdict: Bool {
        status == 422 || ((400..<500).contains(status) && Self.verdictCodes.contains(code ?? ""))
    }

    public var description: String {
        "OpenCat server answered HTTP \(status)\(code.map { " (\($0))" } ?? "")\(message.map { ": \($0)" } ?? "")"
    }
}

/// Talks to the OpenCat server API (docs/api/opencat-server.md): posts purchase proofs, reads subscribers and
/// offerings. Authenticated with the app's public API key as a bearer token.
struct ServerConnector: Sendable {
    let baseURL: URL
    let apiKey: Secret<String>
    let http: HTTPClient
    let logger: Logger

    func subscriber(appUserId: String) async throws -> ServerAPI.SubscriberResponse {
        logger.debug("server: fetch subscriber")
        return try await api.send(.get, "/v1/subscribers/\(APIRequest.percentEncoded(appUserId))")
    }

    func postReceipt(_ post: ServerAPI.ReceiptPost, idempotencyKey: String) async throws -> ServerAPI.SubscriberResponse
    {
        logger.debug("server: post receipt", metadata: ["store": "\(post.store)", "kind": "\(post.kind)"])
        return try await api.send(.post, "/v1/receipts", body: post, idempotencyKey: idempotencyKey)
    }

    func offerings(appUserId: String) async throws -> ServerAPI.OfferingsResponse {
        logger.debug("server: fetch offerings")
        return try await api.send(.get, "/v1/offerings", query: [("appUserId", appUserId)])
    }

    /// The server API's edge: the API key as bearer token, the SDK's user agent; refusals are
    /// ``OpenCatServerError``s, the rest ``OpenCatError``s.
    private var api: JSONAPIClient<any Error> {
        var headers = HTTPFields()
        headers[.userAgent] = "OpenCatCore/\(OpenCatCoreVersion.string)"
        let logger = logger
        return JSONAPIClient(baseURL: baseURL, http: http, bearerToken: apiKey, headers: headers) { failure in
            switch failure {
            case .invalidRequest(let reason): return OpenCatError(.invalidArgument, reason)
            case .transport(let error):
                logger.debug("server: unreachable", metadata: ["error": "\(error.code)"])
                return OpenCatError.network("the OpenCat server could not be reached", underlying: error)
            case .refused(let status, let envelope, _):
                let error = OpenCatServerError(status: status, code: envelope?.code, message: envelope?.message)
                logger.debug("server: error answer", metadata: ["status": "\(status)", "code": "\(error.code ?? "-")"])
                return error
            case .unreadable(_, let type, _):
                // Not a network failure: asking again gets the same answer. Not transient, so it counts towards
                // stalling an outbox entry instead of being retried forever.
                return OpenCatError(.invalidResponse, "the OpenCat server sent an unreadable \(type)")
            }
        }
    }
}

import Foundation
public import HTTPTypes
public import Hummingbird

/// The one error a route throws to refuse a request: Hummingbird answers it (``HTTPResponseError``) with the error
/// envelope every API of the server shares (`{"error": {"code", "message", "reason"}}`, KeyServerAPI's
/// `KeyServerErrorAnswer`) and its headers (`Retry-After` on a 429 or a 503).
struct APIError: HTTPResponseError {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The stable machine-readable code (`invalid_input`, `rate_limited`, …).
    var code: String
    /// What went wrong, for a person (never a secret).
    var message: String
    /// The shared StoreAdapters code behind a refused proof.
    var reason: String?
    /// Headers the answer carries besides the JSON content type.
    var headers: HTTPFields

    init(
        _ status: HTTPResponse.Status,
        _ code: String,
        _ message: String,
        reason: String? = nil,
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.reason = reason
        self.headers = headers
    }

    /// A refusal to retry after `seconds` (429 or 503).
    static func retry(
        _ status: HTTPResponse.Status,
        _ code: String,
        _ message: String,
        after seconds: Int,
        reason: String? = nil
    ) -> APIError {
        APIError(status, code, message, reason: reason, headers: [.retryAfter: String(seconds)])
    }

    /// The error envelope with the headers.
    var response: Response {
        var response = OpenCatServerApplication.error(status, code, message, reason: reason)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }
}

/// A ledger refusal answers itself the same way (402 `insufficient_balance`, 409 `already_redeemed`, …).
extension LedgerError: HTTPResponseError {
    /// The status ``OpenCatServerApplication`` answers this code with.
    public var status: HTTPResponse.Status { answer.status }

    public func response(from request: Request, context: some RequestContext) throws -> Response { answer.response }

    /// The answer for this code: 402 for a short balance, 409 for a replay, 422 for a final verdict on a proof (the
    /// SDK drops it from its outbox; 409 would be retried) or bad input, 404, else 503 without the cause.
    var answer: APIError {
        switch code {
        case .insufficientBalance: APIError(HTTPResponse.Status(code: 402), code.rawValue, message)
        case .alreadyRedeemed, .idempotencyConflict, .alreadyReceived: APIError(.conflict, code.rawValue, message)
        case .ownedByAnotherUser, .refunded, .invalidInput: APIError(.unprocessableContent, code.rawValue, message)
        case .notFound: APIError(.notFound, code.rawValue, message)
        default: APIError(.serviceUnavailable, "unavailable", "the server could not complete the request")
        }
    }
}

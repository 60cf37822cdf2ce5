public import Foundation
public import HTTPTypes
import Logging

/// Why a JSON API call failed, before a client turns it into its own typed error (``JSONAPIClient/mapFailure``).
///
/// Cancellation is never one of these: a cancelled call throws `CancellationError` past the mapping.
public enum JSONAPIFailure: Sendable {
    /// The request could not be made (a base URL without a host, a body that does not encode).
    case invalidRequest(String)
    /// No answer: the transport failed or timed out (after ``HTTPClient``'s retries).
    case transport(HTTPTransportError)
    /// An answer outside 2xx: its status, the `{"error": {…}}` envelope when the body is one, and the body.
    case refused(status: Int, envelope: JSONAPIErrorEnvelope?, body: Data)
    /// A 2xx answer whose body is not the expected type.
    /// - Parameters: status: the status; type: the expected type's name; summary: where decoding failed (never
    ///   the data).
    case unreadable(status: Int, type: String, summary: String)
}

/// The error body OpenCat's JSON APIs answer with: `{"error": {"code": "…", "message": "…", "reason": "…",
/// "field": "…"}}`, every member optional.
public struct JSONAPIErrorEnvelope: Sendable, Hashable, Codable {
    /// The server's error code (`insufficient_balance`, `invalid_receipt`, …).
    public var code: String?
    /// The server's message.
    public var message: String?
    /// A finer reason (a store's refusal code, a failed token check).
    public var reason: String?
    /// The request field the server refused.
    public var field: String?

    /// Creates an envelope.
    public init(code: String? = nil, message: String? = nil, reason: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field
    }

    /// The envelope in a body, or `nil` when the body is not one.
    public static func decode(from body: Data) -> JSONAPIErrorEnvelope? {
        try? JSONCoding.decoder.decode(JSONAPIErrorAnswer.self, from: body).error
    }
}

/// The error answer of every OpenCat JSON API (the key server, the OpenCat API, LLM keys): `{"error": {"code": …,
/// "message": …, "reason": …, "field": …}}`, members absent when empty. Servers write it, clients read it.
public struct JSONAPIErrorAnswer: Sendable, Hashable, Codable {
    /// The error.
    public var error: JSONAPIErrorEnvelope

    /// An answer around an envelope.
    public init(error: JSONAPIErrorEnvelope) { self.error = error }
}

/// One JSON API as a client sees it, the edge every OpenCat JSON client sends through: requests built under
/// ``baseURL`` (``APIRequest``), a bearer token and fixed header fields on each, hashed idempotency keys, JSON bodies
/// and answers (``JSONCoding``), sent through an ``HTTPClient`` (timeouts, retries), and every failure turned into
/// the client's typed error by one function, ``mapFailure``.
///
/// `CancellationError` is never mapped: a call whose task is cancelled throws `CancellationError`, even when the
/// transport reported the cancellation as a failure of its own.
public struct JSONAPIClient<Failure: Error>: Sendable {
    /// The API's base URL; its path is kept as a prefix of every request's.
    public var baseURL: URL
    /// Sends the requests.
    public var http: HTTPClient
    /// Sent as `Authorization: Bearer <token>` on every request, when set.
    public var bearerToken: Secret<String>?
    /// Header fields sent on every request (an API key, a user agent). Values may be credentials: a client is
    /// never printed with them (its description and mirror show nothing).
    public var headers: HTTPFields
    /// The client's error for a failure. Never sees a cancellation.
    public var mapFailure: @Sendable (JSONAPIFailure) -> Failure
    /// Put before every call's path (`/api/v1`); empty by default.
    public var pathPrefix: String = ""
    /// Query items added to every call (an API version).
    public var commonQuery: [(String, String)] = []
    /// Whether the HTTP client may repeat a POST because it carries an idempotency key (default `true`). An API that
    /// documents no idempotency header sets `false`: its POSTs are repeated only when a call says `idempotent: true`.
    public var repeatsKeyedPOSTs = true
    /// The client's error for a cancelled call, for clients whose API throws only their own type
    /// (``call(_:_:query:body:idempotencyKey:idempotent:as:)``). Never a network failure: nothing is known of a
    /// cancelled call, so an outbox keeps its entry.
    public var cancellation: (@Sendable () -> Failure)?

    /// Creates a client edge.
    /// - Parameters:
    ///   - baseURL: the API's base URL.
    ///   - http: the HTTP client.
    ///   - bearerToken: the bearer token of every request, if any.
    ///   - headers: header fields of every request.
    ///   - mapFailure: the client's error for a failure.
    public init(
        baseURL: URL,
        http: HTTPClient,
        bearerToken: Secret<String>? = nil,
        headers: HTTPFields = [:],
        mapFailure: @escaping @Sendable (JSONAPIFailure) -> Failure
    ) {
        self.baseURL = baseURL
        self.http = http
        self.bearerToken = bearerToken
        self.headers = headers
        self.mapFailure = mapFailure
    }

    /// The `Idempotency-Key` header's name.
    public static var idempotencyKeyField: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }

    /// The request for a call, with every header field: `Accept`, the bearer token, ``headers``, `Content-Type`
    /// when there is a body, and `Idempotency-Key` as the key's SHA-256 (``Fingerprint``: keys may embed ids).
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        idempotencyKey: String? = nil,
        hasBody: Bool = false
    ) -> HTTPRequest {
        var request = APIRequest.make(method, baseURL: baseURL, path: path, query: query)
        request.headerFields[.accept] = "application/json"
        if let bearerToken { request.headerFields[.authorization] = "Bearer \(bearerToken.revealed)" }
        for field in headers { request.headerFields[field.name] = field.value }
        if hasBody { request.headerFields[.contentType] = "application/json" }
        if let idempotencyKey { request.headerFields[Self.idempotencyKeyField] = Fingerprint.hex(of: idempotencyKey) }
        return request
    }

    /// Sends a call and decodes its 2xx answer with ``JSONCoding/decoder``.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: the path under ``baseURL``, percent-encoded (``APIRequest/percentEncoded(_:)``).
    ///   - query: query names and values (encoded here).
    ///   - body: the JSON body (encoded with ``JSONCoding/encoder``), if any.
    ///   - idempotencyKey: the key that makes retries of this call safe, if any (sent hashed).
    ///   - idempotent: whether ``HTTPClient`` may repeat the call (default: by method and idempotency key).
    ///   - type: the answer's type.
    /// - Returns: the decoded answer.
    /// - Throws: `Failure` (from ``mapFailure``), or `CancellationError` when the task is cancelled.
    public func send<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable)? = nil,
        idempotencyKey: String? = nil,
        idempotent: Bool? = nil,
        as type: Response.Type = Response.self
    ) async throws -> Response {
        let response = try await exchange(
            method,
            path,
            query: query,
            body: body,
            idempotencyKey: idempotencyKey,
            idempotent: idempotent
        )
        do {
            return try JSONCoding.decoder.decode(Response.self, from: response.body)
        } catch {
            throw mapFailure(
                .unreadable(
                    status: response.status.code,
                    type: String(describing: Response.self),
                    summary: JSONCoding.summary(of: error)
                )
            )
        }
    }

    /// ``send(_:_:query:body:idempotencyKey:idempotent:as:)`` for a client whose API throws only its own error type:
    /// a cancelled call throws ``cancellation`` (else the failure of a transport that gave up).
    /// - Throws: `Failure`.
    public func call<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable)? = nil,
        idempotencyKey: String? = nil,
        idempotent: Bool? = nil,
        as type: Response.Type = Response.self
    ) async throws(Failure) -> Response {
        do {
            return try await send(
                method,
                path,
                query: query,
                body: body,
                idempotencyKey: idempotencyKey,
                idempotent: idempotent,
                as: type
            )
        } catch let error as Failure {
            throw error
        } catch {
            throw cancellation?()
                ?? mapFailure(.transport(HTTPTransportError(.connectionFailed, "the call was cancelled")))
        }
    }

    /// Sends a call and returns its 2xx answer as it came (for answers without a body, or read another way).
    /// - Parameters: as ``send(_:_:query:body:idempotencyKey:idempotent:as:)``.
    /// - Returns: the 2xx response.
    /// - Throws: `Failure` (from ``mapFailure``), or `CancellationError` when the task is cancelled.
    public func exchange(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable)? = nil,
        idempotencyKey: String? = nil,
        idempotent: Bool? = nil
    ) async throws -> HTTPTransportResponse {
        guard let host = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.host, !host.isEmpty else {
            throw mapFailure(.invalidRequest("the base URL has no host"))
        }
        var data: Data?
        if let body {
            do { data = try JSONCoding.encoder.encode(body) } catch {
                throw mapFailure(.invalidRequest("the request body could not be encoded"))
            }
        }
        let request = request(
            method,
            pathPrefix + path,
            query: query + commonQuery,
            idempotencyKey: idempotencyKey,
            hasBody: data != nil
        )
        let repeatable = idempotent ?? (method == .post && !repeatsKeyedPOSTs ? false : nil)
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request, body: data, idempotent: repeatable)
        } catch let error as CancellationError {
            throw error
        } catch let error as HTTPTransportError {
            if Task.isCancelled { throw CancellationError() }
            http.logger.debug("json api unreachable", metadata: ["error": "\(error.code)"])
            throw mapFailure(.transport(error))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw mapFailure(
                .transport(HTTPTransportError(.connectionFailed, "the transport failed (\(type(of: error)))"))
            )
        }
        let status = response.status.code
        guard (200..<300).contains(status) else {
            let envelope = JSONAPIErrorEnvelope.decode(from: response.body)
            // The status only: a server's words may echo what it refused.
            http.logger.debug("json api refused", metadata: ["status": "\(status)"])
            throw mapFailure(.refused(status: status, envelope: envelope, body: response.body))
        }
        return response
    }
}

extension JSONAPIClient: CustomStringConvertible, CustomReflectable {
    /// The base URL's host only: never a header value.
    public var description: String { "JSONAPIClient(\(baseURL.host ?? "-"))" }
    /// A mirror with no children, so `dump(_:)` shows no credential.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

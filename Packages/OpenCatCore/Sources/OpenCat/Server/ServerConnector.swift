import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging
import OpenCatCore

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
        let request = try makeRequest(.get, path: "/v1/subscribers/\(Self.escape(appUserId))")
        logger.debug("server: fetch subscriber")
        return try await exchange(request, body: nil)
    }

    func postReceipt(_ post: ServerAPI.ReceiptPost, idempotencyKey: String) async throws -> ServerAPI.SubscriberResponse
    {
        var request = try makeRequest(.post, path: "/v1/receipts")
        request.headerFields[.contentType] = "application/json"
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = Fingerprint.hex(of: idempotencyKey)
        logger.debug("server: post receipt", metadata: ["store": "\(post.store)", "kind": "\(post.kind)"])
        return try await exchange(request, body: try JSONCoding.encoder.encode(post))
    }

    func offerings(appUserId: String) async throws -> ServerAPI.OfferingsResponse {
        let request = try makeRequest(.get, path: "/v1/offerings?appUserId=\(Self.escape(appUserId))")
        logger.debug("server: fetch offerings")
        return try await exchange(request, body: nil)
    }

    private func makeRequest(_ method: HTTPRequest.Method, path: String) throws -> HTTPRequest {
        let base =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + path) else {
            throw OpenCatError(.invalidArgument, "the server URL is not valid")
        }
        var request = HTTPRequest(method: method, url: url)
        request.headerFields[.authorization] = "Bearer \(apiKey.revealed)"
        request.headerFields[.accept] = "application/json"
        request.headerFields[.userAgent] = "OpenCatCore/\(OpenCatCoreVersion.string)"
        return request
    }

    private func exchange<Response: Decodable>(_ request: HTTPRequest, body: Data?) async throws -> Response {
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request, body: body)
        } catch let error as HTTPTransportError {
            logger.debug("server: unreachable", metadata: ["error": "\(error.code)"])
            throw OpenCatError.network("the OpenCat server could not be reached", underlying: error)
        }
        guard (200..<300).contains(response.status.code) else {
            let envelope = try? JSONCoding.decoder.decode(ServerAPI.ErrorEnvelope.self, from: response.body)
            let error = OpenCatServerError(
                status: response.status.code,
                code: envelope?.error.code,
                message: envelope?.error.message
            )
            logger.debug(
                "server: error answer",
                metadata: ["status": "\(error.status)", "code": "\(error.code ?? "-")"]
            )
            throw error
        }
        do {
            return try JSONCoding.decoder.decode(Response.self, from: response.body)
        } catch {
            // Not a network failure: asking again gets the same answer. Not transient, so it counts towards
            // stalling an outbox entry instead of being retried forever.
            throw OpenCatError(.invalidResponse, "the OpenCat server sent an unreadable \(Response.self)")
        }
    }

    /// Percent-encodes a path segment or query value (RFC 3986 unreserved characters only).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128))
        )
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

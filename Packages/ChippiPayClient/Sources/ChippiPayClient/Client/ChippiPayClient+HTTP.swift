import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenCatCore

extension ChippiPayClient {
    struct Empty: Encodable {}

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let decoder = JSONDecoder()

    /// A path segment, percent-encoded; an empty or oversized one is refused.
    static func segment(_ text: String) throws(ChippiPayError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw ChippiPayError(.invalidInput, "an empty or too long id")
        }
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func send<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = []
    ) async throws(ChippiPayError) -> Response {
        try await send(method, path, query: query, body: Optional<Empty>.none, idempotencyKey: nil)
    }

    /// Sends a request. A POST is never repeated automatically unless `retryPOST` (for calls without effect):
    /// ChippiPay documents no idempotency header, so a lost answer is resolved by the caller (the purchase flow
    /// looks the purchase up by its transaction hash) rather than by sending again.
    func send<Body: Encodable, Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: Body?,
        idempotencyKey: String?,
        retryPOST: Bool = false
    ) async throws(ChippiPayError) -> Response {
        var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false)
        let basePath = components?.path ?? ""
        components?.path = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + path
        components?.percentEncodedQuery = (query + [("__chipi_api_version", configuration.apiVersion)])
            .map { "\(Self.queryEncode($0.0))=\(Self.queryEncode($0.1))" }.joined(separator: "&")
        guard let url = components?.url else { throw ChippiPayError(.invalidInput, "the ChippiPay URL is not valid") }
        var request = HTTPRequest(method: method, url: url)
        request.headerFields[HTTPField.Name("x-api-key")!] = configuration.apiKey.revealed
        request.headerFields[.authorization] = "Bearer \(configuration.bearerToken.revealed)"
        request.headerFields[.accept] = "application/json"
        request.headerFields[.contentType] = "application/json"
        if let idempotencyKey {
            let digest = SHA256.hash(data: Data(idempotencyKey.utf8))
            request.headerFields[HTTPField.Name("Idempotency-Key")!] = digest.map { String(format: "%02x", $0) }
                .joined()
        }
        var data: Data?
        if let body {
            do { data = try Self.encoder.encode(body) } catch {
                throw ChippiPayError(.invalidInput, "the request could not be encoded")
            }
        }
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request, body: data, idempotent: method == .post ? retryPOST : nil)
        } catch let error as HTTPTransportError {
            configuration.logger.debug("chippipay unreachable", metadata: ["error": "\(error.code)"])
            throw ChippiPayError.from(error)
        } catch {
            throw ChippiPayError(.network, "the request was cancelled")
        }
        guard (200..<300).contains(response.status.code) else {
            let error = ChippiPayError.from(status: response.status.code, body: response.body, redact: redact)
            configuration.logger.debug(
                "chippipay refused",
                metadata: ["status": "\(response.status.code)", "code": "\(error.code)"]
            )
            throw error
        }
        do { return try Self.decoder.decode(Response.self, from: response.body) } catch {
            throw ChippiPayError(
                .malformedResponse,
                "ChippiPay sent an unreadable \(Response.self)",
                status: response.status.code
            )
        }
    }

    /// A server message with any of this client's credentials removed (a server may echo what it refused).
    func redact(_ message: String) -> String {
        var text = message
        for secret in [configuration.apiKey.revealed, configuration.bearerToken.revealed] where secret.count >= 4 {
            text = text.replacingOccurrences(of: secret, with: Secret<String>.placeholder)
        }
        return text
    }

    static func queryEncode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

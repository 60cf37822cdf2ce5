import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenCatCore

extension KeyServerClient {
    struct SpendBody: Encodable {
        var amount: Int
        var feature: String
        var app: String
        var userId: String
    }

    struct AmountBody: Encodable {
        var amount: Int
        var userId: String
        var recipientEmail: String?
    }

    struct TransactionsEnvelope: Decodable {
        var transactions: [WalletTransaction]
        /// The next page's cursor; absent on the last page (and from servers that do not page).
        var nextCursor: String?
    }
    struct FeaturesEnvelope: Decodable { var features: [AppFeature] }
    struct UnlockedEnvelope: Decodable { var features: [String] }
    struct Empty: Encodable {}

    /// The API's JSON: RFC 3339 dates (the same as licenses').
    static let decoder = LicensePayload.decoder

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Lower-case hex of a digest (idempotency keys are hashed: they may embed ids).
    static func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    /// A path segment, percent-encoded (RFC 3986 unreserved characters kept); an empty one is refused.
    static func segment(_ text: String) throws(KeyServerError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw KeyServerError(.invalidInput, "an empty or too long id")
        }
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        allowed.remove(charactersIn: "")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func send<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        as type: Response.Type = Response.self
    ) async throws(KeyServerError) -> Response {
        try await send(method, path, body: Optional<Empty>.none, idempotencyKey: nil, as: type)
    }

    func send<Body: Encodable, Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: Body?,
        idempotencyKey: String?,
        as type: Response.Type = Response.self
    ) async throws(KeyServerError) -> Response {
        let base = configuration.baseURL.absoluteString
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let url = URL(string: trimmed + "/api/v1" + path) else {
            throw KeyServerError(.invalidInput, "the key server URL is not valid")
        }
        var request = HTTPRequest(method: method, url: url)
        request.headerFields[.authorization] = "Bearer \(configuration.token.revealed)"
        request.headerFields[.accept] = "application/json"
        if let idempotencyKey {
            request.headerFields[HTTPField.Name("Idempotency-Key")!] = Self.hex(
                SHA256.hash(data: Data(idempotencyKey.utf8))
            )
        }
        var data: Data?
        if let body {
            request.headerFields[.contentType] = "application/json"
            do { data = try Self.encoder.encode(body) } catch {
                throw KeyServerError(.invalidInput, "the request could not be encoded")
            }
        }
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request, body: data)
        } catch let error as HTTPTransportError {
            configuration.logger.debug("key server unreachable", metadata: ["error": "\(error.code)"])
            throw KeyServerError.from(error)
        } catch {
            throw KeyServerError(.network, "the request was cancelled")
        }
        guard (200..<300).contains(response.status.code) else {
            let error = KeyServerError.from(status: response.status.code, body: response.body)
            configuration.logger.debug(
                "key server refused",
                metadata: ["status": "\(response.status.code)", "code": "\(error.code)"]
            )
            throw error
        }
        do { return try Self.decoder.decode(Response.self, from: response.body) } catch {
            throw KeyServerError(
                .malformedResponse,
                "the key server sent an unreadable \(Response.self): \(LicenseError.summary(of: error))",
                status: response.status.code
            )
        }
    }
}

/// Email addresses as the key server accepts them: one `@`, a dotted domain, no spaces, at most 254 bytes.
enum EmailAddress {
    static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !text.contains(where: \.isWhitespace)
        else { return false }
        return true
    }
}

/// 64-bit Steam ids (decimal, 17 digits for individual accounts).
enum SteamID {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
            && UInt64(text) != nil
    }
}

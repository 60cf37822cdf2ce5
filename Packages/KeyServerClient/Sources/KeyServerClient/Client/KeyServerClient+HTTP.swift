import Foundation
import HTTPTypes
import OpenCatCore

extension KeyServerClient {
    /// The key server's API edge: `/api/v1` under the base URL, the user's bearer token, ``KeyServerError``s.
    var api: JSONAPIClient<KeyServerError> {
        JSONAPIClient(baseURL: configuration.baseURL, http: http, bearerToken: configuration.token) {
            KeyServerError.from($0)
        }
    }

    /// A path segment, percent-encoded (RFC 3986 unreserved characters kept); an empty one is refused.
    static func segment(_ text: String) throws(KeyServerError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw KeyServerError(.invalidInput, "an empty or too long id")
        }
        return APIRequest.percentEncoded(text)
    }

    /// Sends a call under `/api/v1` (idempotency keys are sent hashed: they may embed ids).
    ///
    /// The public API's errors are typed: a cancelled call surfaces as ``KeyServerError/Code/cancelled`` (never as a
    /// network failure or a verdict), so a cancelled purchase or spend stays in the outbox.
    func send<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable)? = nil,
        idempotencyKey: String? = nil,
        as type: Response.Type = Response.self
    ) async throws(KeyServerError) -> Response {
        do {
            return try await api.send(
                method,
                "/api/v1" + path,
                query: query,
                body: body,
                idempotencyKey: idempotencyKey,
                as: type
            )
        } catch let error as KeyServerError {
            throw error
        } catch {
            throw KeyServerError(.cancelled, "the request was cancelled")
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

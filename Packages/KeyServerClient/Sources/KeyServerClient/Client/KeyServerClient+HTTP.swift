import Foundation
import HTTPTypes
import OpenCatCore

extension KeyServerClient {
    /// The key server's API edge: `/api/v1` under the base URL, the user's bearer token, ``KeyServerError``s; a
    /// cancelled call throws ``KeyServerError/Code/cancelled`` (never a network failure or a verdict), so a
    /// cancelled purchase or spend stays in the outbox. Idempotency keys are sent hashed: they may embed ids.
    var api: JSONAPIClient<KeyServerError> {
        var api = JSONAPIClient(baseURL: configuration.baseURL, http: http, bearerToken: configuration.token) {
            KeyServerError.from($0)
        }
        api.pathPrefix = "/api/v1"
        api.cancellation = { KeyServerError(.cancelled, "the request was cancelled") }
        return api
    }

    /// A path segment, percent-encoded (RFC 3986 unreserved characters kept); an empty one is refused.
    static func segment(_ text: String) throws(KeyServerError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw KeyServerError(.invalidInput, "an empty or too long id")
        }
        return APIRequest.percentEncoded(text)
    }
}

/// 64-bit Steam ids (decimal, 17 digits for individual accounts).
enum SteamID {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
            && UInt64(text) != nil
    }
}

import Foundation

/// Decoding of `name=value&…` text (query strings and `application/x-www-form-urlencoded` bodies): `+` is a space
/// and `%XX` a byte; a malformed escape is kept as written.
enum FormURLEncoding {
    static func decode(_ text: String) -> [MockRequest.Field] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(parts[0])
            let value = parts.count > 1 ? unescape(parts[1]) : ""
            return MockRequest.Field(name: name, value: value)
        }
    }

    static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Encodes pairs (RFC 3986 unreserved characters kept, everything else percent-encoded).
    static func encode(_ fields: [(String, String)]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}

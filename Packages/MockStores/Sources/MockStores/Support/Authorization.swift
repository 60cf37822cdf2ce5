import Foundation

/// Reading the `Authorization` header.
enum Authorization {
    /// The credentials after `Bearer ` (scheme case-insensitive), or `nil`.
    static func bearer(_ request: MockRequest) -> String? { credentials(request, scheme: "bearer") }

    /// The `user:password` pair of `Basic` credentials, or `nil`.
    static func basic(_ request: MockRequest) -> (user: String, password: String)? {
        guard let encoded = credentials(request, scheme: "basic"), let data = Data(base64Encoded: encoded),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    private static func credentials(_ request: MockRequest, scheme: String) -> String? {
        guard let value = request.header("Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        return credentials.isEmpty ? nil : credentials
    }

    /// Compares secrets without an early exit on the first differing byte.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

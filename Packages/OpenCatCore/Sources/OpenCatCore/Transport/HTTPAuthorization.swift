import Foundation

/// Reading an `Authorization` header value (RFC 9110 §11.6.2): the one bearer parser of OpenCat's servers,
/// mocks and API handlers.
public enum HTTPAuthorization {
    /// The token of `Bearer <token>`, or `nil`.
    ///
    /// The scheme is case-insensitive (`bearer`, `BEARER`), the token is trimmed of surrounding white space, and an
    /// empty token is no token.
    /// - Parameter header: the header's value (`nil` when the request has none).
    public static func bearerToken(in header: String?) -> String? { credentials(in: header, scheme: "bearer") }

    /// The credentials after an authentication scheme (`Basic`, `Bearer`, …), or `nil` when the header is absent,
    /// names another scheme or carries nothing after it.
    /// - Parameters:
    ///   - header: the header's value.
    ///   - scheme: the scheme, compared case-insensitively.
    public static func credentials(in header: String?, scheme: String) -> String? {
        guard let header else { return nil }
        let value = header.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }),
            value[..<space].lowercased() == scheme.lowercased()
        else { return nil }
        let credentials = value[space...].trimmingCharacters(in: .whitespaces)
        return credentials.isEmpty ? nil : credentials
    }
}

/// Comparisons of secrets whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether two byte strings are equal, without an early exit on the first differing byte (the time depends only
    /// on the lengths).
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    /// Whether two strings have the same UTF-8 bytes, compared in constant time.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool { equals(lhs.utf8, rhs.utf8) }
}

/// A value that must never be shown: an API key, a receipt, a JWS, a purchase token, a license key.
///
/// `Secret` hides its value from every path a value usually leaks through: `description`,
/// `debugDescription`, string interpolation, `dump(_:)` and `Mirror`, and `Encodable` output. The value is read
/// only through ``revealed``, which makes every disclosure explicit and easy to audit with `grep`.
///
/// ```swift
/// let key = Secret("sk_test_123")
/// print(key)             // <redacted>
/// request.headerFields[.authorization] = "Bearer \(key.revealed)"
/// ```
///
/// Decoding reads the plain value (so configuration files can carry secrets); encoding never writes it.
public struct Secret<Value: Sendable>: Sendable {
    /// The protected value. Read it only where it must leave the process (a request header, a signature).
    public let revealed: Value

    /// Wraps a value.
    /// - Parameter value: the value to protect.
    public init(_ value: Value) {
        self.revealed = value
    }

    /// The text shown wherever a secret would otherwise be printed.
    public static var placeholder: String { "<redacted>" }
}

extension Secret: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Always ``placeholder``.
    public var description: String { Self.placeholder }
    /// Always ``placeholder``.
    public var debugDescription: String { Self.placeholder }
    /// A mirror with no children, so `dump(_:)` shows nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Secret: Encodable {
    /// Encodes ``placeholder``, never the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.placeholder)
    }
}

extension Secret: Decodable where Value: Decodable {
    /// Decodes the plain value.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(Value.self))
    }
}

extension Secret: Equatable where Value: Equatable {
    /// Compares the values. For byte strings prefer a constant-time comparison.
    public static func == (lhs: Secret, rhs: Secret) -> Bool { lhs.revealed == rhs.revealed }
}

extension Secret: Hashable where Value: Hashable {
    /// Hashes the value (the hash is never printed).
    public func hash(into hasher: inout Hasher) { hasher.combine(revealed) }
}

extension Secret: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
where Value == String {
    /// Wraps a string literal.
    public init(stringLiteral value: String) { self.init(value) }
}

/// A Starknet field element: an integer below P = 2²⁵¹ + 17·2¹⁹² + 1, written as `0x`-prefixed lowercase hex.
public struct Felt: Sendable, Hashable, Comparable {
    /// The canonical value, always below P.
    public let value: UInt256

    /// A felt from a value, refused at or above P.
    public init(_ value: UInt256) throws(StarknetCryptoError) {
        guard value < FieldElement.modulus else {
            throw StarknetCryptoError(.notAFieldElement, "value is not below the Stark field prime")
        }
        self.value = value
    }

    /// A felt from a 64-bit integer.
    public init(_ value: UInt64) {
        self.value = UInt256(value)
    }

    init(unchecked value: UInt256) {
        self.value = value
    }

    init(_ element: FieldElement) {
        self.value = element.value
    }

    /// A felt from hexadecimal, with or without `0x` (use ``init(parsing:)`` for text that may be decimal).
    public init(hex text: String) throws(StarknetCryptoError) {
        let number: UInt256
        do {
            number = try UInt256(hex: text)
        } catch {
            throw StarknetCryptoError(.invalidNumber, "not hexadecimal: \(error)")
        }
        try self.init(number)
    }

    /// A felt from `0x` hex or decimal text.
    public init(parsing text: String) throws(StarknetCryptoError) {
        guard let number = UInt256(text) else {
            throw StarknetCryptoError(.invalidNumber, "not a number")
        }
        try self.init(number)
    }

    /// A Cairo short string: at most 31 ASCII characters, big-endian.
    public init(shortString text: String) throws(StarknetCryptoError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= 31, bytes.allSatisfy({ $0 < 0x80 }) else {
            throw StarknetCryptoError(.invalidShortString, "a short string is at most 31 ASCII characters")
        }
        self.value = (try? UInt256(bigEndianBytes: bytes)) ?? .zero
    }

    /// Zero.
    public static let zero = Felt(0)
    /// One.
    public static let one = Felt(1)

    var element: FieldElement { FieldElement(reduced: value) }

    /// Lowercase `0x` hexadecimal without leading zeros.
    public var hexString: String { value.hexString }

    /// Orders felts by their value (0 ..< P).
    public static func < (lhs: Felt, rhs: Felt) -> Bool { lhs.value < rhs.value }
}

extension Felt: CustomStringConvertible {
    /// Lowercase `0x` hexadecimal without leading zeros, as `hexString`.
    public var description: String { hexString }
}

extension Felt: ExpressibleByIntegerLiteral {
    /// A felt from a literal; every `UInt64` is below P, so none is refused.
    public init(integerLiteral value: UInt64) {
        self.init(value)
    }
}

extension Felt: Codable {
    /// Encodes as `0x` hex.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexString)
    }

    /// Decodes `0x` hex or decimal text, or a non-negative JSON integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt64.self) {
            self.init(number)
            return
        }
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}

/// Why a string or byte string is not a 256-bit integer.
public enum UInt256ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing to parse.
    case empty
    /// A character that is not a digit of the base, with its offset.
    case invalidDigit(offset: Int)
    /// More than 256 bits.
    case overflow

    /// The reason in words (`invalid digit at offset 3`).
    public var description: String {
        switch self {
        case .empty: "empty number"
        case .invalidDigit(let offset): "invalid digit at offset \(offset)"
        case .overflow: "number exceeds 256 bits"
        }
    }
}

extension UInt256 {
    /// Parses `0x`-prefixed (or bare) hexadecimal, case-insensitive, up to 64 significant digits.
    public init(hex text: String) throws(UInt256ParseError) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard !digits.isEmpty else { throw .empty }
        var value = UInt256.zero
        var offset = text.count - digits.count
        for character in digits.utf8 {
            let nibble: UInt64
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(character - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt64(character - UInt8(ascii: "A") + 10)
            default: throw .invalidDigit(offset: offset)
            }
            guard value.w3 >> 60 == 0 else { throw .overflow }
            value = value << 4
            value.w0 |= nibble
            offset += 1
        }
        self = value
    }

    /// Parses a plain decimal integer (ASCII digits only, no sign, no separators).
    public init(decimal text: String) throws(UInt256ParseError) {
        guard !text.isEmpty else { throw .empty }
        var value = UInt256.zero
        for (offset, character) in text.utf8.enumerated() {
            guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else {
                throw .invalidDigit(offset: offset)
            }
            guard let times10 = value.multiplied(by: 10),
                let next = times10.adding(UInt256(UInt64(character - UInt8(ascii: "0"))))
            else { throw .overflow }
            value = next
        }
        self = value
    }

    /// Big-endian bytes, at most 32 (shorter input is left-padded with zeros).
    public init(bigEndianBytes bytes: some Collection<UInt8>) throws(UInt256ParseError) {
        guard bytes.count <= 32 else { throw .overflow }
        var value = UInt256.zero
        for byte in bytes {
            value = value << 8
            value.w0 |= UInt64(byte)
        }
        self = value
    }

    /// The 32 big-endian bytes.
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for index in 0..<4 {
            let word = limb(3 - index)
            for byte in 0..<8 {
                out[index * 8 + byte] = UInt8(truncatingIfNeeded: word >> UInt64(56 - byte * 8))
            }
        }
        return out
    }

    /// Lowercase `0x`-prefixed hexadecimal without leading zeros (`0x0` for zero).
    public var hexString: String {
        let limbs = [w3, w2, w1, w0]
        guard let first = limbs.firstIndex(where: { $0 != 0 }) else { return "0x0" }
        var text = "0x" + String(limbs[first], radix: 16)
        for word in limbs[(first + 1)...] {
            let part = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - part.count) + part
        }
        return text
    }

    /// Lowercase hexadecimal padded to 64 digits, `0x`-prefixed.
    public var paddedHexString: String {
        "0x"
            + [w3, w2, w1, w0].map {
                String(repeating: "0", count: 16 - String($0, radix: 16).count) + String($0, radix: 16)
            }.joined()
    }

    /// Base-10 digits.
    public var decimalString: String {
        if isZero { return "0" }
        var chunks: [UInt64] = []
        var rest = self
        let base: UInt64 = 10_000_000_000_000_000_000
        while !rest.isZero {
            guard let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: base) else { break }
            chunks.append(remainder)
            rest = quotient
        }
        var text = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let part = String(chunk)
            text += String(repeating: "0", count: 19 - part.count) + part
        }
        return text
    }
}

extension UInt256: CustomStringConvertible, LosslessStringConvertible {
    /// Decimal digits.
    public var description: String { decimalString }

    /// Parses decimal, or hexadecimal when `0x`-prefixed.
    public init?(_ description: String) {
        if description.hasPrefix("0x") || description.hasPrefix("0X") {
            guard let value = try? UInt256(hex: description) else { return nil }
            self = value
        } else {
            guard let value = try? UInt256(decimal: description) else { return nil }
            self = value
        }
    }
}

extension UInt256: Codable {
    /// Encodes as a `0x`-prefixed hexadecimal string, as Starknet's JSON-RPC carries numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexString)
    }

    /// Decodes a `0x` hexadecimal string or a decimal string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = UInt256(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a 256-bit unsigned integer")
        }
        self = value
    }
}

/// A human license key, `VUUW-XXXX-XXXX-XXXX-Ln`: twelve Crockford Base32 symbols, the last of them the Crockford
/// mod-37 check symbol of the eleven before it, and the plan (`L1`…`L9`).
///
/// Parsing is forgiving the way Crockford's encoding is meant to be: case does not matter, `O` reads as `0`, `I` and
/// `L` read as `1`, hyphens and spaces are optional. A mistyped key (a wrong symbol, two swapped symbols, a missing
/// one) fails the check symbol and is caught here, before any network call.
public struct HumanKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The fixed prefix.
    public static let prefix = "VUUW"
    /// Crockford's Base32 alphabet (no I, L, O, U).
    static let dataAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// Crockford's check alphabet: the 32 data symbols and `*~$=U` for the values 32…36.
    static let checkAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ*~$=U".utf8)

    /// The eleven data symbols, canonical (upper case, no aliases).
    public let data: String
    /// The check symbol.
    public let check: Character
    /// The plan the key unlocks.
    public let plan: PlanLevel

    /// Parses a key typed by a person.
    /// - Throws: ``HumanKeyError`` saying what is wrong (length, prefix, a symbol and where, the check, the plan).
    public init(_ text: String) throws(HumanKeyError) {
        var symbols: [UInt8] = []
        for byte in text.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
            guard symbols.count < 64 else { throw .wrongLength }
            symbols.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
        }
        guard symbols.count == 18 else { throw .wrongLength }
        guard symbols[0..<4].elementsEqual(Self.prefix.utf8) else { throw .wrongPrefix }
        guard symbols[16] == UInt8(ascii: "L"), let level = PlanLevel(symbols[17]) else { throw .invalidPlan }
        var value: UInt64 = 0
        var data: [UInt8] = []
        for (offset, raw) in symbols[4..<15].enumerated() {
            guard let digit = Self.dataValue(raw) else { throw .invalidSymbol(position: offset + 1) }
            value = value << 5 | UInt64(digit)
            data.append(Self.dataAlphabet[digit])
        }
        let expected = Self.checkAlphabet[Int(value % 37)]
        guard let check = Self.checkSymbol(symbols[15]) else { throw .invalidSymbol(position: 12) }
        guard check == expected else { throw .checkSymbolMismatch }
        self.data = String(decoding: data, as: UTF8.self)
        self.check = Character(Unicode.Scalar(check))
        self.plan = level
    }

    /// Makes the key for eleven data values (0…31 each) and a plan: the check symbol is computed.
    /// - Precondition: exactly eleven values, each below 32.
    public init(dataValues: [UInt8], plan: PlanLevel) {
        precondition(dataValues.count == 11 && dataValues.allSatisfy { $0 < 32 }, "eleven 5-bit values")
        var value: UInt64 = 0
        for digit in dataValues { value = value << 5 | UInt64(digit) }
        self.data = String(decoding: dataValues.map { Self.dataAlphabet[Int($0)] }, as: UTF8.self)
        self.check = Character(Unicode.Scalar(Self.checkAlphabet[Int(value % 37)]))
        self.plan = plan
    }

    /// The canonical spelling: `VUUW-XXXX-XXXX-XXXX-Ln`.
    public var description: String {
        let body = Array(data) + [check]
        return "\(Self.prefix)-\(String(body[0..<4]))-\(String(body[4..<8]))-\(String(body[8..<12]))-\(plan)"
    }

    /// Decodes a key from its string, parsed as ``init(_:)`` does.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a valid key (the reason, not the key text).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try HumanKey(text) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a license key: \(error.reason)")
            )
        }
    }

    /// Encodes the key as its canonical spelling (``description``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The value of a data symbol, with Crockford's aliases (O → 0, I and L → 1); nil for anything else.
    static func dataValue(_ symbol: UInt8) -> Int? {
        switch symbol {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return dataAlphabet.firstIndex(of: symbol)
        }
    }

    /// A check symbol in canonical form, with the same aliases; nil for anything else.
    static func checkSymbol(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "O"): return UInt8(ascii: "0")
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return UInt8(ascii: "1")
        default: return checkAlphabet.contains(symbol) ? symbol : nil
        }
    }
}

/// Why a human key was refused.
public enum HumanKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not 18 symbols once hyphens and spaces are removed (`VUUW` + 12 + `Ln`).
    case wrongLength
    /// It does not start with `VUUW`.
    case wrongPrefix
    /// A symbol that is not Crockford Base32, at this position of the twelve (1-based).
    case invalidSymbol(position: Int)
    /// The check symbol does not match the others: a typo.
    case checkSymbolMismatch
    /// The plan is not `L1`…`L9`.
    case invalidPlan

    /// A one-line reason.
    public var reason: String {
        switch self {
        case .wrongLength: "wrong length: expected VUUW-XXXX-XXXX-XXXX-Ln"
        case .wrongPrefix: "the key does not start with VUUW"
        case .invalidSymbol(let position): "symbol \(position) of the key is not a Crockford Base32 symbol"
        case .checkSymbolMismatch: "the check symbol does not match: the key has a typo"
        case .invalidPlan: "the plan is not L1…L9"
        }
    }

    /// The same as ``reason``.
    public var description: String { reason }
}

/// A plan level, `L1`…`L9`.
public struct PlanLevel: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// 1…9.
    public let level: Int

    /// A level from 1 to 9; nil otherwise.
    public init?(level: Int) {
        guard (1...9).contains(level) else { return nil }
        self.level = level
    }

    /// `L1`…`L9`; nil otherwise.
    public init?(_ text: String) {
        guard text.utf8.count == 2, text.first == "L", let digit = text.utf8.last else { return nil }
        self.init(digit)
    }

    init?(_ digit: UInt8) {
        guard (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(digit) else { return nil }
        level = Int(digit - UInt8(ascii: "0"))
    }

    /// `L1`…`L9`.
    public var description: String { "L\(level)" }

    /// Orders plans by level: `L1` < `L2` < … < `L9`.
    public static func < (lhs: PlanLevel, rhs: PlanLevel) -> Bool { lhs.level < rhs.level }

    /// Decodes a plan from its string `L1`…`L9`.
    /// - Throws: `DecodingError.dataCorrupted` for any other string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let plan = PlanLevel(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not L1…L9"))
        }
        self = plan
    }

    /// Encodes the plan as its string, `L1`…`L9`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

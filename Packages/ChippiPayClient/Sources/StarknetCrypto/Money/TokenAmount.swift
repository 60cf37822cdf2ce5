public import Foundation

/// An exact token amount: base units (an unsigned 256-bit integer) and the token's decimals (18 for STRK).
///
/// Parsing refuses more fractional digits than the token has, rather than truncating as ChipiPay's Python SDK
/// does, and Starknet's u256 calldata carries both 128-bit halves (that SDK hard-codes the high half to zero).
public struct TokenAmount: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The amount in the token's smallest unit.
    public let baseUnits: UInt256
    /// Digits after the decimal point (at most 77).
    public let decimals: UInt8

    /// An amount in base units.
    public init(baseUnits: UInt256, decimals: UInt8) {
        self.baseUnits = baseUnits
        self.decimals = min(decimals, 77)
    }

    /// An amount from decimal text (`"2.5"`), exact: more fractional digits than `decimals` is an error.
    public init(parsing text: String, decimals: UInt8) throws(StarknetCryptoError) {
        guard decimals <= 77 else { throw StarknetCryptoError(.invalidNumber, "a token has at most 77 decimals") }
        let number = try ExactDecimal(parsing: text)
        guard number.scale <= Int(decimals) else {
            throw StarknetCryptoError(
                .invalidNumber,
                "\(text) has more than \(decimals) fractional digits: it is not an exact amount"
            )
        }
        guard let power = ExactDecimal.powerOfTen(Int(decimals) - number.scale),
            let scaled = number.digits.multiplied(by: power)
        else { throw StarknetCryptoError(.invalidNumber, "\(text) exceeds 256 bits in base units") }
        self.init(baseUnits: scaled, decimals: decimals)
    }

    /// An amount from a `Decimal`, exactly (a `Decimal` with more fractional digits than `decimals` is refused).
    public init(_ value: Decimal, decimals: UInt8) throws(StarknetCryptoError) {
        try self.init(parsing: ExactDecimal.plainText(value), decimals: decimals)
    }

    /// The amount as decimal text without trailing zeros (`2.5`).
    public var formatted: String {
        let digits = baseUnits.decimalString
        guard decimals > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, Int(decimals) + 1 - digits.count)) + digits
        let split = padded.index(padded.endIndex, offsetBy: -Int(decimals))
        var fraction = padded[split...]
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return fraction.isEmpty ? String(padded[..<split]) : "\(padded[..<split]).\(fraction)"
    }

    /// The exact value as a `Decimal` (nil if it does not fit Decimal's 38 digits).
    public var decimalValue: Decimal? {
        let text = formatted
        guard text.count <= 38 else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Starknet's u256 calldata: `[low, high]`, each 128 bits.
    public var u256: [Felt] {
        [Felt(unchecked: baseUnits & ((UInt256.one << 128) &- .one)), Felt(unchecked: baseUnits >> 128)]
    }

    /// An amount from a contract's u256 answer `[low, high]`.
    public init(u256 felts: [Felt], decimals: UInt8) throws(StarknetCryptoError) {
        guard felts.count == 2, felts[0].value.bitLength <= 128, felts[1].value.bitLength <= 128 else {
            throw StarknetCryptoError(.invalidNumber, "a u256 is two felts of at most 128 bits")
        }
        self.init(baseUnits: felts[0].value | (felts[1].value << 128), decimals: decimals)
    }

    /// The amount as decimal text, as `formatted` (`2.5`).
    public var description: String { formatted }

    /// Orders amounts by value, comparing at the larger number of decimals (`1.5` with 6 decimals is below `2` with 18).
    public static func < (lhs: TokenAmount, rhs: TokenAmount) -> Bool {
        // Compare at the larger scale; a value that overflows 256 bits when scaled is the larger one.
        if lhs.decimals == rhs.decimals { return lhs.baseUnits < rhs.baseUnits }
        if lhs.decimals < rhs.decimals {
            guard let power = ExactDecimal.powerOfTen(Int(rhs.decimals - lhs.decimals)),
                let scaled = lhs.baseUnits.multiplied(by: power)
            else { return false }
            return scaled < rhs.baseUnits
        }
        guard let power = ExactDecimal.powerOfTen(Int(lhs.decimals - rhs.decimals)),
            let scaled = rhs.baseUnits.multiplied(by: power)
        else { return true }
        return lhs.baseUnits < scaled
    }
}

/// A non-negative decimal number as exact significant digits and a scale: `12.50` is (125, 1), `1000` is (1, −3).
struct ExactDecimal: Sendable, Hashable {
    var digits: UInt256
    var scale: Int

    init(digits: UInt256, scale: Int) {
        self.digits = digits
        self.scale = scale
    }

    init(parsing text: String) throws(StarknetCryptoError) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), (whole + fraction).allSatisfy(\.isASCII),
            (whole + fraction).allSatisfy(\.isNumber), parts.count == 1 || !fraction.isEmpty
        else { throw StarknetCryptoError(.invalidNumber, "\"\(text.prefix(40))\" is not a non-negative decimal") }
        // Only the significant digits are kept: trailing zeros go into the scale (negative for `1000`: (1, −3)).
        var trimmed = Substring(fraction)
        while trimmed.last == "0" { trimmed = trimmed.dropLast() }
        var integer = whole.isEmpty ? Substring("0") : whole
        var wholeZeros = 0
        if trimmed.isEmpty, integer.contains(where: { $0 != "0" }) {
            while integer.last == "0" {
                integer = integer.dropLast()
                wholeZeros += 1
            }
        }
        guard let value = try? UInt256(decimal: String(integer + trimmed)) else {
            throw StarknetCryptoError(.invalidNumber, "\"\(text.prefix(40))\" has significant digits past 256 bits")
        }
        digits = value
        scale = trimmed.count - wholeZeros
    }

    /// 10^exponent, or `nil` past 2²⁵⁶ (exponent 78 and above).
    static func powerOfTen(_ exponent: Int) -> UInt256? {
        var value = UInt256.one
        for _ in 0..<max(0, exponent) {
            guard let next = value.multiplied(by: 10) else { return nil }
            value = next
        }
        return value
    }

    /// A `Decimal` as plain digits (no exponent, no grouping), refusing negatives and NaN.
    static func plainText(_ value: Decimal) throws(StarknetCryptoError) -> String {
        guard !value.isNaN, value >= 0 else {
            throw StarknetCryptoError(.invalidNumber, "an amount must be a non-negative number")
        }
        var copy = value
        return NSDecimalString(&copy, Locale(identifier: "en_US_POSIX"))
    }
}

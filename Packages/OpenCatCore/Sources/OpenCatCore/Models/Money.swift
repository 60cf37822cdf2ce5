public import Foundation

/// An exact amount of money: a `Decimal` amount in major units and an ISO 4217 currency code.
///
/// Encoded as `{"amount": "9.99", "currency": "USD"}`: the amount is a string, so no JSON number (and no
/// `Double`) ever touches it.
public struct Money: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The amount in major units (9.99 for $9.99).
    public var amount: Decimal
    /// The ISO 4217 code, upper case.
    public var currency: String

    /// Creates an amount.
    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency.uppercased()
    }

    /// Creates an amount from integer minor units (999 cents → 9.99).
    /// - Parameter exponent: digits after the decimal point for the currency (2 for USD, 0 for JPY, 3 for KWD).
    public init(minorUnits: Int64, currency: String, exponent: Int = 2) {
        self.init(
            amount: Decimal(
                sign: minorUnits < 0 ? .minus : .plus,
                exponent: -exponent,
                significand: Decimal(minorUnits.magnitude)
            ),
            currency: currency
        )
    }

    /// Parses an exact decimal string such as `"10.00"` or `"0.5"`.
    /// - Returns: `nil` unless the text is a plain decimal number.
    public init?(decimalString: String, currency: String) {
        guard let amount = Money.parseDecimal(decimalString) else { return nil }
        self.init(amount: amount, currency: currency)
    }

    /// The amount in minor units for a currency exponent, or `nil` if it is not a whole number of them.
    public func minorUnits(exponent: Int = 2) -> Int64? {
        var scaled = amount * Decimal(sign: .plus, exponent: exponent, significand: 1)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        guard rounded == scaled else { return nil }
        return Int64(exactly: NSDecimalNumber(decimal: rounded).int64Value).flatMap {
            Decimal($0) == rounded ? $0 : nil
        }
    }

    /// The amount as a plain decimal string with at least the currency's minor-unit digits (`"9.99"`, `"3.00"` USD,
    /// `"230"` JPY, `"1.500"` KWD); never rounded, so a more precise amount keeps all its digits.
    public var amountString: String {
        // Decimal's description is exact, uses "." and no grouping, whatever the locale.
        let plain = "\(amount)"
        let digits = Money.minorUnitDigits(currency)
        let parts = plain.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count < digits else { return plain }
        return "\(parts[0]).\(fraction)\(String(repeating: "0", count: digits - fraction.count))"
    }

    /// The number of minor-unit digits of an ISO 4217 currency (2 for most; 0 for JPY, KRW, …; 3 for KWD, BHD,
    /// …); 0 for a code that is not three letters (no padding).
    public static func minorUnitDigits(_ currency: String) -> Int {
        let code = currency.uppercased()
        guard code.utf8.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { return 0 }
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
            "XOF", "XPF":
            return 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": return 3
        case "CLF", "UYW": return 4
        default: return 2
        }
    }

    public var description: String { "\(amountString) \(currency)" }

    private enum CodingKeys: String, CodingKey { case amount, currency }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .amount)
        guard let amount = Money.parseDecimal(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .amount,
                in: container,
                debugDescription: "not a decimal: \(text)"
            )
        }
        self.init(amount: amount, currency: try container.decode(String.self, forKey: .currency))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(amountString, forKey: .amount)
        try container.encode(currency, forKey: .currency)
    }

    /// Strict decimal parsing: optional sign, digits, optional fraction. No exponents, no grouping.
    public static func parseDecimal(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let body = trimmed.hasPrefix("-") ? trimmed.dropFirst() : Substring(trimmed)
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
    }
}

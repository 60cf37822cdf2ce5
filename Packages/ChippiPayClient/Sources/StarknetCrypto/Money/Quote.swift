public import Foundation

/// The token amount that pays for a fiat price at a rate, exactly (design: 50 MXN at 20 MXN per STRK = 2.5 STRK).
///
/// Rounding rule: the exact quotient `amount / rate` is taken in base units and rounded **up** to the next base
/// unit when it does not divide exactly, so the service is always paid in full; the payer's overpayment is below
/// one base unit (10⁻¹⁸ STRK).
public struct Quote: Sendable, Hashable, CustomStringConvertible {
    /// The fiat price.
    public let fiatAmount: Decimal
    /// Its currency (`MXN`).
    public let currency: String
    /// Fiat units per whole token.
    public let rate: Decimal
    /// The token's symbol.
    public let token: String
    /// What to pay.
    public let tokenAmount: TokenAmount
    /// Whether the quotient was rounded up (it did not divide exactly).
    public let roundedUp: Bool

    /// A quote; a zero or negative rate or amount is refused.
    public init(fiatAmount: Decimal, currency: String, rate: Decimal, token: String = "STRK", decimals: UInt8 = 18)
        throws(StarknetCryptoError)
    {
        let (amount, roundedUp) = try Quote.tokenAmount(
            paying: ExactDecimal.plainText(fiatAmount),
            at: ExactDecimal.plainText(rate),
            decimals: decimals
        )
        self.roundedUp = roundedUp
        self.fiatAmount = fiatAmount
        self.currency = currency
        self.rate = rate
        self.token = token
        tokenAmount = amount
    }

    /// `50 MXN at 20 MXN/STRK = 2.5 STRK`.
    public var description: String {
        "\(fiatAmount) \(currency) at \(rate) \(currency)/\(token) = \(tokenAmount.formatted) \(token)"
    }
}

extension Quote {
    /// The token amount that pays `amount` fiat at `rate` fiat per whole token, from plain decimal text (`"50"`,
    /// `"0.125"`), exactly, and whether it was rounded up to the next base unit.
    ///
    /// Any two plain decimals are accepted whose significant digits (from the first non-zero digit to the last
    /// non-zero one) fit 256 bits (every number of at most 77 significant digits does), and every quotient that fits
    /// 256 bits in base units is given: the division is done with its remainder first, so nothing is multiplied out
    /// past 256 bits. Throws ``StarknetCryptoError/Code/invalidNumber`` for text that is not a non-negative plain
    /// decimal, a zero amount or rate, more than 77 decimals, or a result of 2²⁵⁶ base units or more.
    public static func tokenAmount(paying amount: String, at rate: String, decimals: UInt8 = 18)
        throws(StarknetCryptoError) -> (amount: TokenAmount, roundedUp: Bool)
    {
        guard decimals <= 77 else { throw StarknetCryptoError(.invalidNumber, "a token has at most 77 decimals") }
        let fiat = try ExactDecimal(parsing: amount)
        let perToken = try ExactDecimal(parsing: rate)
        guard !perToken.digits.isZero else { throw StarknetCryptoError(.invalidNumber, "the rate must be positive") }
        guard !fiat.digits.isZero else { throw StarknetCryptoError(.invalidNumber, "the amount must be positive") }
        // base units = amount · 10^decimals / rate = (a / 10^x) · 10^d / (b / 10^y) = a · 10^(d + y − x) / b.
        let exponent = Int(decimals) + perToken.scale - fiat.scale
        let (quotient, remainder) = try divide(fiat.digits, by: perToken.digits, timesPowerOfTen: exponent)
        guard remainder.isZero else {
            guard let units = quotient.adding(.one) else {
                throw StarknetCryptoError(.invalidNumber, "the quote exceeds 256 bits in base units")
            }
            return (TokenAmount(baseUnits: units, decimals: decimals), true)
        }
        return (TokenAmount(baseUnits: quotient, decimals: decimals), false)
    }

    /// ⌊a · 10^exponent / b⌋ and its remainder (zero exactly when the division is exact), for a non-zero `b`.
    ///
    /// A positive exponent is taken one decimal digit at a time from the remainder (long division), so only a
    /// quotient past 256 bits is an error; a negative one scales `b`, and a `b · 10^−exponent` past 2²⁵⁶ exceeds
    /// `a`, so the quotient is zero with remainder `a`.
    static func divide(_ a: UInt256, by b: UInt256, timesPowerOfTen exponent: Int)
        throws(StarknetCryptoError) -> (quotient: UInt256, remainder: UInt256)
    {
        guard exponent >= 0 else {
            guard let power = ExactDecimal.powerOfTen(-exponent), let divisor = b.multiplied(by: power),
                let result = a.quotientAndRemainder(dividingBy: divisor)
            else { return (.zero, a) }
            return result
        }
        guard var (quotient, remainder) = a.quotientAndRemainder(dividingBy: b) else { return (.zero, a) }
        for _ in 0..<exponent {
            // remainder < b, so remainder · 10 < 10 · b and the next digit is at most 9.
            var (high, low) = remainder.multipliedFullWidth(by: 10)
            var digit: UInt64 = 0
            while !high.isZero || low >= b {
                let (difference, borrow) = low.subtractingReportingOverflow(b)
                low = difference
                if borrow { high = high &- .one }
                digit += 1
            }
            guard let shifted = quotient.multiplied(by: 10), let next = shifted.adding(UInt256(digit)) else {
                throw StarknetCryptoError(.invalidNumber, "the quote exceeds 256 bits in base units")
            }
            quotient = next
            remainder = low
        }
        return (quotient, remainder)
    }
}

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
        guard decimals <= 77 else { throw StarknetCryptoError(.invalidNumber, "a token has at most 77 decimals") }
        let amount = try ExactDecimal(parsing: ExactDecimal.plainText(fiatAmount))
        let perToken = try ExactDecimal(parsing: ExactDecimal.plainText(rate))
        guard !perToken.digits.isZero else { throw StarknetCryptoError(.invalidNumber, "the rate must be positive") }
        guard !amount.digits.isZero else { throw StarknetCryptoError(.invalidNumber, "the amount must be positive") }
        // base units = amount · 10^decimals / rate = (a / 10^x) · 10^d / (b / 10^y) = a · 10^(d + y − x) / b.
        let exponent = Int(decimals) + perToken.scale - amount.scale
        var numerator = amount.digits
        var denominator = perToken.digits
        if exponent >= 0 {
            guard let power = ExactDecimal.powerOfTen(exponent), let scaled = numerator.multiplied(by: power) else {
                throw StarknetCryptoError(.invalidNumber, "the quote exceeds 256 bits")
            }
            numerator = scaled
        } else {
            guard let power = ExactDecimal.powerOfTen(-exponent), let scaled = denominator.multiplied(by: power) else {
                throw StarknetCryptoError(.invalidNumber, "the quote exceeds 256 bits")
            }
            denominator = scaled
        }
        guard let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator) else {
            throw StarknetCryptoError(.invalidNumber, "the rate must be positive")
        }
        roundedUp = !remainder.isZero
        guard let units = roundedUp ? quotient.adding(.one) : quotient else {
            throw StarknetCryptoError(.invalidNumber, "the quote exceeds 256 bits")
        }
        self.fiatAmount = fiatAmount
        self.currency = currency
        self.rate = rate
        self.token = token
        tokenAmount = TokenAmount(baseUnits: units, decimals: decimals)
    }

    public var description: String {
        "\(fiatAmount) \(currency) at \(rate) \(currency)/\(token) = \(tokenAmount.formatted) \(token)"
    }
}

import Foundation
import StarknetCrypto
import Testing

/// `Quote.tokenAmount(paying:at:decimals:)`: every quotient that fits 256 bits is given exactly, whatever the
/// size of the numerator multiplied out; only a result past 256 bits is refused.
struct QuoteTests {
    static let max256 = "115792089237316195423570985008687907853269984665640564039457584007913129639935"

    @Test func theLargestResultIsGivenEvenWhenTheNumeratorWouldOverflow() throws {
        // (2²⁵⁶ − 1) · 10¹ passes 256 bits; divided by 10 first it does not.
        let (amount, roundedUp) = try Quote.tokenAmount(paying: Self.max256, at: "10", decimals: 1)
        #expect(amount.baseUnits.decimalString == Self.max256 && !roundedUp)
        let (exact, _) = try Quote.tokenAmount(paying: Self.max256, at: "1.0", decimals: 0)
        #expect(exact.baseUnits.decimalString == Self.max256)
    }

    @Test func aTinyQuotientRoundsUpToOneBaseUnit() throws {
        let (amount, roundedUp) = try Quote.tokenAmount(
            paying: "0.\(String(repeating: "0", count: 70))1",
            at: "9\(String(repeating: "0", count: 70))"
        )
        #expect(amount.baseUnits == .one && roundedUp)
    }

    @Test func aQuotientPast256BitsIsRefused() throws {
        // (2²⁵⁶ − 1) / 0.9 is past 256 bits.
        let error = try #require(throws: StarknetCryptoError.self) {
            try Quote.tokenAmount(paying: Self.max256, at: "0.9", decimals: 0)
        }
        #expect(error.code == .invalidNumber && error.reason == "the quote exceeds 256 bits in base units")
        // ⌊a · 10 / 7⌋ is exactly 2²⁵⁶ − 1 with remainder 5: rounding it up passes 256 bits.
        let top = "81054462466121336796499689506081535497288989265948394827620308805539190747955"
        let roundedPast = try #require(throws: StarknetCryptoError.self) {
            try Quote.tokenAmount(paying: top, at: "7", decimals: 1)
        }
        #expect(roundedPast.reason == "the quote exceeds 256 bits in base units")
        let (floor, _) = try Quote.tokenAmount(paying: top, at: "7.00000000000000000001", decimals: 1)
        #expect(floor.baseUnits < UInt256(low: .max, high: .max))
    }

    @Test func significantDigitsPast256BitsAreRefused() throws {
        let error = try #require(throws: StarknetCryptoError.self) {
            try Quote.tokenAmount(
                paying: "115792089237316195423570985008687907853269984665640564039457584007913129639936",
                at: "1"
            )
        }
        #expect(error.code == .invalidNumber && error.reason.contains("significant digits past 256 bits"))
        // Trailing zeros are not significant digits.
        let (amount, _) = try Quote.tokenAmount(
            paying: "1\(String(repeating: "0", count: 100))",
            at: "1\(String(repeating: "0", count: 90))",
            decimals: 0
        )
        #expect(amount.baseUnits.decimalString == "10000000000")
    }

    @Test func theDecimalInitialiserAgreesWithTheTextOne() throws {
        let quote = try Quote(fiatAmount: 50, currency: "MXN", rate: 3)
        let (amount, roundedUp) = try Quote.tokenAmount(paying: "50", at: "3")
        #expect(quote.tokenAmount == amount && quote.roundedUp == roundedUp)
    }
}

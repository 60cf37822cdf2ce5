import Foundation
import OpenCatCore

/// An amount as the Google APIs write it: `{"currencyCode": "USD", "units": "6", "nanos": 990000000}`
/// (upstream name `Money`, renamed here to stay clear of OpenCatCore's ``Money``).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/Money>.
struct GooglePlayMoney: Codable, Hashable, Sendable {
    /// ISO 4217 currency code.
    var currencyCode: String?
    /// Whole units (`int64` as a string).
    var units: FlexibleInt64?
    /// Billionths of a unit, with the sign of `units`.
    var nanos: Int32?

    /// The exact amount, or `nil` without a currency or with inconsistent signs.
    var money: Money? {
        guard let currencyCode, !currencyCode.isEmpty else { return nil }
        let whole = units?.value ?? 0
        let fraction = Int64(nanos ?? 0)
        guard abs(fraction) < 1_000_000_000, whole == 0 || fraction == 0 || (whole < 0) == (fraction < 0) else {
            return nil
        }
        let total =
            Decimal(whole)
            + Decimal(sign: fraction < 0 ? .minus : .plus, exponent: -9, significand: Decimal(fraction.magnitude))
        return Money(amount: total, currency: currencyCode)
    }
}

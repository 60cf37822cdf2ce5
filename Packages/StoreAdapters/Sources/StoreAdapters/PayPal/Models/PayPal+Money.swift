import Foundation
import OpenCatCore

extension PayPal {
    /// PayPal's `money`: a currency code and an exact decimal string (`"10.00"`, `"500"` for JPY).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-money>. Also used for
    /// `amount_with_breakdown` (the breakdown is not read).
    public struct Money: Sendable, Hashable, Codable {
        /// ISO 4217 currency code.
        public var currencyCode: String
        /// The amount as a decimal string.
        public var value: String

        /// Creates an amount.
        public init(currencyCode: String, value: String) {
            self.currencyCode = currencyCode
            self.value = value
        }

        private enum CodingKeys: String, CodingKey {
            case currencyCode = "currency_code"
            case value
        }

        /// The exact amount, or `nil` if ``value`` is not a decimal number.
        public var exact: OpenCatCore.Money? {
            // PayPal's pattern also allows a bare fraction (".5", "-.5"); give it a leading zero.
            var text = value
            if text.hasPrefix(".") { text = "0" + text } else if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
            return OpenCatCore.Money(decimalString: text, currency: currencyCode)
        }
    }
}

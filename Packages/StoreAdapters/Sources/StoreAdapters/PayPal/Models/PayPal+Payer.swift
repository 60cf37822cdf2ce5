extension PayPal {
    /// The customer who approved the order (`payer`, deprecated by PayPal in favour of `payment_source.paypal`
    /// but still returned).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-payer>.
    public struct Payer: Sendable, Hashable, Codable {
        /// The payer's e-mail address.
        public var emailAddress: String?
        /// The payer's PayPal account id.
        public var payerId: String?

        /// Creates a payer.
        public init(emailAddress: String? = nil, payerId: String? = nil) {
            self.emailAddress = emailAddress
            self.payerId = payerId
        }

        private enum CodingKeys: String, CodingKey {
            case emailAddress = "email_address"
            case payerId = "payer_id"
        }
    }
}

extension PayPal {
    /// The payments of a purchase unit: authorizations, captures and refunds.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-payment_collection>.
    public struct PaymentCollection: Sendable, Hashable, Codable {
        /// Authorized payments.
        public var authorizations: [Authorization]?
        /// Captured payments.
        public var captures: [Capture]?
        /// Refunds.
        public var refunds: [Refund]?

        /// Creates a payment collection.
        public init(authorizations: [Authorization]? = nil, captures: [Capture]? = nil, refunds: [Refund]? = nil) {
            self.authorizations = authorizations
            self.captures = captures
            self.refunds = refunds
        }
    }
}

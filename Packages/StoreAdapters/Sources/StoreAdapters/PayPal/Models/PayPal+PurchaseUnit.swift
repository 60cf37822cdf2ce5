extension PayPal {
    /// One purchase unit of an order: what is bought, for how much, and its payments.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-purchase_unit>. OpenCat puts the
    /// product id in `reference_id` and the app's user id in `custom_id`.
    public struct PurchaseUnit: Sendable, Hashable, Codable {
        /// The integrator's id for the unit (OpenCat: the product id). PayPal sets `"default"` when omitted.
        public var referenceId: String?
        /// The integrator's external id (OpenCat: the app's user id).
        public var customId: String?
        /// The integrator's invoice id.
        public var invoiceId: String?
        /// The purchase description.
        public var description: String?
        /// The total amount.
        public var amount: Money?
        /// Authorizations, captures and refunds.
        public var payments: PaymentCollection?

        /// Creates a purchase unit.
        public init(
            referenceId: String? = nil,
            customId: String? = nil,
            invoiceId: String? = nil,
            description: String? = nil,
            amount: Money? = nil,
            payments: PaymentCollection? = nil
        ) {
            self.referenceId = referenceId
            self.customId = customId
            self.invoiceId = invoiceId
            self.description = description
            self.amount = amount
            self.payments = payments
        }

        private enum CodingKeys: String, CodingKey {
            case description, amount, payments
            case referenceId = "reference_id"
            case customId = "custom_id"
            case invoiceId = "invoice_id"
        }
    }
}

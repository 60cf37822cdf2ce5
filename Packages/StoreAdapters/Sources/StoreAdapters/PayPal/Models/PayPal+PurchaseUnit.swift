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
        /// The merchant who receives the payment.
        public var payee: Payee?

        /// Creates a purchase unit.
        public init(
            referenceId: String? = nil,
            customId: String? = nil,
            invoiceId: String? = nil,
            description: String? = nil,
            amount: Money? = nil,
            payments: PaymentCollection? = nil,
            payee: Payee? = nil
        ) {
            self.referenceId = referenceId
            self.customId = customId
            self.invoiceId = invoiceId
            self.description = description
            self.amount = amount
            self.payments = payments
            self.payee = payee
        }

        private enum CodingKeys: String, CodingKey {
            case description, amount, payments, payee
            case referenceId = "reference_id"
            case customId = "custom_id"
            case invoiceId = "invoice_id"
        }
    }

    /// The merchant a purchase unit pays (`purchase_units[].payee`).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-payee>.
    public struct Payee: Sendable, Hashable, Codable {
        /// The merchant's PayPal account id (the "merchant id" / payer id of the seller account).
        public var merchantId: String?
        /// The merchant's e-mail address.
        public var emailAddress: String?

        /// Creates a payee.
        public init(merchantId: String? = nil, emailAddress: String? = nil) {
            self.merchantId = merchantId
            self.emailAddress = emailAddress
        }

        private enum CodingKeys: String, CodingKey {
            case merchantId = "merchant_id"
            case emailAddress = "email_address"
        }
    }
}

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
        /// The items bought (OpenCat: one, its `sku` the product id and its `quantity` the number of packs).
        public var items: [Item]?

        /// Creates a purchase unit.
        public init(
            referenceId: String? = nil,
            customId: String? = nil,
            invoiceId: String? = nil,
            description: String? = nil,
            amount: Money? = nil,
            payments: PaymentCollection? = nil,
            payee: Payee? = nil,
            items: [Item]? = nil
        ) {
            self.referenceId = referenceId
            self.customId = customId
            self.invoiceId = invoiceId
            self.description = description
            self.amount = amount
            self.payments = payments
            self.payee = payee
            self.items = items
        }

        private enum CodingKeys: String, CodingKey {
            case description, amount, payments, payee, items
            case referenceId = "reference_id"
            case customId = "custom_id"
            case invoiceId = "invoice_id"
        }
    }

    /// An item of a purchase unit (`purchase_units[].items[]`).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-item>.
    public struct Item: Sendable, Hashable, Codable {
        /// The item's name (up to 127 characters).
        public var name: String
        /// How many, as PayPal sends it: a string of digits.
        public var quantity: String
        /// The merchant's stock-keeping unit (OpenCat: the product id).
        public var sku: String?
        /// The price of one.
        public var unitAmount: Money?
        /// `DIGITAL_GOODS`, `PHYSICAL_GOODS` or `DONATION`.
        public var category: String?

        /// Creates an item.
        public init(
            name: String,
            quantity: String,
            sku: String? = nil,
            unitAmount: Money? = nil,
            category: String? = nil
        ) {
            self.name = name
            self.quantity = quantity
            self.sku = sku
            self.unitAmount = unitAmount
            self.category = category
        }

        private enum CodingKeys: String, CodingKey {
            case name, quantity, sku, category
            case unitAmount = "unit_amount"
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

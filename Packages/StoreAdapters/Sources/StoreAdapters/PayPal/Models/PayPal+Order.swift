extension PayPal {
    /// A Checkout Orders v2 order (the fields OpenCat reads).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#orders_get>.
    public struct Order: Sendable, Hashable, Codable {
        /// An order's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// Created; the buyer has not approved it.
            public static let created = Status(rawValue: "CREATED")
            /// Saved for later (`processing_instruction`); not approved.
            public static let saved = Status(rawValue: "SAVED")
            /// The buyer approved it; the merchant must capture (or authorize) the payment.
            public static let approved = Status(rawValue: "APPROVED")
            /// Voided: no payment can be made.
            public static let voided = Status(rawValue: "VOIDED")
            /// The payment was captured or authorized; see the purchase units' payments.
            public static let completed = Status(rawValue: "COMPLETED")
            /// The buyer must act (for example 3-D Secure) before the order can be approved.
            public static let payerActionRequired = Status(rawValue: "PAYER_ACTION_REQUIRED")
        }

        /// An order's intent (raw value; unknown values survive).
        public struct Intent: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// Capture the payment right after approval.
            public static let capture = Intent(rawValue: "CAPTURE")
            /// Authorize now, capture later.
            public static let authorize = Intent(rawValue: "AUTHORIZE")
        }

        /// The order id.
        public var id: String
        /// The status.
        public var status: Status
        /// The intent.
        public var intent: Intent?
        /// The purchase units (OpenCat orders have one).
        public var purchaseUnits: [PurchaseUnit]?
        /// The payer.
        public var payer: Payer?
        /// When it was created (RFC 3339).
        public var createTime: String?
        /// When it last changed (RFC 3339).
        public var updateTime: String?

        /// Creates an order.
        public init(
            id: String,
            status: Status,
            intent: Intent? = nil,
            purchaseUnits: [PurchaseUnit]? = nil,
            payer: Payer? = nil,
            createTime: String? = nil,
            updateTime: String? = nil
        ) {
            self.id = id
            self.status = status
            self.intent = intent
            self.purchaseUnits = purchaseUnits
            self.payer = payer
            self.createTime = createTime
            self.updateTime = updateTime
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, intent, payer
            case purchaseUnits = "purchase_units"
            case createTime = "create_time"
            case updateTime = "update_time"
        }
    }
}

extension PayPal {
    /// An authorized (not yet captured) payment of an `AUTHORIZE`-intent order.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-authorization>.
    public struct Authorization: Sendable, Hashable, Codable {
        /// `CREATED`, `CAPTURED`, `DENIED`, `PARTIALLY_CAPTURED`, `VOIDED`, `PENDING` (raw value).
        public var status: String?
        /// The authorization id.
        public var id: String
        /// The amount authorized.
        public var amount: Money?
        /// When it was created (RFC 3339).
        public var createTime: String?

        /// Creates an authorization.
        public init(id: String, status: String? = nil, amount: Money? = nil, createTime: String? = nil) {
            self.id = id
            self.status = status
            self.amount = amount
            self.createTime = createTime
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, amount
            case createTime = "create_time"
        }
    }
}

extension PayPal {
    /// A refund of a captured payment, as listed in a purchase unit's `payments.refunds`.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-refund>.
    public struct Refund: Sendable, Hashable, Codable {
        /// A refund's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// The refund was paid out.
            public static let completed = Status(rawValue: "COMPLETED")
            /// The refund is pending.
            public static let pending = Status(rawValue: "PENDING")
            /// The refund failed.
            public static let failed = Status(rawValue: "FAILED")
            /// The refund was cancelled.
            public static let cancelled = Status(rawValue: "CANCELLED")
        }

        /// The refund id.
        public var id: String
        /// The status.
        public var status: Status?
        /// The amount refunded.
        public var amount: Money?
        /// When it was created (RFC 3339).
        public var createTime: String?

        /// Creates a refund.
        public init(id: String, status: Status? = nil, amount: Money? = nil, createTime: String? = nil) {
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

extension Stripe {
    /// A Stripe Refund (the fields OpenCat reads).
    ///
    /// See <https://docs.stripe.com/api/refunds/object>. Amounts are integers in the currency's minor units.
    public struct Refund: Sendable, Hashable, Codable {
        /// A refund's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// Being processed.
            public static let pending = Status(rawValue: "pending")
            /// Waiting for the customer to give where to send it (it can be cancelled).
            public static let requiresAction = Status(rawValue: "requires_action")
            /// Paid back.
            public static let succeeded = Status(rawValue: "succeeded")
            /// It failed.
            public static let failed = Status(rawValue: "failed")
            /// It was cancelled.
            public static let canceled = Status(rawValue: "canceled")
        }

        /// The refund id (`re_…`).
        public var id: String
        /// The amount, in minor units.
        public var amount: Int64?
        /// Three-letter ISO currency code, lower case.
        public var currency: String?
        /// The status.
        public var status: Status?
        /// The PaymentIntent refunded.
        public var paymentIntent: String?
        /// The charge refunded.
        public var charge: String?
        /// `duplicate`, `fraudulent`, `requested_by_customer` or `expired_uncaptured_charge`.
        public var reason: String?
        /// Why it failed, when it did.
        public var failureReason: String?
        /// Creation time, in seconds since 1970.
        public var created: Int64?

        private enum CodingKeys: String, CodingKey {
            case id, amount, currency, status, charge, reason, created
            case paymentIntent = "payment_intent"
            case failureReason = "failure_reason"
        }
    }
}

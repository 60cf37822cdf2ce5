extension Stripe {
    /// A Stripe Refund (the fields OpenCat reads).
    ///
    /// See <https://docs.stripe.com/api/refunds/object>. Amounts are integers in the currency's minor units.
    public struct Refund: Sendable, Hashable, Codable {
        /// A refund's status: Stripe's values (`pending`, `requires_action`, `succeeded`, `failed`, `canceled`) are
        /// the ones ``StoreRefund/Status`` normalizes to; unknown values survive.
        public typealias Status = StoreRefund.Status

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

public import Foundation

extension Stripe {
    /// A Stripe Charge, as returned in a PaymentIntent's expanded `latest_charge` (the fields OpenCat reads).
    ///
    /// See <https://docs.stripe.com/api/charges/object>. Amounts are integers in the currency's minor units (see
    /// ``Stripe/minorUnitExponent(forCurrency:)``).
    public struct Charge: Sendable, Hashable, Codable {
        /// The charge's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// The payment went through.
            public static let succeeded = Status(rawValue: "succeeded")
            /// The payment is still being processed.
            public static let pending = Status(rawValue: "pending")
            /// The payment failed.
            public static let failed = Status(rawValue: "failed")
        }

        /// The charge id (`ch_…` or `py_…`).
        public var id: String
        /// The amount charged, in minor units.
        public var amount: Int64?
        /// The amount captured, in minor units.
        public var amountCaptured: Int64?
        /// The amount refunded so far, in minor units (may be less than ``amount`` for a partial refund).
        public var amountRefunded: Int64
        /// Three-letter ISO currency code, lower case.
        public var currency: String?
        /// Whether the charge has been fully refunded.
        public var refunded: Bool
        /// Whether the charge has been disputed.
        public var disputed: Bool?
        /// The charge's status.
        public var status: Status?
        /// Creation time, in seconds since 1970.
        public var created: Int64?

        /// Creates a charge.
        public init(
            id: String,
            amount: Int64? = nil,
            amountCaptured: Int64? = nil,
            amountRefunded: Int64 = 0,
            currency: String? = nil,
            refunded: Bool = false,
            disputed: Bool? = nil,
            status: Status? = nil,
            created: Int64? = nil
        ) {
            self.id = id
            self.amount = amount
            self.amountCaptured = amountCaptured
            self.amountRefunded = amountRefunded
            self.currency = currency
            self.refunded = refunded
            self.disputed = disputed
            self.status = status
            self.created = created
        }

        /// ``created`` as a date.
        public var createdDate: Date? { created.map { Date(timeIntervalSince1970: TimeInterval($0)) } }

        private enum CodingKeys: String, CodingKey {
            case id, amount, currency, refunded, disputed, status, created
            case amountCaptured = "amount_captured"
            case amountRefunded = "amount_refunded"
        }
    }
}

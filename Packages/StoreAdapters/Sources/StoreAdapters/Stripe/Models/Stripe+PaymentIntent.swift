public import Foundation

extension Stripe {
    /// A Stripe PaymentIntent (the fields OpenCat reads; `client_secret` is deliberately not modelled).
    ///
    /// See <https://docs.stripe.com/api/payment_intents/object>. Amounts are integers in the currency's minor
    /// units (see ``Stripe/minorUnitExponent(forCurrency:)``); `created` is in seconds since 1970.
    public struct PaymentIntent: Sendable, Hashable, Codable {
        /// The PaymentIntent's status (raw value; unknown values survive).
        ///
        /// See <https://docs.stripe.com/payments/paymentintents/lifecycle>.
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// Needs a payment method (initial state, or after a failed attempt).
            public static let requiresPaymentMethod = Status(rawValue: "requires_payment_method")
            /// Needs to be confirmed.
            public static let requiresConfirmation = Status(rawValue: "requires_confirmation")
            /// Needs customer action (3D Secure, redirect).
            public static let requiresAction = Status(rawValue: "requires_action")
            /// The payment is being processed (for example a bank debit).
            public static let processing = Status(rawValue: "processing")
            /// Authorized; the funds wait to be captured.
            public static let requiresCapture = Status(rawValue: "requires_capture")
            /// Cancelled.
            public static let canceled = Status(rawValue: "canceled")
            /// Paid.
            public static let succeeded = Status(rawValue: "succeeded")
        }

        /// The id (`pi_…`).
        public var id: String
        /// The object type, `"payment_intent"`.
        public var object: String?
        /// The amount intended to be collected, in minor units.
        public var amount: Int64
        /// The amount received, in minor units.
        public var amountReceived: Int64?
        /// Three-letter ISO currency code, lower case.
        public var currency: String
        /// The status.
        public var status: Status
        /// `true` in live mode, `false` in test mode.
        public var livemode: Bool
        /// Creation time, in seconds since 1970.
        public var created: Int64
        /// The integrator's key/value pairs (OpenCat reads the product and the purchaser from here).
        public var metadata: [String: String]
        /// The latest charge: an id, or the ``Charge`` when requested with `expand[]=latest_charge`.
        public var latestCharge: Expandable<Charge>?
        /// The customer id (`cus_…`), if any.
        public var customer: String?
        /// Why the last payment attempt failed, if it did.
        public var lastPaymentError: APIErrors?
        /// Why it was cancelled, if it was (`abandoned`, `requested_by_customer`, …).
        public var cancellationReason: String?

        /// Creates a PaymentIntent.
        public init(
            id: String,
            object: String? = "payment_intent",
            amount: Int64,
            amountReceived: Int64? = nil,
            currency: String,
            status: Status,
            livemode: Bool,
            created: Int64,
            metadata: [String: String] = [:],
            latestCharge: Expandable<Charge>? = nil,
            customer: String? = nil,
            lastPaymentError: APIErrors? = nil,
            cancellationReason: String? = nil
        ) {
            self.id = id
            self.object = object
            self.amount = amount
            self.amountReceived = amountReceived
            self.currency = currency
            self.status = status
            self.livemode = livemode
            self.created = created
            self.metadata = metadata
            self.latestCharge = latestCharge
            self.customer = customer
            self.lastPaymentError = lastPaymentError
            self.cancellationReason = cancellationReason
        }

        /// ``created`` as a date.
        public var createdDate: Date { Date(timeIntervalSince1970: TimeInterval(created)) }

        private enum CodingKeys: String, CodingKey {
            case id, object, amount, currency, status, livemode, created, metadata, customer
            case amountReceived = "amount_received"
            case latestCharge = "latest_charge"
            case lastPaymentError = "last_payment_error"
            case cancellationReason = "cancellation_reason"
        }

        /// Decodes a PaymentIntent; `metadata` may be absent, and an expanded `customer` object is read as its id.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            object = try container.decodeIfPresent(String.self, forKey: .object)
            amount = try container.decode(Int64.self, forKey: .amount)
            amountReceived = try container.decodeIfPresent(Int64.self, forKey: .amountReceived)
            currency = try container.decode(String.self, forKey: .currency)
            status = try container.decode(Status.self, forKey: .status)
            livemode = try container.decode(Bool.self, forKey: .livemode)
            created = try container.decode(Int64.self, forKey: .created)
            metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
            latestCharge = try container.decodeIfPresent(Expandable<Charge>.self, forKey: .latestCharge)
            customer = try container.decodeIfPresent(Expandable<CustomerReference>.self, forKey: .customer).map {
                switch $0 {
                case .id(let id): id
                case .object(let object): object.id
                }
            }
            lastPaymentError = try container.decodeIfPresent(APIErrors.self, forKey: .lastPaymentError)
            cancellationReason = try container.decodeIfPresent(String.self, forKey: .cancellationReason)
        }

        /// An expanded customer, of which only the id is read.
        private struct CustomerReference: Sendable, Hashable, Codable { var id: String }
    }
}

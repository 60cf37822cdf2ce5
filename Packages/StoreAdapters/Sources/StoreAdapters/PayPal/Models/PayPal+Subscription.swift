import Foundation

extension PayPal {
    /// A PayPal subscription (the fields OpenCat reads), as `GET /v1/billing/subscriptions/{id}` answers it.
    ///
    /// See <https://developer.paypal.com/docs/api/subscriptions/v1/#subscriptions_get>. Times are RFC 3339 strings;
    /// amounts are PayPal's exact decimal strings.
    public struct Subscription: Sendable, Hashable, Codable {
        /// The subscription's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// Created; the buyer has not approved it yet.
            public static let approvalPending = Status(rawValue: "APPROVAL_PENDING")
            /// Approved by the buyer, not yet active.
            public static let approved = Status(rawValue: "APPROVED")
            /// Active: billing runs.
            public static let active = Status(rawValue: "ACTIVE")
            /// Suspended: billing is paused until it is activated again.
            public static let suspended = Status(rawValue: "SUSPENDED")
            /// Cancelled: it will not bill again.
            public static let cancelled = Status(rawValue: "CANCELLED")
            /// Its billing cycles are over.
            public static let expired = Status(rawValue: "EXPIRED")
        }

        /// One tenure of the plan (`TRIAL` or `REGULAR`) and how far billing has got in it.
        public struct CycleExecution: Sendable, Hashable, Codable {
            /// `TRIAL` or `REGULAR`.
            public var tenureType: String
            /// The tenure's place in the plan's order of billing cycles.
            public var sequence: Int?
            /// How many cycles of this tenure were billed.
            public var cyclesCompleted: Int?
            /// How many remain (absent or 0 for an unlimited one).
            public var cyclesRemaining: Int?
            /// How many the tenure has (0: unlimited).
            public var totalCycles: Int?

            enum CodingKeys: String, CodingKey {
                case sequence
                case tenureType = "tenure_type"
                case cyclesCompleted = "cycles_completed"
                case cyclesRemaining = "cycles_remaining"
                case totalCycles = "total_cycles"
            }
        }

        /// The last payment: its amount and time.
        public struct LastPayment: Sendable, Hashable, Codable {
            /// What was paid.
            public var amount: Money?
            /// When it was paid (RFC 3339).
            public var time: String?
        }

        /// Billing state: the next charge, the last payment, failed payments.
        public struct BillingInfo: Sendable, Hashable, Codable {
            /// What the subscriber still owes.
            public var outstandingBalance: Money?
            /// Each tenure and how far billing has got in it.
            public var cycleExecutions: [CycleExecution]?
            /// The last payment received.
            public var lastPayment: LastPayment?
            /// When the next payment is due (RFC 3339).
            public var nextBillingTime: String?
            /// When the last payment will be taken, for a subscription with an end.
            public var finalPaymentTime: String?
            /// How many payments in a row have failed.
            public var failedPaymentsCount: Int?

            enum CodingKeys: String, CodingKey {
                case outstandingBalance = "outstanding_balance"
                case cycleExecutions = "cycle_executions"
                case lastPayment = "last_payment"
                case nextBillingTime = "next_billing_time"
                case finalPaymentTime = "final_payment_time"
                case failedPaymentsCount = "failed_payments_count"
            }
        }

        /// The subscription id (`I-…`).
        public var id: String
        /// The plan it follows (`P-…`): OpenCat maps it to a product id.
        public var planId: String?
        /// Its status.
        public var status: Status
        /// When the status last changed (RFC 3339).
        public var statusUpdateTime: String?
        /// When it started (RFC 3339).
        public var startTime: String?
        /// How many units (a decimal string, as PayPal sends it).
        public var quantity: String?
        /// The merchant's own id for it (OpenCat's purchaser binding when set).
        public var customId: String?
        /// Its billing state.
        public var billingInfo: BillingInfo?
        /// When it was created (RFC 3339).
        public var createTime: String?
        /// When it was last updated (RFC 3339).
        public var updateTime: String?

        enum CodingKeys: String, CodingKey {
            case id, status, quantity
            case planId = "plan_id"
            case statusUpdateTime = "status_update_time"
            case startTime = "start_time"
            case customId = "custom_id"
            case billingInfo = "billing_info"
            case createTime = "create_time"
            case updateTime = "update_time"
        }

        /// Whether the subscription is in a trial tenure (a `TRIAL` cycle with cycles left and no regular cycle
        /// billed yet).
        public var isInTrial: Bool {
            let cycles = billingInfo?.cycleExecutions ?? []
            let regularBilled = cycles.contains { $0.tenureType == "REGULAR" && ($0.cyclesCompleted ?? 0) > 0 }
            return !regularBilled
                && cycles.contains { $0.tenureType == "TRIAL" && ($0.cyclesRemaining ?? 0) > 0 }
        }
    }
}

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

            public static let approvalPending = Status(rawValue: "APPROVAL_PENDING")
            public static let approved = Status(rawValue: "APPROVED")
            public static let active = Status(rawValue: "ACTIVE")
            public static let suspended = Status(rawValue: "SUSPENDED")
            public static let cancelled = Status(rawValue: "CANCELLED")
            public static let expired = Status(rawValue: "EXPIRED")
        }

        /// One tenure of the plan (`TRIAL` or `REGULAR`) and how far billing has got in it.
        public struct CycleExecution: Sendable, Hashable, Codable {
            public var tenureType: String
            public var sequence: Int?
            public var cyclesCompleted: Int?
            public var cyclesRemaining: Int?
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
            public var amount: Money?
            public var time: String?
        }

        /// Billing state: the next charge, the last payment, failed payments.
        public struct BillingInfo: Sendable, Hashable, Codable {
            public var outstandingBalance: Money?
            public var cycleExecutions: [CycleExecution]?
            public var lastPayment: LastPayment?
            public var nextBillingTime: String?
            public var finalPaymentTime: String?
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

        public var id: String
        public var planId: String?
        public var status: Status
        public var statusUpdateTime: String?
        public var startTime: String?
        public var quantity: String?
        public var customId: String?
        public var billingInfo: BillingInfo?
        public var createTime: String?
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

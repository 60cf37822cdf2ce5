import Foundation

extension Stripe {
    /// A Stripe Billing subscription (the fields OpenCat reads), as `GET /v1/subscriptions/{id}` answers it with
    /// `expand[]=latest_invoice`.
    ///
    /// See <https://docs.stripe.com/api/subscriptions/object>. Times are seconds since 1970; amounts are minor units.
    /// The billing period is read from the subscription (API versions before 2025-03-31) or from its items (later).
    public struct Subscription: Sendable, Hashable, Decodable {
        /// The subscription's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            public static let incomplete = Status(rawValue: "incomplete")
            public static let incompleteExpired = Status(rawValue: "incomplete_expired")
            public static let trialing = Status(rawValue: "trialing")
            public static let active = Status(rawValue: "active")
            public static let pastDue = Status(rawValue: "past_due")
            public static let canceled = Status(rawValue: "canceled")
            public static let unpaid = Status(rawValue: "unpaid")
            public static let paused = Status(rawValue: "paused")
        }

        /// A price (the fields OpenCat reads).
        public struct Price: Sendable, Hashable, Codable {
            public var id: String
            /// The unit amount in minor units (nil for prices with decimal or tiered amounts).
            public var unitAmount: Int64?
            public var currency: String
            public var lookupKey: String?

            enum CodingKeys: String, CodingKey {
                case id, currency
                case unitAmount = "unit_amount"
                case lookupKey = "lookup_key"
            }
        }

        /// One subscription item: a price and a quantity.
        public struct Item: Sendable, Hashable, Codable {
            public var id: String
            public var price: Price
            public var quantity: Int64?
            public var currentPeriodStart: Int64?
            public var currentPeriodEnd: Int64?

            enum CodingKeys: String, CodingKey {
                case id, price, quantity
                case currentPeriodStart = "current_period_start"
                case currentPeriodEnd = "current_period_end"
            }
        }

        /// The latest invoice, expanded (the fields OpenCat reads).
        public struct Invoice: Sendable, Hashable, Codable {
            public var id: String
            public var status: String?
            public var amountPaid: Int64?
            public var amountDue: Int64?
            public var currency: String?
            public var attemptCount: Int64?
            public var nextPaymentAttempt: Int64?

            enum CodingKeys: String, CodingKey {
                case id, status, currency
                case amountPaid = "amount_paid"
                case amountDue = "amount_due"
                case attemptCount = "attempt_count"
                case nextPaymentAttempt = "next_payment_attempt"
            }
        }

        /// `pause_collection`: invoices are not collected while set.
        public struct PauseCollection: Sendable, Hashable, Codable {
            public var behavior: String
            public var resumesAt: Int64?

            enum CodingKeys: String, CodingKey {
                case behavior
                case resumesAt = "resumes_at"
            }
        }

        struct ItemList: Sendable, Hashable, Decodable { var data: [Item] }

        public var id: String
        public var status: Status
        public var livemode: Bool
        public var created: Int64
        public var startDate: Int64?
        public var currentPeriodStart: Int64?
        public var currentPeriodEnd: Int64?
        public var cancelAtPeriodEnd: Bool
        public var cancelAt: Int64?
        public var canceledAt: Int64?
        public var endedAt: Int64?
        public var trialStart: Int64?
        public var trialEnd: Int64?
        public var metadata: [String: String]
        public var customer: String?
        public var items: [Item]
        public var latestInvoice: Expandable<Invoice>?
        public var pauseCollection: PauseCollection?

        enum CodingKeys: String, CodingKey {
            case id, status, livemode, created, metadata, customer, items
            case startDate = "start_date"
            case currentPeriodStart = "current_period_start"
            case currentPeriodEnd = "current_period_end"
            case cancelAtPeriodEnd = "cancel_at_period_end"
            case cancelAt = "cancel_at"
            case canceledAt = "canceled_at"
            case endedAt = "ended_at"
            case trialStart = "trial_start"
            case trialEnd = "trial_end"
            case latestInvoice = "latest_invoice"
            case pauseCollection = "pause_collection"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            status = try container.decode(Status.self, forKey: .status)
            livemode = try container.decode(Bool.self, forKey: .livemode)
            created = try container.decode(Int64.self, forKey: .created)
            startDate = try container.decodeIfPresent(Int64.self, forKey: .startDate)
            currentPeriodStart = try container.decodeIfPresent(Int64.self, forKey: .currentPeriodStart)
            currentPeriodEnd = try container.decodeIfPresent(Int64.self, forKey: .currentPeriodEnd)
            cancelAtPeriodEnd = try container.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
            cancelAt = try container.decodeIfPresent(Int64.self, forKey: .cancelAt)
            canceledAt = try container.decodeIfPresent(Int64.self, forKey: .canceledAt)
            endedAt = try container.decodeIfPresent(Int64.self, forKey: .endedAt)
            trialStart = try container.decodeIfPresent(Int64.self, forKey: .trialStart)
            trialEnd = try container.decodeIfPresent(Int64.self, forKey: .trialEnd)
            metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
            customer = try? container.decodeIfPresent(String.self, forKey: .customer)
            items = try container.decodeIfPresent(ItemList.self, forKey: .items)?.data ?? []
            latestInvoice = try container.decodeIfPresent(Expandable<Invoice>.self, forKey: .latestInvoice)
            pauseCollection = try container.decodeIfPresent(PauseCollection.self, forKey: .pauseCollection)
        }

        /// The end of the paid period: the subscription's, else the latest of its items'.
        public var periodEnd: Int64? { currentPeriodEnd ?? items.compactMap(\.currentPeriodEnd).max() }

        /// Whether it renews at the end of the period.
        public var willRenew: Bool {
            !cancelAtPeriodEnd && cancelAt == nil && canceledAt == nil && pauseCollection == nil
        }
    }
}

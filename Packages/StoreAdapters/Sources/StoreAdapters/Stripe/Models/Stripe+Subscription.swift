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

            /// The first invoice needs payment or an action (23 hours to complete it).
            public static let incomplete = Status(rawValue: "incomplete")
            /// The first invoice was never paid: the subscription ended without starting.
            public static let incompleteExpired = Status(rawValue: "incomplete_expired")
            /// In a free trial.
            public static let trialing = Status(rawValue: "trialing")
            /// Paid and running.
            public static let active = Status(rawValue: "active")
            /// The latest invoice's payment failed; Stripe is retrying it.
            public static let pastDue = Status(rawValue: "past_due")
            /// Cancelled: it has ended and cannot be revived.
            public static let canceled = Status(rawValue: "canceled")
            /// Retries are over and the latest invoice is still open; no further invoices are paid.
            public static let unpaid = Status(rawValue: "unpaid")
            /// A trial ended without a payment method: paused until resumed.
            public static let paused = Status(rawValue: "paused")
        }

        /// A price (the fields OpenCat reads).
        public struct Price: Sendable, Hashable, Codable {
            /// The price id (`price_…`).
            public var id: String
            /// The unit amount in minor units (nil for prices with decimal or tiered amounts).
            public var unitAmount: Int64?
            /// The currency, lowercase ISO 4217 (`usd`).
            public var currency: String
            /// The price's lookup key: the product id OpenCat reports when the metadata names none.
            public var lookupKey: String?

            enum CodingKeys: String, CodingKey {
                case id, currency
                case unitAmount = "unit_amount"
                case lookupKey = "lookup_key"
            }
        }

        /// One subscription item: a price and a quantity.
        public struct Item: Sendable, Hashable, Codable {
            /// The item id (`si_…`).
            public var id: String
            /// What the item is billed at.
            public var price: Price
            /// How many units (absent means 1).
            public var quantity: Int64?
            /// The start of the item's current period (API versions from 2025-03-31).
            public var currentPeriodStart: Int64?
            /// The end of the item's current period (API versions from 2025-03-31).
            public var currentPeriodEnd: Int64?

            enum CodingKeys: String, CodingKey {
                case id, price, quantity
                case currentPeriodStart = "current_period_start"
                case currentPeriodEnd = "current_period_end"
            }
        }

        /// An invoice: a subscription's latest invoice (expanded), or one of a customer's
        /// (``StripeAdapter/invoices(customer:limit:startingAfter:)``); the fields OpenCat reads.
        public struct Invoice: Sendable, Hashable, Codable {
            /// The invoice id (`in_…`).
            public var id: String
            /// `draft`, `open`, `paid`, `uncollectible` or `void`.
            public var status: String?
            /// What was paid, in minor units.
            public var amountPaid: Int64?
            /// What the invoice asks for, in minor units.
            public var amountDue: Int64?
            /// The currency, lowercase ISO 4217.
            public var currency: String?
            /// How many payment attempts were made.
            public var attemptCount: Int64?
            /// When Stripe tries to collect it next (nil when it will not).
            public var nextPaymentAttempt: Int64?
            /// When Stripe created it (Unix seconds).
            public var created: Int64?
            /// The subscription it bills, when it bills one: `subscription` (an id, or the object when expanded) in
            /// API versions before 2025-03-31, `parent.subscription_details.subscription` from then on.
            public var subscription: String?
            /// Why it was created (`subscription_create`, `subscription_cycle`, `manual`, …).
            public var billingReason: String?

            enum CodingKeys: String, CodingKey {
                case id, status, currency, created, subscription
                case billingReason = "billing_reason"
                case amountPaid = "amount_paid"
                case amountDue = "amount_due"
                case attemptCount = "attempt_count"
                case nextPaymentAttempt = "next_payment_attempt"
                case parent
            }

            /// `parent` (API versions from 2025-03-31): what the invoice bills, a subscription among them.
            private struct Parent: Decodable {
                struct SubscriptionDetails: Decodable { var subscription: String? }
                var subscriptionDetails: SubscriptionDetails?

                enum CodingKeys: String, CodingKey { case subscriptionDetails = "subscription_details" }
            }

            /// `subscription` as an id, or the expanded object's id.
            private struct SubscriptionReference: Decodable {
                var id: String

                enum CodingKeys: String, CodingKey { case id }

                init(from decoder: any Decoder) throws {
                    if let id = try? decoder.singleValueContainer().decode(String.self) {
                        self.id = id
                    } else {
                        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
                    }
                }
            }

            /// An invoice read from either API shape.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                status = try container.decodeIfPresent(String.self, forKey: .status)
                amountPaid = try container.decodeIfPresent(Int64.self, forKey: .amountPaid)
                amountDue = try container.decodeIfPresent(Int64.self, forKey: .amountDue)
                currency = try container.decodeIfPresent(String.self, forKey: .currency)
                attemptCount = try container.decodeIfPresent(Int64.self, forKey: .attemptCount)
                nextPaymentAttempt = try container.decodeIfPresent(Int64.self, forKey: .nextPaymentAttempt)
                created = try container.decodeIfPresent(Int64.self, forKey: .created)
                billingReason = try container.decodeIfPresent(String.self, forKey: .billingReason)
                subscription =
                    try container.decodeIfPresent(SubscriptionReference.self, forKey: .subscription)?.id
                    ?? container.decodeIfPresent(Parent.self, forKey: .parent)?.subscriptionDetails?.subscription
            }

            /// Writes the fields read, `subscription` as an id.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encodeIfPresent(status, forKey: .status)
                try container.encodeIfPresent(amountPaid, forKey: .amountPaid)
                try container.encodeIfPresent(amountDue, forKey: .amountDue)
                try container.encodeIfPresent(currency, forKey: .currency)
                try container.encodeIfPresent(attemptCount, forKey: .attemptCount)
                try container.encodeIfPresent(nextPaymentAttempt, forKey: .nextPaymentAttempt)
                try container.encodeIfPresent(created, forKey: .created)
                try container.encodeIfPresent(subscription, forKey: .subscription)
                try container.encodeIfPresent(billingReason, forKey: .billingReason)
            }
        }

        /// `pause_collection`: invoices are not collected while set.
        public struct PauseCollection: Sendable, Hashable, Codable {
            /// What happens to invoices while paused: `keep_as_draft`, `mark_uncollectible` or `void`.
            public var behavior: String
            /// When collection resumes by itself (nil: only when cleared).
            public var resumesAt: Int64?

            enum CodingKeys: String, CodingKey {
                case behavior
                case resumesAt = "resumes_at"
            }
        }

        struct ItemList: Sendable, Hashable, Decodable { var data: [Item] }

        /// The subscription id (`sub_…`).
        public var id: String
        /// Its status.
        public var status: Status
        /// Live (`true`) or test mode.
        public var livemode: Bool
        /// When it was created.
        public var created: Int64
        /// When it started (may precede `created` for a backdated subscription).
        public var startDate: Int64?
        /// The start of the current period (API versions before 2025-03-31; later, the items').
        public var currentPeriodStart: Int64?
        /// The end of the current period (API versions before 2025-03-31; later, the items').
        public var currentPeriodEnd: Int64?
        /// Whether it ends at the end of the current period.
        public var cancelAtPeriodEnd: Bool
        /// When it is set to end, if it is.
        public var cancelAt: Int64?
        /// When it was cancelled (or the cancellation was requested).
        public var canceledAt: Int64?
        /// When it ended, if it has.
        public var endedAt: Int64?
        /// When its trial started, if it had one.
        public var trialStart: Int64?
        /// When its trial ends or ended.
        public var trialEnd: Int64?
        /// Its metadata (the product id and purchaser keys OpenCat reads).
        public var metadata: [String: String]
        /// The customer id (`cus_…`).
        public var customer: String?
        /// Its items (a price and a quantity each).
        public var items: [Item]
        /// Its latest invoice: an id, or the invoice when expanded.
        public var latestInvoice: Expandable<Invoice>?
        /// Set while payment collection is paused.
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

extension PayPal {
    /// One payment of a subscription, as `GET /v1/billing/subscriptions/{id}/transactions` lists it.
    ///
    /// See <https://developer.paypal.com/docs/api/subscriptions/v1/#subscriptions_transactions>. Amounts are
    /// PayPal's exact decimal strings; `time` is RFC 3339.
    public struct SubscriptionTransaction: Sendable, Hashable, Codable {
        /// `amount_with_breakdown`: what the payer paid, PayPal's fee and what the merchant received.
        public struct AmountWithBreakdown: Sendable, Hashable, Codable {
            /// What the payer paid.
            public var grossAmount: Money?
            /// PayPal's fee.
            public var feeAmount: Money?
            /// What the merchant received.
            public var netAmount: Money?

            /// Creates a breakdown.
            public init(grossAmount: Money? = nil, feeAmount: Money? = nil, netAmount: Money? = nil) {
                self.grossAmount = grossAmount
                self.feeAmount = feeAmount
                self.netAmount = netAmount
            }

            private enum CodingKeys: String, CodingKey {
                case grossAmount = "gross_amount"
                case feeAmount = "fee_amount"
                case netAmount = "net_amount"
            }
        }

        /// The PayPal transaction id (a sale id).
        public var id: String
        /// The payment's status (`COMPLETED`, `DECLINED`, `PARTIALLY_REFUNDED`, `PENDING`, `REFUNDED`).
        public var status: Capture.Status?
        /// The amounts.
        public var amountWithBreakdown: AmountWithBreakdown?
        /// When PayPal processed it (RFC 3339).
        public var time: String?

        /// Creates a transaction.
        public init(
            id: String,
            status: Capture.Status? = nil,
            amountWithBreakdown: AmountWithBreakdown? = nil,
            time: String? = nil
        ) {
            self.id = id
            self.status = status
            self.amountWithBreakdown = amountWithBreakdown
            self.time = time
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, time
            case amountWithBreakdown = "amount_with_breakdown"
        }
    }

    /// The answer of `GET /v1/billing/subscriptions/{id}/transactions`: every payment in the time window asked for
    /// (PayPal does not page it).
    public struct SubscriptionTransactionList: Sendable, Hashable, Codable {
        /// The payments.
        public var transactions: [SubscriptionTransaction]?
        /// How many there are.
        public var totalItems: Int?
        /// How many pages PayPal counts.
        public var totalPages: Int?

        /// Creates a list.
        public init(transactions: [SubscriptionTransaction]? = nil, totalItems: Int? = nil, totalPages: Int? = nil) {
            self.transactions = transactions
            self.totalItems = totalItems
            self.totalPages = totalPages
        }

        private enum CodingKeys: String, CodingKey {
            case transactions
            case totalItems = "total_items"
            case totalPages = "total_pages"
        }
    }
}

extension PayPal {
    /// A captured payment of an order's purchase unit.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-capture>.
    public struct Capture: Sendable, Hashable, Codable {
        /// A capture's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// The funds were captured.
            public static let completed = Status(rawValue: "COMPLETED")
            /// The capture is pending (see `status_details.reason`, for example `ECHECK` or `PENDING_REVIEW`).
            public static let pending = Status(rawValue: "PENDING")
            /// The capture was declined.
            public static let declined = Status(rawValue: "DECLINED")
            /// The capture failed.
            public static let failed = Status(rawValue: "FAILED")
            /// The capture was fully refunded.
            public static let refunded = Status(rawValue: "REFUNDED")
            /// Part of the capture was refunded.
            public static let partiallyRefunded = Status(rawValue: "PARTIALLY_REFUNDED")
        }

        /// Why a capture is pending or declined.
        public struct StatusDetails: Sendable, Hashable, Codable {
            /// `ECHECK`, `PENDING_REVIEW`, `CHARGEBACK`, … (raw value).
            public var reason: String?
            /// Creates status details.
            public init(reason: String? = nil) { self.reason = reason }
        }

        /// Gross amount, PayPal fee and net amount of a capture.
        public struct SellerReceivableBreakdown: Sendable, Hashable, Codable {
            /// What the buyer paid.
            public var grossAmount: Money?
            /// PayPal's fee.
            public var paypalFee: Money?
            /// What the merchant receives.
            public var netAmount: Money?

            /// Creates a breakdown.
            public init(grossAmount: Money? = nil, paypalFee: Money? = nil, netAmount: Money? = nil) {
                self.grossAmount = grossAmount
                self.paypalFee = paypalFee
                self.netAmount = netAmount
            }

            private enum CodingKeys: String, CodingKey {
                case grossAmount = "gross_amount"
                case paypalFee = "paypal_fee"
                case netAmount = "net_amount"
            }
        }

        /// The capture id (the PayPal transaction id).
        public var id: String
        /// The status.
        public var status: Status
        /// Why the status is what it is, if PayPal says.
        public var statusDetails: StatusDetails?
        /// The amount captured.
        public var amount: Money?
        /// The integrator's id copied from the purchase unit.
        public var customId: String?
        /// The integrator's invoice id.
        public var invoiceId: String?
        /// Whether no further capture is possible.
        public var finalCapture: Bool?
        /// Gross, fee and net.
        public var sellerReceivableBreakdown: SellerReceivableBreakdown?
        /// When it was captured (RFC 3339).
        public var createTime: String?
        /// When it last changed (RFC 3339).
        public var updateTime: String?

        /// Creates a capture.
        public init(
            id: String,
            status: Status,
            statusDetails: StatusDetails? = nil,
            amount: Money? = nil,
            customId: String? = nil,
            invoiceId: String? = nil,
            finalCapture: Bool? = nil,
            sellerReceivableBreakdown: SellerReceivableBreakdown? = nil,
            createTime: String? = nil,
            updateTime: String? = nil
        ) {
            self.id = id
            self.status = status
            self.statusDetails = statusDetails
            self.amount = amount
            self.customId = customId
            self.invoiceId = invoiceId
            self.finalCapture = finalCapture
            self.sellerReceivableBreakdown = sellerReceivableBreakdown
            self.createTime = createTime
            self.updateTime = updateTime
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, amount
            case statusDetails = "status_details"
            case customId = "custom_id"
            case invoiceId = "invoice_id"
            case finalCapture = "final_capture"
            case sellerReceivableBreakdown = "seller_receivable_breakdown"
            case createTime = "create_time"
            case updateTime = "update_time"
        }
    }
}

extension PayPal {
    /// A refund of a captured payment, as listed in a purchase unit's `payments.refunds`.
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#definition-refund>.
    public struct Refund: Sendable, Hashable, Codable {
        /// A refund's status (raw value; unknown values survive).
        public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// The refund was paid out.
            public static let completed = Status(rawValue: "COMPLETED")
            /// The refund is pending.
            public static let pending = Status(rawValue: "PENDING")
            /// The refund failed.
            public static let failed = Status(rawValue: "FAILED")
            /// The refund was cancelled.
            public static let cancelled = Status(rawValue: "CANCELLED")
        }

        /// The refund id.
        public var id: String
        /// The status.
        public var status: Status?
        /// The amount refunded.
        public var amount: Money?
        /// When it was created (RFC 3339).
        public var createTime: String?
        /// When it last changed (RFC 3339; Show refund details).
        public var updateTime: String?
        /// Why it is pending or failed (`status_details.reason`, e.g. `ECHECK`).
        public var statusReason: String?
        /// The note the merchant gave the payer.
        public var noteToPayer: String?

        /// Creates a refund.
        public init(id: String, status: Status? = nil, amount: Money? = nil, createTime: String? = nil) {
            self.id = id
            self.status = status
            self.amount = amount
            self.createTime = createTime
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, amount
            case createTime = "create_time"
            case updateTime = "update_time"
            case statusDetails = "status_details"
            case noteToPayer = "note_to_payer"
        }

        private struct StatusDetails: Codable {
            var reason: String?
        }

        /// Decodes PayPal's JSON (`status_details.reason` read into ``statusReason``).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            status = try container.decodeIfPresent(Status.self, forKey: .status)
            amount = try container.decodeIfPresent(Money.self, forKey: .amount)
            createTime = try container.decodeIfPresent(String.self, forKey: .createTime)
            updateTime = try container.decodeIfPresent(String.self, forKey: .updateTime)
            statusReason = try container.decodeIfPresent(StatusDetails.self, forKey: .statusDetails)?.reason
            noteToPayer = try container.decodeIfPresent(String.self, forKey: .noteToPayer)
        }

        /// Encodes PayPal's JSON.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(amount, forKey: .amount)
            try container.encodeIfPresent(createTime, forKey: .createTime)
            try container.encodeIfPresent(updateTime, forKey: .updateTime)
            try container.encodeIfPresent(statusReason.map { StatusDetails(reason: $0) }, forKey: .statusDetails)
            try container.encodeIfPresent(noteToPayer, forKey: .noteToPayer)
        }
    }
}

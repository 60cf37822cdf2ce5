extension PayPal {
    /// A captured payment as `GET /v2/payments/captures/{capture_id}` answers it (the fields OpenCat reads): its
    /// status, amount and the order it was captured for.
    ///
    /// See <https://developer.paypal.com/docs/api/payments/v2/#captures_get>.
    public struct CapturedPayment: Sendable, Hashable, Codable {
        /// The ids of the resources a capture belongs to (`supplementary_data.related_ids`).
        public struct RelatedIds: Sendable, Hashable, Codable {
            /// The order the capture was made for.
            public var orderId: String?
            /// The authorization it captured, if the order's intent was `AUTHORIZE`.
            public var authorizationId: String?

            /// Creates related ids.
            public init(orderId: String? = nil, authorizationId: String? = nil) {
                self.orderId = orderId
                self.authorizationId = authorizationId
            }

            private enum CodingKeys: String, CodingKey {
                case orderId = "order_id"
                case authorizationId = "authorization_id"
            }
        }

        /// `supplementary_data`: what PayPal adds about related resources.
        public struct SupplementaryData: Sendable, Hashable, Codable {
            /// The related ids.
            public var relatedIds: RelatedIds?

            /// Creates supplementary data.
            public init(relatedIds: RelatedIds? = nil) { self.relatedIds = relatedIds }

            private enum CodingKeys: String, CodingKey {
                case relatedIds = "related_ids"
            }
        }

        /// The capture id.
        public var id: String
        /// The status (`COMPLETED`, `PARTIALLY_REFUNDED`, `REFUNDED`, …).
        public var status: Capture.Status?
        /// The amount captured.
        public var amount: Money?
        /// The related resources.
        public var supplementaryData: SupplementaryData?

        /// Creates a captured payment.
        public init(
            id: String,
            status: Capture.Status? = nil,
            amount: Money? = nil,
            supplementaryData: SupplementaryData? = nil
        ) {
            self.id = id
            self.status = status
            self.amount = amount
            self.supplementaryData = supplementaryData
        }

        /// The order the capture belongs to, if PayPal says.
        public var orderId: String? { supplementaryData?.relatedIds?.orderId }

        private enum CodingKeys: String, CodingKey {
            case id, status, amount
            case supplementaryData = "supplementary_data"
        }
    }
}

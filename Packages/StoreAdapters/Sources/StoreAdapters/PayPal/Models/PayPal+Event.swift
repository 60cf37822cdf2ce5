public import Foundation

extension PayPal {
    /// A PayPal webhook event notification, as delivered and checked by ``PayPalWebhookVerifier``.
    ///
    /// See <https://developer.paypal.com/api/rest/webhooks/event-names/> and the `event` schema of the Webhooks v1
    /// API. The `resource` is kept exactly as received (``resource``); for `checkout-order` and `capture`
    /// resources it is also decoded.
    public struct Event: Sendable, Hashable {
        /// The event id (`WH-…`).
        public var id: String
        /// The event type, such as `CHECKOUT.ORDER.APPROVED` or `PAYMENT.CAPTURE.COMPLETED`.
        public var eventType: String
        /// The resource type, such as `checkout-order` or `capture`.
        public var resourceType: String?
        /// The event version.
        public var eventVersion: String?
        /// The resource version.
        public var resourceVersion: String?
        /// A summary for humans.
        public var summary: String?
        /// When it was created (RFC 3339).
        public var createTime: String?
        /// The resource, exactly as received (JSON bytes).
        public var resource: Data?
        /// ``resource`` read as an order, for `checkout-order` resources (`nil` if it cannot be read as one).
        public var order: Order?
        /// ``resource`` read as a capture, for `capture` resources (`nil` if it cannot be read as one).
        public var capture: Capture?
        /// ``resource`` read as a subscription, for `BILLING.SUBSCRIPTION.*` events.
        public var subscription: Subscription?
        /// For a `sale` resource (`PAYMENT.SALE.*`): the subscription it paid (`billing_agreement_id`), if any.
        public var saleSubscriptionId: String?
        /// For a `capture` or `refund` resource (`PAYMENT.CAPTURE.*`): the capture it is, or the capture a refund
        /// took money back from (`supplementary_data.related_ids.capture_id`, else its `up` link to
        /// `/v2/payments/captures/{id}`).
        public var captureId: String?
        /// For a `capture` or `refund` resource: the order it belongs to, when the event says
        /// (`supplementary_data.related_ids.order_id`).
        public var relatedOrderId: String?

        /// The largest event read (PayPal's events are kilobytes).
        public static let maximumPayloadBytes = 4 * 1024 * 1024

        /// Reads an event from its JSON payload.
        /// - Parameter payload: the request body, byte for byte.
        /// - Throws: `DecodingError` if it is not an event.
        public init(payload: Data) throws {
            guard payload.count <= Self.maximumPayloadBytes else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: [],
                        debugDescription: "the event is larger than \(Self.maximumPayloadBytes) bytes"
                    )
                )
            }
            let envelope = try JSONDecoder().decode(Envelope.self, from: payload)
            self.id = envelope.id
            self.eventType = envelope.eventType
            self.resourceType = envelope.resourceType
            self.eventVersion = envelope.eventVersion
            self.resourceVersion = envelope.resourceVersion
            self.summary = envelope.summary
            self.createTime = envelope.createTime
            self.resource = JSONMemberSlicer.value(at: ["resource"], in: payload)
            if let resource {
                switch envelope.resourceType {
                case "checkout-order": self.order = try? JSONDecoder().decode(Order.self, from: resource)
                case "subscription" where envelope.eventType.hasPrefix("BILLING.SUBSCRIPTION."):
                    self.subscription = try? JSONDecoder().decode(Subscription.self, from: resource)
                case "capture", "refund":
                    let reference = try? JSONDecoder().decode(PaymentReference.self, from: resource)
                    self.captureId = reference?.captureId(resourceType: envelope.resourceType)
                    self.relatedOrderId = reference?.supplementary_data?.related_ids?.order_id
                    if envelope.resourceType == "capture" {
                        self.capture = try? JSONDecoder().decode(Capture.self, from: resource)
                    }
                case "sale":
                    struct Sale: Decodable { var billing_agreement_id: String? }
                    self.saleSubscriptionId =
                        (try? JSONDecoder().decode(Sale.self, from: resource))?.billing_agreement_id
                default: break
                }
            }
        }

        /// What a capture or refund resource says of the payment it belongs to.
        private struct PaymentReference: Decodable {
            struct Related: Decodable {
                var order_id: String?
                var capture_id: String?
            }
            struct Supplementary: Decodable { var related_ids: Related? }
            struct Link: Decodable {
                var href: String
                var rel: String
            }
            var id: String?
            var supplementary_data: Supplementary?
            var links: [Link]?

            func captureId(resourceType: String?) -> String? {
                if resourceType == "capture" { return id }
                if let id = supplementary_data?.related_ids?.capture_id { return id }
                guard let up = links?.first(where: { $0.rel == "up" }), let url = URL(string: up.href) else {
                    return nil
                }
                let parts = url.path.split(separator: "/")
                guard parts.count >= 2, parts[parts.count - 2] == "captures" else { return nil }
                return String(parts[parts.count - 1])
            }
        }

        private struct Envelope: Decodable {
            var id: String
            var eventType: String
            var resourceType: String?
            var eventVersion: String?
            var resourceVersion: String?
            var summary: String?
            var createTime: String?

            enum CodingKeys: String, CodingKey {
                case id, summary
                case eventType = "event_type"
                case resourceType = "resource_type"
                case eventVersion = "event_version"
                case resourceVersion = "resource_version"
                case createTime = "create_time"
            }
        }
    }
}

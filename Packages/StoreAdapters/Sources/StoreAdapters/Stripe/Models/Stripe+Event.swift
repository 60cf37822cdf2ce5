public import Foundation

extension Stripe {
    /// A Stripe webhook event, as delivered to an endpoint and checked by ``StripeWebhookVerifier``.
    ///
    /// See <https://docs.stripe.com/api/events/object>. The event's `data.object` is kept as the exact bytes that
    /// were signed (``EventData/object``); for `payment_intent.*` and `charge.*` events it is also decoded.
    public struct Event: Sendable, Hashable {
        /// An event type such as `payment_intent.succeeded` (raw value; unknown values survive).
        ///
        /// See <https://docs.stripe.com/api/events/types>.
        public struct EventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String
            /// Wraps a wire value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The wire value.
            public var description: String { rawValue }

            /// A PaymentIntent succeeded.
            public static let paymentIntentSucceeded = EventType(rawValue: "payment_intent.succeeded")
            /// A PaymentIntent started processing.
            public static let paymentIntentProcessing = EventType(rawValue: "payment_intent.processing")
            /// A payment attempt failed.
            public static let paymentIntentPaymentFailed = EventType(rawValue: "payment_intent.payment_failed")
            /// A PaymentIntent was cancelled.
            public static let paymentIntentCanceled = EventType(rawValue: "payment_intent.canceled")
            /// A PaymentIntent needs customer action.
            public static let paymentIntentRequiresAction = EventType(rawValue: "payment_intent.requires_action")
            /// A PaymentIntent's funds were authorized and wait for capture.
            public static let paymentIntentAmountCapturableUpdated = EventType(
                rawValue: "payment_intent.amount_capturable_updated"
            )
            /// A charge was refunded (fully or partly).
            public static let chargeRefunded = EventType(rawValue: "charge.refunded")
            /// A charge was disputed.
            public static let chargeDisputeCreated = EventType(rawValue: "charge.dispute.created")
            /// A subscription was created.
            public static let subscriptionCreated = EventType(rawValue: "customer.subscription.created")
            /// A subscription changed (status, period, cancellation, pause).
            public static let subscriptionUpdated = EventType(rawValue: "customer.subscription.updated")
            /// A subscription ended.
            public static let subscriptionDeleted = EventType(rawValue: "customer.subscription.deleted")
            /// A subscription was paused.
            public static let subscriptionPaused = EventType(rawValue: "customer.subscription.paused")
            /// A paused subscription resumed.
            public static let subscriptionResumed = EventType(rawValue: "customer.subscription.resumed")
            /// An invoice was paid (a renewal went through).
            public static let invoicePaid = EventType(rawValue: "invoice.paid")
            /// An invoice payment failed (a renewal is in retry).
            public static let invoicePaymentFailed = EventType(rawValue: "invoice.payment_failed")

            /// The part before the first dot (`payment_intent`, `charge`, …).
            public var resource: String { String(rawValue.prefix { $0 != "." }) }
        }

        /// The event's `data`.
        public struct EventData: Sendable, Hashable {
            /// The object the event is about, exactly as received (JSON bytes).
            public var object: Data
            /// For `*.updated` events: the changed fields' previous values, exactly as received.
            public var previousAttributes: Data?

            /// Creates event data.
            public init(object: Data, previousAttributes: Data? = nil) {
                self.object = object
                self.previousAttributes = previousAttributes
            }
        }

        /// The event id (`evt_…`).
        public var id: String
        /// The event type.
        public var type: EventType
        /// Creation time, in seconds since 1970.
        public var created: Int64
        /// `true` for live-mode events.
        public var livemode: Bool
        /// The API version the event was rendered with, if known.
        public var apiVersion: String?
        /// The event's data.
        public var data: EventData
        /// `data.object` read as a PaymentIntent, for `payment_intent.*` events (`nil` if it cannot be read as one).
        public var paymentIntent: PaymentIntent?
        /// `data.object` read as a Charge, for `charge.*` events other than disputes (`nil` if it cannot be read).
        public var charge: Charge?
        /// `data.object` read as a subscription, for `customer.subscription.*` events: a snapshot from the event's
        /// time, possibly older than a later-delivered event's (``StripeAdapter/purchase(for:)`` reads the
        /// subscription again from Stripe instead of applying it).
        public var subscription: Subscription?
        /// `data.object` read as an invoice, for `invoice.*` events (`invoice.paid`, `invoice.payment_failed`).
        public var invoice: Subscription.Invoice?
        /// The subscription an `invoice.*` event's invoice bills, if any.
        public var invoiceSubscription: String?

        /// ``created`` as a date.
        public var createdDate: Date { Date(timeIntervalSince1970: TimeInterval(created)) }

        /// Reads an event from its JSON payload.
        /// - Parameter payload: the request body, byte for byte.
        /// - Throws: `DecodingError` if it is not an event.
        public init(payload: Data) throws {
            let envelope = try JSONDecoder().decode(Envelope.self, from: payload)
            guard let object = JSONMemberSlicer.value(at: ["data", "object"], in: payload) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "the event has no data.object")
                )
            }
            self.id = envelope.id
            self.type = envelope.type
            self.created = envelope.created
            self.livemode = envelope.livemode
            self.apiVersion = envelope.apiVersion
            self.data = EventData(
                object: object,
                previousAttributes: JSONMemberSlicer.value(at: ["data", "previous_attributes"], in: payload)
            )
            switch envelope.type.resource {
            case "payment_intent":
                self.paymentIntent = try? JSONDecoder().decode(PaymentIntent.self, from: object)
            case "charge" where !envelope.type.rawValue.hasPrefix("charge.dispute."):
                self.charge = try? JSONDecoder().decode(Charge.self, from: object)
            case "customer" where envelope.type.rawValue.hasPrefix("customer.subscription."):
                self.subscription = try? JSONDecoder().decode(Subscription.self, from: object)
            case "invoice":
                self.invoice = try? JSONDecoder().decode(Subscription.Invoice.self, from: object)
                self.invoiceSubscription = try? JSONDecoder().decode(InvoiceSubscriptionReference.self, from: object)
                    .subscriptionID
            default:
                break
            }
        }

        /// An invoice's `subscription` (an id, or an expanded object whose id is read), or, from API version
        /// 2025-03-31, `parent.subscription_details.subscription`.
        struct InvoiceSubscriptionReference: Decodable {
            var subscriptionID: String?

            struct Parent: Decodable {
                struct Details: Decodable { var subscription: String? }
                var subscription_details: Details?
            }
            struct Object: Decodable { var id: String }

            enum CodingKeys: String, CodingKey { case subscription, parent }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                subscriptionID =
                    (try? container.decodeIfPresent(String.self, forKey: .subscription))
                    ?? (try? container.decodeIfPresent(Object.self, forKey: .subscription))?.id
                    ?? (try? container.decodeIfPresent(Parent.self, forKey: .parent))?.subscription_details?
                    .subscription
            }
        }

        /// The fields read by the decoder (the raw `data` is sliced from the payload).
        private struct Envelope: Decodable {
            struct EnvelopeData: Decodable {
                struct ObjectShape: Decodable {}
                var object: ObjectShape
            }
            var id: String
            var type: EventType
            var created: Int64
            var livemode: Bool
            var apiVersion: String?
            var data: EnvelopeData

            enum CodingKeys: String, CodingKey {
                case id, type, created, livemode, data
                case apiVersion = "api_version"
            }
        }
    }
}

public import Foundation
public import StoreAdapters

/// Turns a Stripe webhook delivery into a ``PurchaseDecision``, once ``StripeWebhookVerifier`` has checked that Stripe
/// sent it: the `Stripe-Signature` header's HMAC-SHA256 over `"<t>.<raw body>"` under the endpoint's signing secret,
/// and `t` within the tolerance (a replay is refused).
///
/// ```swift
/// let webhooks = StripeWebhookHandler(
///     verifier: try StripeWebhookVerifier(secret: Secret(endpointSigningSecret)),
///     configuration: stripeConfiguration  // the StripeAdapter's: its metadata keys and app id
/// )
/// // POST /webhooks/stripe, with the body exactly as received:
/// do {
///     let outcome = try webhooks.handle(payload: body, signatureHeader: headers["Stripe-Signature"])
///     if case .paymentIntent(let id, let product?, let decision) = outcome { record(id, product, decision) }
///     return 200  // handled or ignored: Stripe stops sending it
/// } catch {
///     return 400  // not from Stripe, altered, or too old
/// }
/// ```
public struct StripeWebhookHandler: Sendable {
    /// What a genuine delivery means.
    public enum Outcome: Sendable, Hashable {
        /// A `payment_intent.*` event: the PaymentIntent's id, the product its metadata names (`nil` when it names
        /// none), and what the PaymentIntent now means for that product.
        case paymentIntent(id: String, productId: String?, decision: PurchaseDecision)
        /// An event this handler does not act on; answer 200 so that Stripe stops sending it.
        case ignored(Stripe.Event.EventType)
        /// A genuine `payment_intent.*` event whose object cannot be read (the event's id): ask Stripe's API instead,
        /// with ``StripeAdapter`` and the PaymentIntent's id.
        case unreadable(eventId: String)

        /// The decision of a ``paymentIntent(id:productId:decision:)`` outcome; `nil` for the others.
        public var decision: PurchaseDecision? {
            if case .paymentIntent(_, _, let decision) = self { decision } else { nil }
        }
    }

    /// Checks the signature and the timestamp of each delivery.
    public let verifier: StripeWebhookVerifier
    /// The Stripe adapter's configuration: which `metadata` keys name the product, the purchaser and the app.
    public let configuration: StripeAdapter.Configuration

    /// Creates a handler.
    /// - Parameters:
    ///   - verifier: see ``verifier``.
    ///   - configuration: see ``configuration``.
    public init(verifier: StripeWebhookVerifier, configuration: StripeAdapter.Configuration) {
        self.verifier = verifier
        self.configuration = configuration
    }

    /// Verifies a delivery at the verifier's clock's current date and reads what it means.
    /// - Parameters:
    ///   - payload: the request body, byte for byte (any re-serialization breaks the signature).
    ///   - signatureHeader: the `Stripe-Signature` header's value (`nil` if absent).
    /// - Returns: what the event means.
    /// - Throws: ``StripeWebhookError`` when the delivery is not genuine, is too old, or is not a Stripe event.
    public func handle(payload: Data, signatureHeader: String?) throws(StripeWebhookError) -> Outcome {
        outcome(for: try verifier.verify(payload: payload, signatureHeader: signatureHeader))
    }

    /// Verifies a delivery at a given date and reads what it means.
    /// - Parameters:
    ///   - payload: the request body, byte for byte.
    ///   - signatureHeader: the `Stripe-Signature` header's value (`nil` if absent).
    ///   - now: the date the signature's timestamp is checked against.
    /// - Returns: what the event means.
    /// - Throws: ``StripeWebhookError`` when the delivery is not genuine, is too old, or is not a Stripe event.
    public func handle(payload: Data, signatureHeader: String?, now: Date) throws(StripeWebhookError) -> Outcome {
        outcome(for: try verifier.verify(payload: payload, signatureHeader: signatureHeader, now: now))
    }

    /// What a verified event means: a PaymentIntent's event is mapped as ``StripeAdapter`` maps the PaymentIntent
    /// (`succeeded` unlocks, `processing` is pending, a failed or cancelled one is not paid); other events are
    /// ignored.
    /// - Parameter event: an event whose delivery was verified.
    /// - Returns: what the event means.
    public func outcome(for event: Stripe.Event) -> Outcome {
        guard event.type.resource == "payment_intent" else { return .ignored(event.type) }
        guard let intent = event.paymentIntent else { return .unreadable(eventId: event.id) }
        let productId = intent.metadata[configuration.productMetadataKey]
        // One Stripe account selling for several apps: another app's payment unlocks nothing here.
        if let key = configuration.appMetadataKey, let appId = configuration.appId, intent.metadata[key] != appId {
            return .paymentIntent(id: intent.id, productId: productId, decision: .refused(.otherApplication))
        }
        let decision: PurchaseDecision
        do {
            decision = PurchaseDecision(
                try StripeAdapter.purchase(
                    from: intent,
                    expectedProductId: nil,
                    configuration: configuration,
                    verifiedAt: event.createdDate
                )
            )
        } catch let error as StoreAdapterError {
            decision = PurchaseDecision(error)
        } catch {
            decision = .serviceError(nil)
        }
        return .paymentIntent(id: intent.id, productId: productId, decision: decision)
    }
}

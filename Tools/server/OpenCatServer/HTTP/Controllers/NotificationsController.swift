import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenCatCore
import StoreAdapters

/// Store notifications in: App Store Server Notifications V2, Google Real-time developer notifications (a Pub/Sub
/// push), Stripe and PayPal webhooks. Each delivery is verified with its store, then applied once by its event id:
/// the transaction it reports is updated for its owner (renewals add the new period, refunds revoke) and a
/// refunded key pack is clawed back. A delivery that fails verification is answered 400; one that could not be
/// checked now (the store is down) 503, so the store delivers it again.
struct NotificationsController: ServerController {
    let desk: PurchaseDesk
    /// Verifies Stripe's webhook signatures; nil: `POST /v1/notifications/stripe` answers 404.
    let stripeWebhooks: StripeWebhookVerifier?
    /// Verifies PayPal's webhooks; nil: `POST /v1/notifications/paypal` answers 404.
    let payPalWebhooks: PayPalWebhookVerifier?
    let events: StoreEvents
    let subscribers: any SubscriberRepository
    let orders: any WebOrderRepository
    let checkout: WebCheckout
    /// `stores.apple.rereadNotifications`.
    let appleRereadNotifications: Bool
    /// The Pub/Sub push's shared token (`stores.google.pushToken`); nil: Google's endpoint answers 404.
    let googlePushToken: String?
    let clock: @Sendable () -> Date

    struct EventAnswer: Encodable {
        var applied: Bool
    }

    /// A Pub/Sub push body.
    struct PubSubPush: Decodable {
        struct Message: Decodable {
            var data: String?
            var messageId: String?
            var message_id: String?
        }
        var message: Message
    }

    /// Google's `DeveloperNotification`.
    struct DeveloperNotification: Decodable {
        struct Subscription: Decodable {
            var notificationType: Int?
            var purchaseToken: String
            var subscriptionId: String?
        }
        struct OneTimeProduct: Decodable {
            var notificationType: Int?
            var purchaseToken: String
            var sku: String?
        }
        struct Voided: Decodable {
            var purchaseToken: String
            var orderId: String?
            var productType: Int?
        }
        var packageName: String?
        var subscriptionNotification: Subscription?
        var oneTimeProductNotification: OneTimeProduct?
        var voidedPurchaseNotification: Voided?
    }

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.post("/v1/notifications/apple") { request, _ in try await appleNotification(request) }
        router.post("/v1/notifications/stripe") { request, _ in try await stripeNotification(request) }
        router.post("/v1/notifications/paypal") { request, _ in try await payPalNotification(request) }
        router.post("/v1/notifications/google") { request, context in try await googleNotification(request, context) }
    }

    /// An App Store Server Notification V2: verified, then applied once by its `notificationUUID`.
    func appleNotification(_ request: Request) async throws -> Response {
        guard let apple = desk.adapters[.apple] as? AppleStoreAdapter else {
            throw APIError(.notFound, "not_found", "App Store notifications are off")
        }
        let body = try await Self.rawBody(request)
        let notification: VerifiedAppStoreNotification
        do { notification = try await apple.verifyNotification(body: body) } catch {
            throw Self.notificationError(error)
        }
        guard let eventId = notification.payload.notificationUUID else {
            throw APIError(.badRequest, "invalid_notification", "the notification has no notificationUUID")
        }
        // Apple's own clock orders the notifications: an older one retried late never overwrites a newer.
        let (purchase, storeTime) = try await appleState(apple, notification)
        return try await apply(source: "apple", eventId: eventId, purchase, storeTime: storeTime)
    }

    /// A Stripe event: its signature checked, then a paid Checkout Session credited or the purchase read again and applied.
    func stripeNotification(_ request: Request) async throws -> Response {
        guard let verifier = stripeWebhooks, let stripe = desk.adapters[.stripe] as? StripeAdapter else {
            throw APIError(.notFound, "not_found", "Stripe webhooks are off")
        }
        let body = try await Self.rawBody(request)
        let event: Stripe.Event
        do {
            event = try verifier.verify(
                payload: body,
                signatureHeader: request.headers[HTTPField.Name("Stripe-Signature")!]
            )
        } catch { throw Self.notificationError(error) }
        // A web portal's Checkout Session was paid: credit its order (once, whether or not the buyer's
        // return got there first).
        if ["checkout.session.completed", "checkout.session.async_payment_succeeded"].contains(
            event.type.rawValue
        ), let session = Self.string(in: event.data.object, path: ["id"]),
            try await orders.webOrder(store: "stripe", reference: session) != nil
        {
            try await creditWebOrderFromWebhook(store: .stripe, reference: session)
            return Self.json(.ok, EventAnswer(applied: true))
        }
        var purchase: VerifiedPurchase?
        do {
            purchase = try await stripe.purchase(for: event)
            // A refund or a dispute of a one-time payment: the PaymentIntent is read again (refunded).
            if purchase == nil, [.chargeRefunded, .chargeDisputeCreated].contains(event.type),
                let intent = Self.string(in: event.data.object, path: ["payment_intent"])
            {
                purchase = try await stripe.verify(
                    PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(intent))
                )
            }
        } catch { throw Self.notificationError(error) }
        return try await apply(source: "stripe", eventId: event.id, purchase)
    }

    /// A PayPal event: confirmed with PayPal, then an approved order credited or the purchase read again and applied.
    func payPalNotification(_ request: Request) async throws -> Response {
        guard let verifier = payPalWebhooks, let paypal = desk.adapters[.paypal] as? PayPalAdapter else {
            throw APIError(.notFound, "not_found", "PayPal webhooks are off")
        }
        let body = try await Self.rawBody(request)
        let event: PayPal.Event
        do { event = try await verifier.verify(rawEvent: body, headers: request.headers) } catch {
            throw Self.notificationError(error)
        }
        // A web portal's order was approved (or its capture completed): capture and credit it once.
        if let resource = event.resource,
            let order = event.eventType == "CHECKOUT.ORDER.APPROVED"
                ? Self.string(in: resource, path: ["id"]) : event.relatedOrderId,
            ["CHECKOUT.ORDER.APPROVED", "PAYMENT.CAPTURE.COMPLETED"].contains(event.eventType),
            try await orders.webOrder(store: "paypal", reference: order) != nil
        {
            try await creditWebOrderFromWebhook(store: .paypal, reference: order)
            return Self.json(.ok, EventAnswer(applied: true))
        }
        // A subscription's event, or a capture's (completed, refunded, reversed): read again from PayPal.
        let purchase: VerifiedPurchase?
        do { purchase = try await paypal.purchase(for: event) } catch { throw Self.notificationError(error) }
        return try await apply(source: "paypal", eventId: event.id, purchase)
    }
    /// The state an App Store notification applies, and when Apple says it held. With
    /// `stores.apple.rereadNotifications` a subscription's state is read again from the App Store Server API (Get All
    /// Subscription Statuses) and applied as of the re-read; otherwise the notification's own transaction as of its
    /// `signedDate`. A refund or revocation is a fact about one transaction and is applied as Apple signed it.
    func appleState(_ apple: AppleStoreAdapter, _ notification: VerifiedAppStoreNotification) async throws
        -> (VerifiedPurchase?, Date?)
    {
        let signedDate = notification.payload.signedDate
        let aboutOneTransaction: Set<String> = ["REFUND", "REFUND_REVERSED", "REVOKE"]
        guard appleRereadNotifications, let transaction = notification.transaction,
            transaction.rawType == "Auto-Renewable Subscription",
            let original = transaction.originalTransactionId ?? transaction.transactionId,
            !aboutOneTransaction.contains(notification.payload.rawNotificationType ?? "")
        else { return (notification.purchase, signedDate) }
        do {
            let current = try await apple.verify(
                PurchaseProof(store: .apple, kind: .appleSubscriptionStatus, token: Secret(original))
            )
            return (current, max(current.verifiedAt ?? clock(), signedDate ?? .distantPast))
        } catch { throw Self.notificationError(error) }
    }

    /// A Pub/Sub push: authenticated by the subscription's shared `token` query parameter, then re-read from Google
    /// (the notification only says which purchase to look at).
    func googleNotification(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard let google = desk.adapters[.google] as? GooglePlayAdapter, let expected = googlePushToken,
            !expected.isEmpty
        else { throw APIError(.notFound, "not_found", "Google notifications are off") }
        let presented = request.uri.queryParameters.get("token") ?? ""
        guard ConstantTime.equals(presented, expected) else {
            throw APIError(.unauthorized, "unauthorized", "the push token is wrong")
        }
        let push = try await request.decode(as: PubSubPush.self, context: context)
        guard let eventId = push.message.messageId ?? push.message.message_id, let data = push.message.data,
            let json = Data(base64Encoded: data),
            let notification = try? JSONCoding.decoder.decode(DeveloperNotification.self, from: json)
        else { throw APIError(.badRequest, "invalid_notification", "the push does not carry a notification") }
        if let packageName = notification.packageName, packageName != google.configuration.packageName {
            throw APIError(
                .badRequest,
                "invalid_notification",
                "the notification is for another app",
                reason: StoreAdapterError.Code.wrongApplication.rawValue
            )
        }
        var update: VerifiedPurchase?
        do {
            if let subscription = notification.subscriptionNotification {
                update = try await google.verify(
                    PurchaseProof(
                        store: .google,
                        kind: .googleSubscriptionPurchaseToken,
                        token: Secret(subscription.purchaseToken),
                        productId: subscription.subscriptionId
                    )
                )
            } else if let product = notification.oneTimeProductNotification {
                update = try await google.verify(
                    PurchaseProof(
                        store: .google,
                        kind: .googleProductPurchaseToken,
                        token: Secret(product.purchaseToken),
                        productId: product.sku
                    )
                )
            } else if let voided = notification.voidedPurchaseNotification, let orderId = voided.orderId {
                // A voided purchase is confirmed with the Voided Purchases API before anything is revoked.
                let listed = try await google.allVoidedPurchases(
                    since: clock().addingTimeInterval(-30 * 86_400),
                    pageLimit: 10
                )
                // The order id comes from Google's own list, matched on the purchase token.
                guard let entry = listed.first(where: { $0.purchaseToken == voided.purchaseToken }) else {
                    throw APIError(.badRequest, "invalid_notification", "Google does not list that purchase as voided")
                }
                let orderId = entry.orderId ?? orderId
                var info =
                    try await subscribers.storedTransaction(store: .google, transactionId: orderId)
                    ?? TransactionInfo(
                        transactionId: orderId,
                        productId: "",
                        store: .google,
                        purchaseDate: clock(),
                        status: .refunded
                    )
                info.status = .refunded
                return Self.json(.ok, EventAnswer(applied: try await events.apply("google", eventId, info).applied))
            }
        } catch let refusal as APIError {
            throw refusal
        } catch {
            throw Self.notificationError(error)
        }
        return try await apply(source: "google", eventId: eventId, update)
    }

    /// Applies a verified notification's purchase; `storeTime` (default: when the store answered the re-read)
    /// orders it against what the server holds.
    func apply(source: String, eventId: String, _ purchase: VerifiedPurchase?, storeTime: Date? = nil) async throws
        -> Response
    {
        let outcome = try await events.apply(source, eventId, purchase: purchase, storeTime: storeTime)
        return Self.json(.ok, EventAnswer(applied: outcome.applied))
    }

    /// Credits a web order from a webhook; a refusal is answered as the store expects (503: deliver again).
    func creditWebOrderFromWebhook(store: Store, reference: String) async throws {
        do {
            try await checkout.credit(store: store, reference: reference)
        } catch let refusal as PageError {
            throw APIError(refusal.status, "invalid_notification", refusal.message)
        }
    }

    static func notificationError(_ error: any Error) -> APIError {
        if let error = error as? StoreAdapterError {
            switch error.code {
            case .storeUnavailable, .timeout, .network, .rateLimited, .unauthorized, .misconfigured:
                return PurchaseDesk.refusal(error)
            default:
                return APIError(
                    .badRequest,
                    "invalid_notification",
                    "the notification failed verification",
                    reason: error.code.rawValue
                )
            }
        }
        return APIError(.badRequest, "invalid_notification", "the notification failed verification")
    }

    /// A string member of a JSON object, by path.
    static func string(in json: Data, path: [String]) -> String? {
        var value: Any? = try? JSONSerialization.jsonObject(with: json)
        for key in path { value = (value as? [String: Any])?[key] }
        return value as? String
    }
}

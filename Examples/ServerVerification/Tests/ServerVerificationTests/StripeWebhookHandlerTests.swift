import Crypto
import Foundation
import OpenCatCore
import ServerVerification
import StoreAdapters
import Testing

/// Stripe webhook deliveries signed here as Stripe signs them: `Stripe-Signature: t=<unix seconds>,v1=<hex>`, the
/// HMAC-SHA256 of `"<t>.<raw body>"` under the endpoint's signing secret.
struct StripeWebhookHandlerTests {
    /// A signing secret made for this run (`whsec_` and 32 hex digits): nothing secret-looking is committed.
    static let secret = "whsec_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    static let signedAt: Int64 = 1_795_348_800
    static let now = Date(timeIntervalSince1970: TimeInterval(signedAt) + 30)

    /// `Stripe-Signature` for a payload.
    static func signatureHeader(for payload: Data, secret: String = secret, at timestamp: Int64 = signedAt) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        let hex = mac.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return "t=\(timestamp),v1=\(hex)"
    }

    /// An event as Stripe delivers it.
    static func event(_ type: String, object: String) -> Data {
        Data(
            """
            {
              "id": "evt_example_0001",
              "object": "event",
              "api_version": "2024-06-20",
              "created": \(signedAt),
              "livemode": false,
              "type": "\(type)",
              "data": {"object": \(object)},
              "pending_webhooks": 1,
              "request": {"id": null, "idempotency_key": null}
            }
            """.utf8
        )
    }

    /// A PaymentIntent of 4.99 EUR for `gems_500`, bought by `player-42`.
    static func paymentIntent(status: String, received: Int, app: String = "puzzle-app") -> String {
        """
        {"id": "pi_example_0001", "object": "payment_intent", "amount": 499, "amount_received": \(received),
         "currency": "eur", "status": "\(status)", "livemode": false, "created": \(signedAt),
         "metadata": {"product_id": "gems_500", "app_user_id": "player-42", "app": "\(app)"}}
        """
    }

    static let succeeded = event("payment_intent.succeeded", object: paymentIntent(status: "succeeded", received: 499))

    func handler(appId: String? = nil) throws -> StripeWebhookHandler {
        // The configuration is the StripeAdapter's; its key is not used by webhooks.
        var configuration = StripeAdapter.Configuration(secretKey: Secret("unused-by-webhooks"))
        if let appId {
            configuration.appMetadataKey = "app"
            configuration.appId = appId
        }
        return StripeWebhookHandler(
            verifier: try StripeWebhookVerifier(secret: Secret(Self.secret)),
            configuration: configuration
        )
    }

    @Test func aSignedPaymentThatSucceededUnlocksItsProduct() throws {
        let outcome = try handler().handle(
            payload: Self.succeeded,
            signatureHeader: Self.signatureHeader(for: Self.succeeded),
            now: Self.now
        )
        let purchase = try #require(outcome.decision?.unlockedPurchase)
        #expect(outcome == .paymentIntent(id: "pi_example_0001", productId: "gems_500", decision: .unlocked(purchase)))
        #expect(purchase.store == .stripe)
        #expect(purchase.transactionId == "pi_example_0001")
        #expect(purchase.productId == "gems_500")
        #expect(purchase.purchaser == "player-42")
        #expect(purchase.state == .active)
        #expect(purchase.environment == .sandbox)
        #expect(purchase.price == Money(minorUnits: 499, currency: "EUR"))
        #expect(purchase.price?.amountString == "4.99")
    }

    @Test func aTamperedDeliveryIsRefused() throws {
        let header = Self.signatureHeader(for: Self.succeeded)
        let tampered = Data(
            String(decoding: Self.succeeded, as: UTF8.self)
                .replacingOccurrences(of: #""product_id": "gems_500""#, with: #""product_id": "gems_5000""#).utf8
        )
        #expect(tampered != Self.succeeded)
        let webhooks = try handler()
        let error = try #require(throws: StripeWebhookError.self) {
            try webhooks.handle(payload: tampered, signatureHeader: header, now: Self.now)
        }
        #expect(error.code == .signatureMismatch)
    }

    @Test func aDeliverySignedWithAnotherSecretIsRefused() throws {
        let webhooks = try handler()
        let header = Self.signatureHeader(for: Self.succeeded, secret: "whsec_someoneElsesSecret0000000000")
        let error = #expect(throws: StripeWebhookError.self) {
            try webhooks.handle(payload: Self.succeeded, signatureHeader: header, now: Self.now)
        }
        #expect(error?.code == .signatureMismatch)
    }

    @Test func anOldDeliveryIsRefusedAsAReplay() throws {
        let webhooks = try handler()
        let header = Self.signatureHeader(for: Self.succeeded)
        let later = Date(timeIntervalSince1970: TimeInterval(Self.signedAt) + 301)
        let error = #expect(throws: StripeWebhookError.self) {
            try webhooks.handle(payload: Self.succeeded, signatureHeader: header, now: later)
        }
        #expect(error?.code == .timestampOutsideTolerance)
    }

    @Test func aDeliveryWithoutASignatureIsRefused() throws {
        let webhooks = try handler()
        let error = #expect(throws: StripeWebhookError.self) {
            try webhooks.handle(payload: Self.succeeded, signatureHeader: nil, now: Self.now)
        }
        #expect(error?.code == .missingHeader)
    }

    @Test func aFailedPaymentUnlocksNothing() throws {
        let failed = Self.event(
            "payment_intent.payment_failed",
            object: Self.paymentIntent(status: "requires_payment_method", received: 0)
        )
        let outcome = try handler().handle(
            payload: failed,
            signatureHeader: Self.signatureHeader(for: failed),
            now: Self.now
        )
        #expect(outcome == .paymentIntent(id: "pi_example_0001", productId: "gems_500", decision: .refused(.notPaid)))
    }

    @Test func aProcessingPaymentIsPending() throws {
        let processing = Self.event(
            "payment_intent.processing",
            object: Self.paymentIntent(status: "processing", received: 0)
        )
        let outcome = try handler().handle(
            payload: processing,
            signatureHeader: Self.signatureHeader(for: processing),
            now: Self.now
        )
        #expect(outcome.decision == .pending)
    }

    @Test func anotherAppsPaymentOnTheSameAccountUnlocksNothing() throws {
        let header = Self.signatureHeader(for: Self.succeeded)
        let elsewhere = try handler(appId: "another-app").handle(
            payload: Self.succeeded,
            signatureHeader: header,
            now: Self.now
        )
        #expect(elsewhere.decision == .refused(.otherApplication))
        let here = try handler(appId: "puzzle-app").handle(
            payload: Self.succeeded,
            signatureHeader: header,
            now: Self.now
        )
        #expect(here.decision?.isUnlocked == true)
    }

    @Test func anEventAboutSomethingElseIsIgnored() throws {
        let customer = Self.event("customer.created", object: #"{"id": "cus_example_0001", "object": "customer"}"#)
        let outcome = try handler().handle(
            payload: customer,
            signatureHeader: Self.signatureHeader(for: customer),
            now: Self.now
        )
        #expect(outcome == .ignored(Stripe.Event.EventType(rawValue: "customer.created")))
        #expect(outcome.decision == nil)
    }
}

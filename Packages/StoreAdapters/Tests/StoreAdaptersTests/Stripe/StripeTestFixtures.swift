import Foundation
import OpenCatCore
import OpenCatTesting

@testable import StoreAdapters

/// Builders for Stripe test payloads (OpenCat's own, written from Stripe's API reference).
enum StripeTestFixtures {
    /// A fake test-mode key: long and recognizable, so leaks are easy to find.
    static let secretKey = "sk_test_opencatFAKEkeyNOTREAL0123456789abcdef"
    static let paymentIntentId = "pi_3OpenCatTestIntent0001"
    static let created: Int64 = 1_700_000_000

    static func adapter(
        _ transport: ScriptedTransport,
        maxAttempts: Int = 3,
        logger: LogCapture? = nil
    ) -> StripeAdapter {
        var client = HTTPClient.scripted(transport, maxAttempts: maxAttempts)
        if let logger { client.logger = logger.logger }
        var configuration = StripeAdapter.Configuration(
            secretKey: Secret(secretKey),
            baseURL: URL(string: "http://127.0.0.1:8080/stripe")!,
            httpClient: client
        )
        if let logger { configuration.logger = logger.logger }
        return StripeAdapter(configuration: configuration)
    }

    static func proof(_ token: String = paymentIntentId, productId: String? = "pro.monthly") -> PurchaseProof {
        PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(token), productId: productId)
    }

    static func charge(amount: Int64 = 999, captured: Int64 = 999, refunded: Int64 = 0, fullyRefunded: Bool = false)
        -> String
    {
        """
        {"id": "ch_3OpenCatTestCharge01", "object": "charge", "amount": \(amount), "amount_captured": \(captured),
         "amount_refunded": \(refunded), "currency": "usd", "refunded": \(fullyRefunded), "disputed": false,
         "status": "succeeded", "created": \(created), "livemode": false, "metadata": {}}
        """
    }

    static func paymentIntent(
        status: String = "succeeded",
        amount: Int64 = 999,
        amountReceived: Int64? = nil,
        currency: String = "usd",
        livemode: Bool = true,
        metadata: [String: String] = ["product_id": "pro.monthly", "app_user_id": "user-42"],
        latestCharge: String? = nil,
        lastPaymentError: String? = nil
    ) -> String {
        let received = amountReceived ?? (status == "succeeded" ? amount : 0)
        let metadataJSON = String(decoding: try! JSONEncoder().encode(metadata), as: UTF8.self)
        return """
            {"id": "\(paymentIntentId)", "object": "payment_intent", "amount": \(amount),
             "amount_received": \(received), "currency": "\(currency)", "status": "\(status)",
             "livemode": \(livemode), "created": \(created), "metadata": \(metadataJSON),
             "latest_charge": \(latestCharge ?? "null"), "customer": "cus_OpenCatTest",
             "last_payment_error": \(lastPaymentError ?? "null"),
             "client_secret": "\(paymentIntentId)_secret_doNotLeak"}
            """
    }

    static func error(
        type: String,
        code: String? = nil,
        message: String = "No such payment_intent: '\(paymentIntentId)'"
    ) -> String {
        """
        {"error": {"type": "\(type)", \(code.map { "\"code\": \"\($0)\"," } ?? "") "message": "\(message)",
          "doc_url": "https://stripe.com/docs/error-codes"}}
        """
    }
}

import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

/// Verifies Stripe payments: reads a PaymentIntent with `GET /v1/payment_intents/{id}?expand[]=latest_charge`
/// and maps it to a ``VerifiedPurchase``.
///
/// The proof is a `PurchaseProof` of kind `PurchaseProof/Kind/stripePaymentIntent` whose token is the
/// PaymentIntent id (`pi_…`; a client secret `pi_…_secret_…` is accepted and reduced to its id).
///
/// How a PaymentIntent maps:
/// - `succeeded` → ``VerifiedPurchase/State/active``; but if the latest charge is `refunded` or has
///   `amount_refunded > 0` → ``VerifiedPurchase/State/refunded`` with ``VerifiedPurchase/refundedAmount``. A
///   partial refund is `refunded` too: the refunded amount (less than the price) tells how much.
/// - `processing`, `requires_capture` → ``VerifiedPurchase/State/pending``.
/// - `requires_payment_method`, `requires_confirmation`, `requires_action`, `canceled` → throws
///   ``StoreAdapterError/Code/notPaid`` (store reason: the status, plus the last payment error's code).
/// - any other status → throws ``StoreAdapterError/Code/malformedResponse``: an unknown state never grants access.
///
/// The product is `metadata[product_id]` (key configurable). A PaymentIntent without it was not created for an
/// OpenCat product, so it is rejected as ``StoreAdapterError/Code/invalidProof``; one whose product differs from
/// `PurchaseProof/productId` is a ``StoreAdapterError/Code/productMismatch``. The purchaser is
/// `metadata[app_user_id]` (key configurable); when `PurchaseProof/expectedPurchaser` is set it must be present
/// and equal, else ``StoreAdapterError/Code/purchaserMismatch``. ``VerifiedPurchase/verifiedAt`` is the response's
/// HTTP `Date` (nil without one), never the device clock. `livemode: false` →
/// ``VerifiedPurchase/Environment/sandbox``.
/// Amounts are minor units, converted with Stripe's currency exponents
/// (``Stripe/minorUnitExponent(forCurrency:)``).
///
/// Errors: `resource_missing` / 404 → ``StoreAdapterError/Code/notFound``; 401/403 →
/// ``StoreAdapterError/Code/unauthorized``; `rate_limit` / 429 → ``StoreAdapterError/Code/rateLimited``; 5xx after
/// retries → ``StoreAdapterError/Code/storeUnavailable``; 402 → ``StoreAdapterError/Code/notPaid``; other 4xx →
/// ``StoreAdapterError/Code/invalidProof``. Stripe's `code` (or `type`) and `decline_code` go into
/// ``StoreAdapterError/storeReason``; Stripe's `message` (which quotes the id) is never copied. Retries honour
/// `Stripe-Should-Retry`.
public struct StripeAdapter: StoreAdapter {
    /// The configuration.
    public let configuration: Configuration
    let http: StoreHTTP

    /// Always `Store/stripe`.
    public var store: Store { .stripe }

    /// Creates an adapter.
    /// - Parameter configuration: the key, API version, base URL and HTTP client.
    public init(configuration: Configuration) {
        var client = configuration.httpClient
        if client.retryPolicy.overrideHeader == nil {
            client.retryPolicy.overrideHeader = .stripeShouldRetry
        }
        self.configuration = configuration
        self.http = StoreHTTP(client: client, store: .stripe)
    }

    /// Verifies a PaymentIntent.
    /// - Parameter proof: a `PurchaseProof/Kind/stripePaymentIntent` proof.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError``.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        if proof.store == .stripe, proof.kind == .stripeSubscription { return try await verifySubscription(proof) }
        guard proof.store == .stripe, proof.kind == .stripePaymentIntent else {
            throw StoreAdapterError(
                .invalidProof,
                store: .stripe,
                "a \(proof.store) \(proof.kind) proof cannot be verified with Stripe"
            )
        }
        var (intent, storeDate) = try await fetchPaymentIntent(id: proof.token)
        try checkApplication(intent.metadata)
        var finalized = false
        if intent.status == .requiresCapture, configuration.captureAuthorized {
            // Never capture a payment for another product or purchaser.
            _ = try Self.purchase(from: intent, expectedProductId: proof.productId, configuration: configuration)
            try PurchaserBinding.check(
                proof,
                reported: intent.metadata[configuration.purchaserMetadataKey],
                field: "metadata.\(configuration.purchaserMetadataKey)"
            )
            (intent, storeDate) = try await capture(intent.id)
            finalized = true
        }
        var purchase = try Self.purchase(
            from: intent,
            expectedProductId: proof.productId,
            configuration: configuration,
            verifiedAt: storeDate
        )
        purchase.finalizedByAdapter = finalized
        try PurchaserBinding.check(
            proof,
            reported: purchase.purchaser,
            field: "metadata.\(configuration.purchaserMetadataKey)"
        )
        configuration.logger.debug(
            "stripe payment intent verified",
            metadata: ["state": "\(purchase.state)", "environment": "\(purchase.environment)"]
        )
        return purchase
    }

    /// Reads a PaymentIntent, with its latest charge expanded.
    /// - Parameter id: the PaymentIntent id (`pi_…`) or its client secret.
    /// - Returns: the PaymentIntent.
    /// - Throws: ``StoreAdapterError``.
    public func paymentIntent(id: Secret<String>) async throws -> Stripe.PaymentIntent {
        try await fetchPaymentIntent(id: id).intent
    }

    /// Reads a PaymentIntent and the response's HTTP `Date` (Stripe's time; `nil` when absent or unreadable).
    private func fetchPaymentIntent(id: Secret<String>) async throws -> (intent: Stripe.PaymentIntent, date: Date?) {
        guard let id = Self.paymentIntentId(from: id.revealed) else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "the token is not a PaymentIntent id")
        }
        var request = APIRequest.make(
            .get,
            baseURL: configuration.baseURL,
            path: "/v1/payment_intents/\(id)",
            query: [("expand[]", "latest_charge")]
        )
        request.headerFields[.authorization] = "Bearer \(configuration.secretKey.revealed)"
        request.headerFields[.stripeVersion] = configuration.apiVersion
        request.headerFields[.accept] = "application/json"
        let response = try await http.send(request)
        guard response.status.code == 200 else { throw error(for: response, resource: "PaymentIntent") }
        return (
            try http.decode(Stripe.PaymentIntent.self, from: response.body), HTTPDate.of(response.head.headerFields)
        )
    }

    /// The shared error for a Stripe error response.
    func error(for response: HTTPTransportResponse, resource: String) -> StoreAdapterError {
        let apiError = try? JSONDecoder().decode(Stripe.ErrorResponse.self, from: response.body).error
        let reason = apiError?.reason
        let status = response.status.code
        if status == 404 || apiError?.code == "resource_missing" {
            return StoreAdapterError(
                .notFound,
                store: .stripe,
                "Stripe does not know this \(resource)",
                storeReason: reason,
                httpStatus: status
            )
        }
        if let common = http.commonError(for: response, reason: reason) { return common }
        if apiError?.code == "rate_limit" || apiError?.type == "rate_limit_error" {
            return StoreAdapterError(
                .rateLimited,
                store: .stripe,
                "Stripe is rate limiting requests",
                storeReason: reason,
                httpStatus: status
            )
        }
        switch status {
        case 402:
            return StoreAdapterError(
                .notPaid,
                store: .stripe,
                "Stripe reports a failed payment",
                storeReason: reason,
                httpStatus: status
            )
        case 400...499:
            return StoreAdapterError(
                .invalidProof,
                store: .stripe,
                "Stripe rejected the request (HTTP \(status))",
                storeReason: reason,
                httpStatus: status
            )
        default:
            return StoreAdapterError(
                .malformedResponse,
                store: .stripe,
                "unexpected HTTP status \(status)",
                storeReason: reason,
                httpStatus: status
            )
        }
    }

    /// The PaymentIntent id in a token: `pi_` and letters/digits, optionally followed by `_secret_…`.
    static func paymentIntentId(from token: String) -> String? {
        let id = token.range(of: "_secret_").map { String(token[..<$0.lowerBound]) } ?? token
        guard id.hasPrefix("pi_"), id.count > 3, id.count <= 255,
            id.utf8.dropFirst(3).allSatisfy(Self.isASCIIAlphanumeric)
        else { return nil }
        return id
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}

extension HTTPField.Name {
    /// `Stripe-Version`: pins the API version of a request.
    static let stripeVersion = HTTPField.Name("Stripe-Version")!
    /// `Stripe-Should-Retry`: Stripe's hint whether a failed request may be retried.
    static let stripeShouldRetry = HTTPField.Name("Stripe-Should-Retry")!
}

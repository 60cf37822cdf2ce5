public import Foundation
public import Logging
public import OpenCatCore

extension StripeAdapter {
    /// What a ``StripeAdapter`` needs: the secret key, the pinned API version, where the API is, and how the
    /// integration marks a PaymentIntent's product and purchaser.
    public struct Configuration: Sendable {
        /// The API version OpenCat's models are written against, sent as `Stripe-Version` on every request.
        public static let defaultAPIVersion = "2024-06-20"
        /// Stripe's API.
        public static let productionBaseURL = URL(string: "https://api.stripe.com")!

        /// The secret (`sk_…`) or restricted (`rk_…`) key. Restricted keys need read access to PaymentIntents and
        /// Charges.
        public var secretKey: Secret<String>
        /// Sent as `Stripe-Version`, so that an account's default version cannot change the response shape.
        public var apiVersion: String
        /// The API's base URL (override for MockStores on 127.0.0.1). A path prefix is kept.
        public var baseURL: URL
        /// The PaymentIntent `metadata` key that holds the product id.
        public var productMetadataKey: String
        /// The PaymentIntent `metadata` key that holds the app's user id (reported as the purchaser).
        public var purchaserMetadataKey: String
        /// The PaymentIntent `metadata` key that holds how many units were bought (`quantity`; a whole number from 1;
        /// 1 when absent). ``createCheckoutSession(_:)`` writes it; a PaymentIntent your backend creates for several
        /// units should carry it too, or the purchase counts as one.
        public var quantityMetadataKey: String = "quantity"
        /// The HTTP client. The adapter makes its retry policy honour `Stripe-Should-Retry` unless the policy
        /// already names an override header.
        public var httpClient: HTTPClient
        /// Where the adapter logs (never keys, ids or bodies). Off by default.
        public var logger: Logger
        /// What a `past_due` subscription grants (default: billing retry, no access).
        public var pastDue: PastDuePolicy
        /// Whether an authorized PaymentIntent (`requires_capture`) is captured by the verification (with an
        /// idempotency key derived from its id, so a repeat cannot capture twice). Off by default: capturing is
        /// the merchant's decision.
        public var captureAuthorized: Bool = false
        /// When one Stripe account sells for several apps: the `metadata` key naming the app, and this app's value.
        /// A PaymentIntent or subscription for another app is ``StoreAdapterError/Code/wrongApplication``.
        public var appMetadataKey: String?
        /// This app's value of ``appMetadataKey`` (both set, or neither).
        public var appId: String?

        /// Creates a configuration.
        /// - Parameters:
        ///   - secretKey: see ``secretKey``.
        ///   - apiVersion: see ``apiVersion``.
        ///   - baseURL: see ``baseURL``.
        ///   - productMetadataKey: see ``productMetadataKey``.
        ///   - purchaserMetadataKey: see ``purchaserMetadataKey``.
        ///   - httpClient: see ``httpClient``.
        ///   - logger: see ``logger``.
        public init(
            secretKey: Secret<String>,
            apiVersion: String = Configuration.defaultAPIVersion,
            baseURL: URL = Configuration.productionBaseURL,
            productMetadataKey: String = "product_id",
            purchaserMetadataKey: String = "app_user_id",
            httpClient: HTTPClient = HTTPClient(),
            logger: Logger = Logger(label: "dev.opencat.stripe", factory: { _ in SwiftLogNoOpLogHandler() }),
            pastDue: PastDuePolicy = .billingRetry
        ) {
            self.secretKey = secretKey
            self.apiVersion = apiVersion
            self.baseURL = baseURL
            self.productMetadataKey = productMetadataKey
            self.purchaserMetadataKey = purchaserMetadataKey
            self.httpClient = httpClient
            self.logger = logger
            self.pastDue = pastDue
        }
    }
}

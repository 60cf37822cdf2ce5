public import Foundation
public import Logging
public import OpenCatCore

extension PayPalAdapter {
    /// What a ``PayPalAdapter`` (and a ``PayPalWebhookVerifier``) needs: the REST app's credentials, the
    /// environment, where the API is, and whether approved orders are captured.
    public struct Configuration: Sendable {
        /// PayPal's two environments.
        public enum Environment: String, Sendable, Hashable, Codable, CaseIterable {
            /// `https://api-m.sandbox.paypal.com`: test accounts, no real money.
            case sandbox
            /// `https://api-m.paypal.com`: real money.
            case live

            /// The environment's REST API base URL.
            public var baseURL: URL {
                switch self {
                case .sandbox: URL(string: "https://api-m.sandbox.paypal.com")!
                case .live: URL(string: "https://api-m.paypal.com")!
                }
            }
        }

        /// The REST app's client id.
        public var clientId: String
        /// The REST app's secret.
        public var clientSecret: Secret<String>
        /// Sandbox or live; decides the default ``baseURL`` and the result's
        /// ``VerifiedPurchase/environment``.
        public var environment: Environment
        /// The merchant id of the PayPal account that must receive every payment (`purchase_units[].payee.merchant_id`;
        /// the seller account's "merchant ID" in its settings). Orders are created in the browser with the public
        /// client id, so an order paying someone else must not unlock anything.
        public var payeeMerchantId: String
        /// The exact price of each product, by product id (`reference_id`): an order or capture for another amount
        /// or currency is refused. A product without a price here cannot be verified (`misconfigured`).
        public var prices: [String: Money]
        /// Subscription plan id (`P-…`) → the app's product id; a plan not listed is its own product id.
        public var subscriptionPlans: [String: String]
        /// The API's base URL (override for MockStores on 127.0.0.1). A path prefix is kept.
        public var baseURL: URL
        /// Whether an `APPROVED` order with intent `CAPTURE` is captured during verification (with an idempotent
        /// `PayPal-Request-Id`). When `false`, such an order is reported as pending.
        public var captureApproved: Bool
        /// The webhook's id in the PayPal app (needed by ``PayPalWebhookVerifier``).
        public var webhookId: String?
        /// How long before `expires_in` runs out a cached access token is replaced.
        public var tokenRefreshMargin: Duration
        /// The HTTP client (its clock also times the access token's expiry).
        public var httpClient: HTTPClient
        /// Where the adapter logs (never credentials, tokens, ids or bodies). Off by default.
        public var logger: Logger

        /// Creates a configuration.
        /// - Parameters:
        ///   - clientId: see ``clientId``.
        ///   - clientSecret: see ``clientSecret``.
        ///   - environment: see ``environment``.
        ///   - payeeMerchantId: see ``payeeMerchantId``.
        ///   - prices: see ``prices``.
        ///   - baseURL: see ``baseURL`` (default: the environment's).
        ///   - captureApproved: see ``captureApproved``.
        ///   - webhookId: see ``webhookId``.
        ///   - tokenRefreshMargin: see ``tokenRefreshMargin``.
        ///   - httpClient: see ``httpClient``.
        ///   - logger: see ``logger``.
        public init(
            clientId: String,
            clientSecret: Secret<String>,
            environment: Environment,
            payeeMerchantId: String,
            prices: [String: Money],
            baseURL: URL? = nil,
            captureApproved: Bool = true,
            webhookId: String? = nil,
            tokenRefreshMargin: Duration = .seconds(60),
            httpClient: HTTPClient = HTTPClient(),
            logger: Logger = Logger(label: "dev.opencat.paypal", factory: { _ in SwiftLogNoOpLogHandler() }),
            subscriptionPlans: [String: String] = [:]
        ) {
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.environment = environment
            self.payeeMerchantId = payeeMerchantId
            self.prices = prices
            self.baseURL = baseURL ?? environment.baseURL
            self.captureApproved = captureApproved
            self.webhookId = webhookId
            self.tokenRefreshMargin = tokenRefreshMargin
            self.httpClient = httpClient
            self.logger = logger
            self.subscriptionPlans = subscriptionPlans
        }
    }
}

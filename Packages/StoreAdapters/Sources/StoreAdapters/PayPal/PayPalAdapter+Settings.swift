public import OpenCatCore

extension PayPalAdapter: ConfigurableStoreAdapter {
    /// PayPal.
    public static var verifiedStore: Store { .paypal }

    /// An Orders v2 order id or a subscription id.
    /// The app user id travels in the order's `custom_id`.
    public static var carriesAppUserId: Bool { true }

    public static var acceptedProofKinds: Set<PurchaseProof.Kind> { [.paypalOrder, .paypalSubscription] }

    /// A PayPal adapter from settings:
    /// - `clientId` and the secret `clientSecret` (required);
    /// - `environment`: `live` (default) or `sandbox`;
    /// - `payeeMerchantId` (required);
    /// - `prices`: product id → `{"amount": "4.99", "currency": "USD"}` (``StoreAdapterConfiguration/prices(_:)``);
    /// - `subscriptionPlans`: plan id (`P-…`) → product id;
    /// - `webhookId`, `baseURL`, `captureApproved` (default true).
    public init(configuration settings: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
    {
        let environment: Configuration.Environment
        switch try settings.optionalString("environment") ?? "live" {
        case "live": environment = .live
        case "sandbox": environment = .sandbox
        case let other: throw settings.error("environment", "\(other) is neither live nor sandbox")
        }
        self.init(
            configuration: Configuration(
                clientId: try settings.string("clientId"),
                clientSecret: try settings.secret("clientSecret", context),
                environment: environment,
                payeeMerchantId: try settings.string("payeeMerchantId"),
                prices: try settings.prices("prices"),
                baseURL: try settings.optionalURL("baseURL"),
                captureApproved: try settings.bool("captureApproved", default: true),
                webhookId: try settings.optionalString("webhookId"),
                httpClient: context.httpClient,
                logger: context.logger,
                subscriptionPlans: try settings.stringMap("subscriptionPlans")
            )
        )
    }
}

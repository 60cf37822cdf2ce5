public import OpenCatCore

extension StripeAdapter: ConfigurableStoreAdapter {
    /// Stripe.
    public static var verifiedStore: Store { .stripe }

    /// A PaymentIntent id or a Billing subscription id.
    /// The app user id travels in the payment's `metadata` (key configurable).
    public static var carriesAppUserId: Bool { true }

    public static var acceptedProofKinds: Set<PurchaseProof.Kind> { [.stripePaymentIntent, .stripeSubscription] }

    /// A Stripe adapter from settings:
    /// - the secret `secretKey` (required);
    /// - `apiVersion`, `baseURL`;
    /// - `pastDue`: `billingRetry` (default) or `gracePeriod`;
    /// - `captureAuthorized` (default false);
    /// - `appMetadataKey` and `appId`, together: when one Stripe account sells for several apps.
    public init(configuration settings: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
    {
        let pastDue: PastDuePolicy
        switch try settings.optionalString("pastDue") ?? "billingRetry" {
        case "billingRetry": pastDue = .billingRetry
        case "gracePeriod": pastDue = .gracePeriod
        case let other: throw settings.error("pastDue", "\(other) is neither billingRetry nor gracePeriod")
        }
        var configuration = Configuration(
            secretKey: try settings.secret("secretKey", context),
            apiVersion: try settings.optionalString("apiVersion") ?? Configuration.defaultAPIVersion,
            baseURL: try settings.url("baseURL", default: Configuration.productionBaseURL),
            httpClient: context.httpClient,
            logger: context.logger,
            pastDue: pastDue
        )
        configuration.captureAuthorized = try settings.bool("captureAuthorized", default: false)
        configuration.appMetadataKey = try settings.optionalString("appMetadataKey")
        configuration.appId = try settings.optionalString("appId")
        guard (configuration.appMetadataKey == nil) == (configuration.appId == nil) else {
            throw settings.error("appMetadataKey / appId", "set both, or neither")
        }
        self.init(configuration: configuration)
    }
}

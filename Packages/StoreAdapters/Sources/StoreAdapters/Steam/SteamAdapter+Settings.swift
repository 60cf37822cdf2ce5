public import OpenCatCore

extension SteamAdapter: ConfigurableStoreAdapter {
    /// Steam.
    public static var verifiedStore: Store { .steam }

    /// A microtransaction's order id or transaction id, or a recurring agreement.
    public static var acceptedProofKinds: Set<PurchaseProof.Kind> { [.steamOrder, .steamTransaction, .steamAgreement] }

    /// A Steam adapter from settings:
    /// - `appId` (a 32-bit unsigned integer) and the secret `publisherKey` (required);
    /// - `sandbox` (default false), `baseURL`, `finalizeApproved` (default true).
    public init(configuration settings: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
    {
        guard let appId = try settings.integer("appId", as: UInt32.self) else {
            throw settings.error("appId", "missing")
        }
        self.init(
            configuration: Configuration(
                appId: appId,
                publisherKey: try settings.secret("publisherKey", context),
                sandbox: try settings.bool("sandbox", default: false),
                baseURL: try settings.url("baseURL", default: Configuration.defaultBaseURL),
                finalizeApproved: try settings.bool("finalizeApproved", default: true),
                httpClient: context.httpClient
            ),
            logger: context.logger
        )
    }
}

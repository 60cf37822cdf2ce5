import Foundation
public import OpenCatCore

extension GooglePlayAdapter: ConfigurableStoreAdapter {
    /// Google Play.
    public static var verifiedStore: Store { .google }

    /// A purchase token of a one-time product or of a subscription.
    /// The app user id travels in the purchase's `obfuscatedExternalAccountId`.
    public static var carriesAppUserId: Bool { true }

    public static var acceptedProofKinds: Set<PurchaseProof.Kind> {
        [.googleProductPurchaseToken, .googleSubscriptionPurchaseToken]
    }

    /// A Google Play adapter from settings:
    /// - `packageName` (required);
    /// - the secret `serviceAccount`: the service account's JSON key (`serviceAccountFile` on a server; required);
    /// - `baseURL`, `tokenURL` (default: the key's `token_uri`);
    /// - `acknowledge` (default true), `consultVoidedPurchases` (default false).
    public init(configuration settings: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
    {
        let key = try settings.secret("serviceAccount", context)
        let account: GoogleServiceAccount
        do { account = try GoogleServiceAccount(jsonData: Data(key.revealed.utf8)) } catch {
            throw settings.error("serviceAccount", "not a service account JSON key")
        }
        var configuration: Configuration
        do {
            configuration = try Configuration(
                packageName: try settings.string("packageName"),
                serviceAccount: account,
                baseURL: try settings.url("baseURL", default: Configuration.defaultBaseURL),
                tokenURL: try settings.optionalURL("tokenURL"),
                httpClient: context.httpClient,
                acknowledge: try settings.bool("acknowledge", default: true)
            )
        } catch let error as StoreAdapterError where error.code == .misconfigured {
            throw error
        } catch {
            throw settings.error("serviceAccount", "its private key cannot be read")
        }
        configuration.consultVoidedPurchases = try settings.bool("consultVoidedPurchases", default: false)
        self.init(configuration: configuration, logger: context.logger)
    }
}

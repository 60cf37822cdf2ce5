public import Foundation
public import MockStores
public import OpenCatCore
import OpenCatTesting
public import StoreAdapters
import _CryptoExtras

/// What an adapter is built from for one case: the mock server's address, the cassette's `config`, the run's
/// credentials, and an HTTP client on the suite's test clock.
public struct ConformanceEnvironment: Sendable {
    /// The mock server's base URL (`http://127.0.0.1:<port>`).
    public var baseURL: URL
    /// The cassette's `config`, placeholders substituted.
    public var config: [String: JSONValue]
    /// The run's credentials.
    public var credentials: ConformanceCredentials
    /// The HTTP client to give the adapter: real loopback transport, the suite's retry policy and test clock.
    public var httpClient: HTTPClient

    /// A config string, or a ``ConformanceError`` naming the key.
    public func string(_ key: String) throws -> String {
        guard let value = config[key]?.stringValue else { throw ConformanceError("config.\(key): expected a string") }
        return value
    }

    /// A config string if present.
    public func optionalString(_ key: String) -> String? { config[key]?.stringValue }

    /// The base URL with a path appended (`/production`).
    public func url(path: String) -> URL { URL(string: baseURL.absoluteString + path)! }
}

/// Builds a ``StoreAdapter`` for a case: how the suite runs the five built-in adapters, and how an adapter author
/// plugs in their own.
public struct ConformanceAdapterFactory: Sendable {
    /// The store whose cassettes this adapter runs.
    public var store: Store
    /// Builds the adapter for one case.
    public var make: @Sendable (ConformanceEnvironment) throws -> any StoreAdapter

    /// Creates a factory.
    public init(store: Store, make: @escaping @Sendable (ConformanceEnvironment) throws -> any StoreAdapter) {
        self.store = store
        self.make = make
    }

    /// The five adapters of StoreAdapters, configured from the cassettes' `config`.
    public static let builtIn: [ConformanceAdapterFactory] = [apple, google, stripe, paypal, steam]

    /// App Store: `bundleId`, `issuerId`, `keyId`, `privateKey` (PEM), `productionPath`, `sandboxPath`. Both
    /// environments are accepted (the catalogue checks that sandbox purchases are reported as such); an app's own
    /// configuration defaults to production only.
    public static let apple = ConformanceAdapterFactory(store: .apple) { environment in
        let credentials = try AppleStoreAdapter.APICredentials(
            issuerId: environment.string("issuerId"),
            keyId: environment.string("keyId"),
            privateKeyPEM: Secret(environment.string("privateKey"))
        )
        return AppleStoreAdapter(
            configuration: .init(
                bundleId: try environment.string("bundleId"),
                rootCertificates: [environment.credentials.appleCA.rootCertificate],
                environment: nil,
                validationTime: .signedDate,
                apiCredentials: credentials,
                productionBaseURL: environment.url(path: environment.optionalString("productionPath") ?? "/production"),
                sandboxBaseURL: environment.url(path: environment.optionalString("sandboxPath") ?? "/sandbox"),
                httpClient: environment.httpClient
            )
        )
    }

    /// Google Play: `packageName`, `tokenPath`, `clientEmail`, optional `serviceAccountKey` (PEM; default the
    /// run's registered key), `consultVoidedPurchases` (true: ask the Voided Purchases API too).
    public static let google = ConformanceAdapterFactory(store: .google) { environment in
        let tokenURL = environment.url(path: environment.optionalString("tokenPath") ?? "/token")
        let account = GoogleServiceAccount(
            projectId: "opencat-conformance",
            privateKeyId: "conformance-key",
            privateKey: Secret(
                environment.optionalString("serviceAccountKey")
                    ?? environment.credentials.googleKey.pemRepresentation
            ),
            clientEmail: try environment.string("clientEmail"),
            tokenURI: tokenURL
        )
        var configuration = try GooglePlayAdapter.Configuration(
            packageName: try environment.string("packageName"),
            serviceAccount: account,
            baseURL: environment.baseURL,
            tokenURL: tokenURL,
            httpClient: environment.httpClient
        )
        configuration.consultVoidedPurchases = environment.config["consultVoidedPurchases"] == .bool(true)
        return GooglePlayAdapter(configuration: configuration)
    }

    /// Stripe: `secretKey`, `apiVersion`, `pastDue` (`billingRetry` or `gracePeriod`), `captureAuthorized`,
    /// `appMetadataKey` and `appId`.
    public static let stripe = ConformanceAdapterFactory(store: .stripe) { environment in
        let pastDue: StripeAdapter.PastDuePolicy
        switch environment.optionalString("pastDue") ?? "billingRetry" {
        case "billingRetry": pastDue = .billingRetry
        case "gracePeriod": pastDue = .gracePeriod
        case let other: throw ConformanceError("config.pastDue: \(other) is neither billingRetry nor gracePeriod")
        }
        var configuration = StripeAdapter.Configuration(
            secretKey: Secret(try environment.string("secretKey")),
            apiVersion: environment.optionalString("apiVersion") ?? StripeAdapter.Configuration.defaultAPIVersion,
            baseURL: environment.baseURL,
            httpClient: environment.httpClient,
            pastDue: pastDue
        )
        configuration.captureAuthorized = environment.config["captureAuthorized"] == .bool(true)
        configuration.appMetadataKey = environment.optionalString("appMetadataKey")
        configuration.appId = environment.optionalString("appId")
        return StripeAdapter(configuration: configuration)
    }

    /// PayPal: `clientId`, `clientSecret`, `environment` (`live` | `sandbox`), `payeeMerchantId`, `subscriptionPlans` (plan id → product id) and `prices`
    /// (product id → `{"amount": "5.00", "currency": "USD"}`).
    public static let paypal = ConformanceAdapterFactory(store: .paypal) { environment in
        var prices: [String: Money] = [:]
        if case .object(let entries)? = environment.config["prices"] {
            for (product, price) in entries {
                guard let amount = price["amount"]?.stringValue, let currency = price["currency"]?.stringValue,
                    let money = Money(decimalString: amount, currency: currency)
                else {
                    throw ConformanceError(
                        "config.prices.\(product): expected {\"amount\": \"5.00\", \"currency\": \"USD\"}"
                    )
                }
                prices[product] = money
            }
        }
        var plans: [String: String] = [:]
        if case .object(let entries)? = environment.config["subscriptionPlans"] {
            for (plan, product) in entries {
                guard let product = product.stringValue else {
                    throw ConformanceError("config.subscriptionPlans.\(plan): expected a product id")
                }
                plans[plan] = product
            }
        }
        return PayPalAdapter(
            configuration: .init(
                clientId: try environment.string("clientId"),
                clientSecret: Secret(try environment.string("clientSecret")),
                environment: environment.optionalString("environment") == "sandbox" ? .sandbox : .live,
                payeeMerchantId: try environment.string("payeeMerchantId"),
                prices: prices,
                baseURL: environment.baseURL,
                httpClient: environment.httpClient,
                subscriptionPlans: plans
            )
        )
    }

    /// Steam: `appId`, `publisherKey`, `sandbox`.
    public static let steam = ConformanceAdapterFactory(store: .steam) { environment in
        guard let appId = environment.config["appId"]?.int64Value.flatMap(UInt32.init(exactly:)) else {
            throw ConformanceError("config.appId: expected a 32-bit unsigned integer")
        }
        let sandbox: Bool
        if case .bool(let value)? = environment.config["sandbox"] { sandbox = value } else { sandbox = false }
        return SteamAdapter(
            configuration: .init(
                appId: appId,
                publisherKey: Secret(try environment.string("publisherKey")),
                sandbox: sandbox,
                baseURL: environment.baseURL,
                httpClient: environment.httpClient
            )
        )
    }
}

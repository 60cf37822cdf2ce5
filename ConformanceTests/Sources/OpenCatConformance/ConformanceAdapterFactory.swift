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

    /// An environment (the suite makes one per case; an adapter author's test may make one to build an adapter).
    public init(baseURL: URL, config: [String: JSONValue], credentials: ConformanceCredentials, httpClient: HTTPClient)
    {
        self.baseURL = baseURL
        self.config = config
        self.credentials = credentials
        self.httpClient = httpClient
    }

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

/// Builds a `StoreAdapter` for a case: how the suite runs the five built-in adapters, and how an adapter author
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
    public static let apple = configured(.apple) { environment, settings in
        settings["productionBaseURL"] = .string(
            environment.url(path: environment.optionalString("productionPath") ?? "/production").absoluteString
        )
        settings["sandboxBaseURL"] = .string(
            environment.url(path: environment.optionalString("sandboxPath") ?? "/sandbox").absoluteString
        )
        let der = environment.credentials.appleCA.rootCertificateDER
        let pem = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        settings["rootCertificates"] = [.string("-----BEGIN CERTIFICATE-----\n\(pem)\n-----END CERTIFICATE-----\n")]
        settings["environment"] = "any"
        settings["validationTime"] = "signed-date"
    }

    /// Google Play: `packageName`, `tokenPath`, `clientEmail`, optional `serviceAccountKey` (PEM; default the
    /// run's registered key), `consultVoidedPurchases` (true: ask the Voided Purchases API too).
    public static let google = configured(.google) { environment, settings in
        let tokenURL = environment.url(path: environment.optionalString("tokenPath") ?? "/token").absoluteString
        let key: JSONValue = [
            "type": "service_account",
            "project_id": "opencat-conformance",
            "private_key_id": "conformance-key",
            "private_key": .string(
                environment.optionalString("serviceAccountKey") ?? environment.credentials.googleKey.pemRepresentation
            ),
            "client_email": .string(try environment.string("clientEmail")),
            "token_uri": .string(tokenURL),
        ]
        settings["serviceAccount"] = .string(key.canonicalText)
        settings["tokenURL"] = .string(tokenURL)
    }

    /// Stripe: `secretKey`, `apiVersion`, `pastDue` (`billingRetry` or `gracePeriod`), `captureAuthorized`,
    /// `appMetadataKey` and `appId`.
    public static let stripe = configured(.stripe) { _, _ in }

    /// PayPal: `clientId`, `clientSecret`, `environment` (`live` | `sandbox`), `payeeMerchantId`,
    /// `subscriptionPlans` (plan id → product id) and `prices` (product id → `{"amount": "5.00", "currency": "USD"}`).
    public static let paypal = configured(.paypal) { _, _ in }

    /// Steam: `appId`, `publisherKey`, `sandbox`.
    public static let steam = configured(.steam) { _, _ in }

    /// A built-in adapter made through `StoreAdapterConfiguration` (the path a server's configuration and the
    /// command line take too): the cassette's `config` as the settings, secrets inline, the mock server as every
    /// `baseURL`, after `adjust` has mapped the cassette's own keys.
    /// - Parameters:
    ///   - store: the store.
    ///   - adjust: maps cassette keys (paths on the mock server, the run's credentials) onto settings keys.
    /// - Returns: the factory.
    public static func configured(
        _ store: Store,
        adjust: @escaping @Sendable (ConformanceEnvironment, inout [String: JSONValue]) throws -> Void
    ) -> ConformanceAdapterFactory {
        ConformanceAdapterFactory(store: store) { environment in
            var settings = environment.config
            settings["baseURL"] = .string(environment.baseURL.absoluteString)
            try adjust(environment, &settings)
            let context = StoreAdapterConfiguration.Context(
                httpClient: environment.httpClient,
                allowsInlineSecrets: true
            )
            do throws(StoreAdapterError) {
                return try StoreAdapterConfiguration(store: store, settings: settings).makeAdapter(context)
            } catch {
                if error.code == .misconfigured { throw ConformanceError("config.\(error.message)") }
                throw error
            }
        }
    }
}

public import Foundation
public import Logging
public import OpenCatCore
public import StoreAdapters
import SwiftASN1
import X509

/// The server's configuration file (`opencat-server --config FILE`): users, key packs, apps, signing keys,
/// the OpenCat API and the stores. It holds no secret: store credentials come from environment variables or
/// owner-only files it names, bearer tokens and API keys appear only as SHA-256 hashes, signing keys live in their
/// own folder. Relative paths are relative to the file. See Tools/server/README.md.
public struct ServerConfigurationFile: Sendable, Decodable {
    public struct SigningKeys: Sendable, Decodable {
        public var folder: String
        public var activeKid: String
    }

    public struct OpenCatAPI: Sendable, Decodable {
        /// The public app keys (in every copy of the app): post receipts, read current entitlements.
        public var apiKeySHA256: [String]
        /// The secret keys (the app's backend): also read every subscriber's history.
        public var secretKeySHA256: [String]?
        /// Whether an Apple signed transaction must carry the app user's `appAccountToken` (default false: checked
        /// when present).
        public var requireAppleAccountToken: Bool?
        public var entitlements: [String: [String]]?
        /// A JSON file with the offerings (`{"currentOfferingId": …, "all": {…}}`).
        public var offeringsFile: String?
    }

    public struct Apple: Sendable, Decodable {
        public var bundleId: String
        /// DER files of the roots to trust (Apple Root CA - G3 from apple.com/certificateauthority).
        public var rootCertificates: [String]
        /// `production` (default) or `sandbox`.
        public var environment: String?
        public var appAppleId: Int64?
        public var issuerId: String?
        public var keyId: String?
        /// The App Store Connect API key (`.p8`), for transaction-id and subscription-status lookups.
        public var privateKeyFile: String?
        public var productionBaseURL: String?
        public var sandboxBaseURL: String?
    }

    public struct Google: Sendable, Decodable {
        public var packageName: String
        /// The service account's JSON key file.
        public var serviceAccountFile: String
        public var baseURL: String?
        public var tokenURL: String?
        /// The environment variable holding the Pub/Sub push token (`?token=` on the push endpoint).
        public var pushTokenEnv: String?
    }

    public struct Stripe: Sendable, Decodable {
        /// The environment variable holding the secret key; or
        public var secretKeyEnv: String?
        /// an owner-only file holding it (a mounted secret).
        public var secretKeyFile: String?
        public var webhookSecretEnv: String?
        public var baseURL: String?
        /// When one Stripe account sells for several apps: the metadata key naming the app, and this app's value.
        public var appMetadataKey: String?
        public var appId: String?
        /// Product id → `{"amount": "9.99", "currency": "USD"}`: a PaymentIntent must charge exactly this per unit.
        public var prices: [String: [String: String]]?
    }

    public struct PayPal: Sendable, Decodable {
        public var clientId: String
        public var clientSecretEnv: String
        /// `live` (default) or `sandbox`.
        public var environment: String?
        public var payeeMerchantId: String
        /// Product id → `{"amount": "4.99", "currency": "USD"}`.
        public var prices: [String: [String: String]]
        /// Product id → PayPal billing plan id (`P-…`): a subscription on another plan is refused.
        public var subscriptionPlans: [String: String]?
        public var webhookId: String?
        public var baseURL: String?
    }

    public struct Steam: Sendable, Decodable {
        public var appId: UInt32
        public var publisherKeyEnv: String
        public var sandbox: Bool?
        public var baseURL: String?
        /// How often the refund report (`GetReport`) is read, in seconds (default 3600; 0: never).
        public var refundReportSeconds: Int?
    }

    public struct Stores: Sendable, Decodable {
        public var apple: Apple?
        public var google: Google?
        public var stripe: Stripe?
        public var paypal: PayPal?
        public var steam: Steam?
    }

    /// A JSON array of ``ServerUser`` (token hashes).
    public var usersFile: String?
    public var signingKeys: SigningKeys?
    public var keyPacks: [String: KeyPack]?
    public var apps: [String: [FeatureSetting]]?
    public var syncRateLimit: RateLimit?
    public var openCat: OpenCatAPI?
    public var stores: Stores?
    /// Store (or `*`) → the environments whose purchases credit anything (`production`, `sandbox`); default
    /// production only.
    public var acceptedEnvironments: [String: [String]]?
    /// Calls that reach a store's API, per user (or app user, or API key) and instance.
    public var storeRateLimit: RateLimit?
    /// How long a connection may stay idle, or a request half-sent, before it is closed (default 30).
    public var idleTimeoutSeconds: Int?

    /// The folder relative paths resolve against.
    var base = URL(fileURLWithPath: ".")

    enum CodingKeys: String, CodingKey {
        case usersFile, signingKeys, keyPacks, apps, syncRateLimit, openCat, stores, acceptedEnvironments
        case storeRateLimit, idleTimeoutSeconds
    }

    /// Reads a configuration file.
    public init(file: URL) throws(ServerConfigurationError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw ServerConfigurationError(
                "\(file.lastPathComponent) is not a server configuration: \(Self.summary(error))"
            )
        } catch {
            throw ServerConfigurationError("\(file.path) cannot be read")
        }
        base = file.deletingLastPathComponent()
    }

    static func summary(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "bad value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: "unreadable"
        }
    }

    func path(_ text: String) -> URL {
        text.hasPrefix("/") ? URL(fileURLWithPath: text) : base.appendingPathComponent(text)
    }

    static func secret(env name: String, _ environment: [String: String]) throws(ServerConfigurationError)
        -> Secret<String>
    {
        guard let value = environment[name], !value.isEmpty else {
            throw ServerConfigurationError("the environment variable \(name) is not set")
        }
        return Secret(value)
    }

    static func url(_ text: String?, default fallback: URL) throws(ServerConfigurationError) -> URL {
        guard let text else { return fallback }
        guard let url = URL(string: text), url.scheme == "https" || url.host == "127.0.0.1" || url.host == "localhost"
        else { throw ServerConfigurationError("\(text): store URLs are https (or loopback, for mock stores)") }
        return url
    }

    /// The settings, reading the files it names.
    public func settings(environment: [String: String]) throws(ServerConfigurationError) -> ServerSettings {
        var users = BearerTokens(users: [])
        if let usersFile { users = try BearerTokens(file: path(usersFile)) }
        var keyring: LicenseKeyring?
        if let signingKeys {
            keyring = try LicenseKeyring(folder: path(signingKeys.folder), activeKid: signingKeys.activeKid)
        }
        var openCatSettings: OpenCatAPISettings?
        if let api = openCat {
            var offerings = Offerings(currentOfferingId: nil, all: [:])
            if let file = api.offeringsFile {
                do { offerings = try JSONDecoder().decode(Offerings.self, from: Data(contentsOf: path(file))) } catch {
                    throw ServerConfigurationError("\(file) is not an offerings file")
                }
            }
            openCatSettings = OpenCatAPISettings(
                apiKeySHA256: Set(api.apiKeySHA256),
                entitlements: api.entitlements ?? [:],
                offerings: offerings
            )
            openCatSettings?.secretKeySHA256 = Set((api.secretKeySHA256 ?? []).map { $0.lowercased() })
        }
        for (product, pack) in keyPacks ?? [:]
        where pack.keys < 0 || pack.bonusKeys < 0 || pack.communityKeys < 0
            || pack.licenses < 0 || pack.licenses > 100
        {
            throw ServerConfigurationError("keyPacks.\(product): counts are 0 or more (at most 100 licenses)")
        }
        var settings = ServerSettings(
            users: users,
            keyPacks: keyPacks ?? [:],
            apps: apps ?? [:],
            keyring: keyring,
            syncRateLimit: syncRateLimit ?? RateLimit(requests: 10, seconds: 60),
            openCat: openCatSettings,
            googlePushToken: stores?.google?.pushTokenEnv.flatMap { environment[$0] }
        )
        settings.acceptedEnvironments = try Self.environments(acceptedEnvironments ?? [:])
        if let storeRateLimit {
            guard storeRateLimit.requests > 0, storeRateLimit.seconds > 0 else {
                throw ServerConfigurationError("storeRateLimit: requests and seconds are 1 or more")
            }
            settings.storeRateLimit = storeRateLimit
        }
        if let idleTimeoutSeconds {
            guard (1...3_600).contains(idleTimeoutSeconds) else {
                throw ServerConfigurationError("idleTimeoutSeconds: 1…3600")
            }
            settings.idleTimeoutSeconds = idleTimeoutSeconds
        }
        settings.requireAppleAccountToken = openCat?.requireAppleAccountToken ?? false
        if let seconds = stores?.steam?.refundReportSeconds {
            guard seconds == 0 || seconds >= 60 else {
                throw ServerConfigurationError("stores.steam.refundReportSeconds: 0 (never) or 60 or more")
            }
            settings.steamReconciliationSeconds = seconds == 0 ? nil : seconds
        }
        settings.stripePrices = try Self.prices(stores?.stripe?.prices ?? [:], field: "stores.stripe.prices")
        return settings
    }

    /// Store → accepted environments, from the file's names (`*` sets every store not named).
    static func environments(_ file: [String: [String]]) throws(ServerConfigurationError)
        -> [Store: Set<VerifiedPurchase.Environment>]
    {
        var accepted: [Store: Set<VerifiedPurchase.Environment>] = [:]
        let stores: [Store] = [.apple, .google, .stripe, .paypal, .steam]
        for (name, environments) in file {
            var set: Set<VerifiedPurchase.Environment> = []
            for environment in environments {
                guard let value = VerifiedPurchase.Environment(rawValue: environment) else {
                    throw ServerConfigurationError(
                        "acceptedEnvironments.\(name): \(environment) is not production or sandbox"
                    )
                }
                set.insert(value)
            }
            if name == "*" {
                for store in stores where file[store.rawValue] == nil { accepted[store] = set }
            } else {
                guard stores.contains(Store(rawValue: name)) else {
                    throw ServerConfigurationError("acceptedEnvironments.\(name) is not a store")
                }
                accepted[Store(rawValue: name)] = set
            }
        }
        return accepted
    }

    /// Product id → price, from `{"amount": "4.99", "currency": "USD"}` objects.
    static func prices(_ file: [String: [String: String]], field: String) throws(ServerConfigurationError)
        -> [String: Money]
    {
        var prices: [String: Money] = [:]
        for (product, price) in file {
            guard let amount = price["amount"], let currency = price["currency"],
                let money = Money(decimalString: amount, currency: currency)
            else { throw ServerConfigurationError("\(field).\(product): amount and currency") }
            prices[product] = money
        }
        return prices
    }

    /// The store adapters and webhook verifiers the file configures.
    public func adapters(environment: [String: String], httpClient: HTTPClient, logger: Logger)
        throws(ServerConfigurationError) -> (
            adapters: [any StoreAdapter], stripeWebhooks: StripeWebhookVerifier?, payPalWebhooks: PayPalWebhookVerifier?
        )
    {
        var adapters: [any StoreAdapter] = []
        var stripeWebhooks: StripeWebhookVerifier?
        var payPalWebhooks: PayPalWebhookVerifier?
        // Where the configuration is being read, for an error that names the store and the field.
        var field = "stores"
        do {
            if let apple = stores?.apple {
                field = "stores.apple.rootCertificates"
                let roots = try apple.rootCertificates.map { file in
                    try Certificate(derEncoded: Array(Data(contentsOf: path(file))))
                }
                var credentials: AppleStoreAdapter.APICredentials?
                field = "stores.apple.privateKeyFile"
                if let issuer = apple.issuerId, let keyId = apple.keyId, let keyFile = apple.privateKeyFile {
                    try LicenseKeyring.checkOwnerOnly(path(keyFile))
                    credentials = try AppleStoreAdapter.APICredentials(
                        issuerId: issuer,
                        keyId: keyId,
                        privateKeyPEM: Secret(String(contentsOf: path(keyFile), encoding: .utf8))
                    )
                }
                field = "stores.apple.productionBaseURL / sandboxBaseURL"
                adapters.append(
                    AppleStoreAdapter(
                        configuration: .init(
                            bundleId: apple.bundleId,
                            rootCertificates: roots,
                            environment: apple.environment == "sandbox" ? .sandbox : .production,
                            appAppleId: apple.appAppleId,
                            validationTime: .now,
                            apiCredentials: credentials,
                            productionBaseURL: try Self.url(
                                apple.productionBaseURL,
                                default: AppleStoreAdapter.Configuration.defaultProductionBaseURL
                            ),
                            sandboxBaseURL: try Self.url(
                                apple.sandboxBaseURL,
                                default: AppleStoreAdapter.Configuration.defaultSandboxBaseURL
                            ),
                            httpClient: httpClient
                        )
                    )
                )
            }
            if let google = stores?.google {
                field = "stores.google.serviceAccountFile"
                try LicenseKeyring.checkOwnerOnly(path(google.serviceAccountFile))
                let account = try GoogleServiceAccount(jsonData: Data(contentsOf: path(google.serviceAccountFile)))
                field = "stores.google (packageName, baseURL, tokenURL)"
                adapters.append(
                    GooglePlayAdapter(
                        configuration: try .init(
                            packageName: google.packageName,
                            serviceAccount: account,
                            baseURL: try Self.url(
                                google.baseURL,
                                default: GooglePlayAdapter.Configuration.defaultBaseURL
                            ),
                            tokenURL: try google.tokenURL.map { try Self.url($0, default: account.tokenURI) },
                            httpClient: httpClient
                        )
                    )
                )
            }
            if let stripe = stores?.stripe {
                field = stripe.secretKeyFile == nil ? "stores.stripe.secretKeyEnv" : "stores.stripe.secretKeyFile"
                let secretKey: Secret<String>
                if stripe.secretKeyFile != nil, stripe.secretKeyEnv != nil {
                    throw ServerConfigurationError("stores.stripe: set secretKeyEnv or secretKeyFile, not both")
                }
                if let file = stripe.secretKeyFile {
                    try LicenseKeyring.checkOwnerOnly(path(file))
                    let text = try String(contentsOf: path(file), encoding: .utf8)
                    secretKey = Secret(text.trimmingCharacters(in: .whitespacesAndNewlines))
                } else if let name = stripe.secretKeyEnv {
                    secretKey = try Self.secret(env: name, environment)
                } else {
                    throw ServerConfigurationError("stores.stripe: set secretKeyEnv or secretKeyFile")
                }
                field = "stores.stripe.baseURL"
                var stripeConfiguration = StripeAdapter.Configuration(
                    secretKey: secretKey,
                    baseURL: try Self.url(stripe.baseURL, default: StripeAdapter.Configuration.productionBaseURL),
                    httpClient: httpClient,
                    logger: logger
                )
                field = "stores.stripe.appMetadataKey / appId"
                if (stripe.appMetadataKey == nil) != (stripe.appId == nil) {
                    throw ServerConfigurationError("stores.stripe: set appMetadataKey and appId together")
                }
                stripeConfiguration.appMetadataKey = stripe.appMetadataKey
                stripeConfiguration.appId = stripe.appId
                adapters.append(StripeAdapter(configuration: stripeConfiguration))
                if let name = stripe.webhookSecretEnv {
                    field = "stores.stripe.webhookSecretEnv"
                    stripeWebhooks = try StripeWebhookVerifier(secret: try Self.secret(env: name, environment))
                }
            }
            if let paypal = stores?.paypal {
                field = "stores.paypal"
                let prices = try Self.prices(paypal.prices, field: "stores.paypal.prices")
                var payPalConfiguration = PayPalAdapter.Configuration(
                    clientId: paypal.clientId,
                    clientSecret: try Self.secret(env: paypal.clientSecretEnv, environment),
                    environment: paypal.environment == "sandbox" ? .sandbox : .live,
                    payeeMerchantId: paypal.payeeMerchantId,
                    prices: prices,
                    baseURL: try paypal.baseURL.map {
                        try Self.url($0, default: URL(string: "https://api-m.paypal.com")!)
                    },
                    webhookId: paypal.webhookId,
                    httpClient: httpClient,
                    logger: logger
                )
                payPalConfiguration.subscriptionPlans = paypal.subscriptionPlans ?? [:]
                let adapter = PayPalAdapter(configuration: payPalConfiguration)
                adapters.append(adapter)
                field = "stores.paypal.webhookId"
                if paypal.webhookId != nil { payPalWebhooks = try adapter.webhookVerifier() }
            }
            if let steam = stores?.steam {
                field = "stores.steam"
                adapters.append(
                    SteamAdapter(
                        configuration: .init(
                            appId: steam.appId,
                            publisherKey: try Self.secret(env: steam.publisherKeyEnv, environment),
                            sandbox: steam.sandbox ?? false,
                            baseURL: try Self.url(steam.baseURL, default: SteamAdapter.Configuration.defaultBaseURL),
                            httpClient: httpClient
                        )
                    )
                )
            }
        } catch let error as ServerConfigurationError {
            throw error.message.hasPrefix("stores.") ? error : ServerConfigurationError("\(field): \(error.message)")
        } catch let error as StoreAdapterError {
            throw ServerConfigurationError("\(field): \(error.message) (\(error.code))")
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw ServerConfigurationError("\(field): a file it names does not exist")
        } catch {
            throw ServerConfigurationError("\(field): a file it names cannot be read or is not the expected format")
        }
        return (adapters, stripeWebhooks, payPalWebhooks)
    }
}

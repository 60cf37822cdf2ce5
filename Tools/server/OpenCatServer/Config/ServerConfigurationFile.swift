public import Foundation
import HTTPTypes
public import Logging
public import OpenCatCore
public import StoreAdapters

/// The server's configuration file (`opencat-server --config FILE`): users, key packs, apps, signing keys,
/// the OpenCat API and the stores. It holds no secret: store credentials come from environment variables or
/// owner-only files it names, bearer tokens and API keys appear only as SHA-256 hashes, signing keys live in their
/// own folder. Relative paths are relative to the file. See Tools/server/README.md.
public struct ServerConfigurationFile: Sendable, Decodable {
    /// Where the license signing keys live (`signingKeys`): a folder of key files, and which one signs new licenses.
    public struct SigningKeys: Sendable, Decodable {
        /// The folder of signing key files (relative to the configuration file).
        public var folder: String
        /// The key id (`kid`, a `<kid>.ed25519` file of the folder) that signs new licenses.
        public var activeKid: String
    }

    /// The OpenCat API's section (`openCat`): app keys by hash, entitlements and offerings.
    public struct OpenCatAPI: Sendable, Decodable {
        /// The public app keys (in every copy of the app): post receipts, read current entitlements.
        public var apiKeySHA256: [String]
        /// The secret keys (the app's backend): also read every subscriber's history.
        public var secretKeySHA256: [String]?
        /// Whether an Apple signed transaction must carry the app user's `appAccountToken` (default false: checked
        /// when present).
        public var requireAppleAccountToken: Bool?
        /// Product id → the entitlement ids a purchase of it unlocks.
        public var entitlements: [String: [String]]?
        /// A JSON file with the offerings (`{"currentOfferingId": …, "all": {…}}`).
        public var offeringsFile: String?
    }

    /// A JSON array of ``ServerUser`` (token hashes).
    public var usersFile: String?
    /// The license signing keys; without them key packs mint no license.
    public var signingKeys: SigningKeys?
    /// Store product id → the key pack a purchase of it credits.
    public var keyPacks: [String: KeyPack]?
    /// App id → the features it sells for keys.
    public var apps: [String: [FeatureSetting]]?
    /// The limit on key sync per user and instance (default 10 requests per 60 seconds).
    public var syncRateLimit: RateLimit?
    /// The OpenCat API; absent, the server does not serve it.
    public var openCat: OpenCatAPI?
    /// Store (`Store.known` raw value) → its adapter's settings (``StoreAdapterConfiguration``: the keys each
    /// adapter documents; secrets by `…Env` or `…File`, never inline), with the server's own keys beside them:
    /// `google.pushTokenEnv`, `stripe.webhookSecretEnv`, `stripe.prices` (key purchases), `steam.refundReportSeconds`,
    /// `steam.ticketIdentity`, `apple.rereadNotifications`.
    public var stores: [String: [String: JSONValue]]?
    /// Store (or `*`) → the environments whose purchases credit anything (`production`, `sandbox`); default
    /// production only.
    public var acceptedEnvironments: [String: [String]]?
    /// Calls that reach a store's API, per user (or app user, or API key) and instance.
    public var storeRateLimit: RateLimit?
    /// How long a connection may stay idle, or a request half-sent, before it is closed (default 30).
    public var idleTimeoutSeconds: Int?
    /// Receipts one client address may post with the public app key, per instance (default 120 a minute).
    public var clientRateLimit: RateLimit?
    /// The ceiling on receipts per API key, per instance (default 10,000 a minute).
    public var apiKeyRateLimit: RateLimit?
    /// The header a trusted reverse proxy writes the client's address to (`X-Forwarded-For`); absent: the peer.
    public var clientAddressHeader: String?
    /// Sign-in links and operator sign-ins: `perClientAndEmail`, `perClient`, `perEmail`.
    public var signInRateLimit: SignInRateLimit?
    /// How many days a device may trust a key-pack license without syncing (default 30; renewed at every sync).
    public var licenseOfflineDays: Int?

    /// The web portal and the operator console (`portal`); absent, neither is served.
    public struct Portal: Sendable, Decodable {
        /// The mail sender: `{"file": "mail.jsonl"}` writes each mail to an owner-only file (development).
        public struct Mail: Sendable, Decodable {
            /// The file (relative to the configuration file).
            public var file: String?
        }
        /// The address users reach the server at.
        public var publicURL: String
        /// The key packs sold on the web.
        public var products: [PortalSettings.Product]?
        /// The console's operators (token hashes).
        public var operators: [PortalSettings.Operator]?
        /// How mails are sent (default: a `portal-mail.jsonl` file beside the configuration).
        public var mail: Mail?
        /// Extra origins of hosted checkout pages forms may go to.
        public var checkoutOrigins: [String]?
    }

    /// The web portal and console; absent, neither is served.
    public var portal: Portal?

    /// Events out (`webhooks`): endpoints registered by the file, development mode, timeouts and retries.
    public struct Webhooks: Sendable, Decodable {
        /// An endpoint: `id`, `app`, `url`, `events` (absent: all), and its `whsec_` secret from a file or an
        /// environment variable (never in the file itself).
        public struct Endpoint: Sendable, Decodable {
            public var id: String
            public var app: String?
            public var url: String
            public var events: [String]?
            public var secretFile: String?
            public var secretEnv: String?
        }

        public var endpoints: [Endpoint]?
        /// Development only: `http`, loopback and private addresses allowed (default false).
        public var allowPrivateNetworks: Bool?
        public var timeoutSeconds: Int?
        public var retryHours: Int?
        public var disableAfterDays: Int?
        public var rotationOverlapHours: Int?
    }

    /// Events out; absent: endpoints come only from the console.
    public var webhooks: Webhooks?

    /// The folder relative paths resolve against.
    var base = URL(fileURLWithPath: ".")

    enum CodingKeys: String, CodingKey {
        case usersFile, signingKeys, keyPacks, apps, syncRateLimit, openCat, stores, acceptedEnvironments
        case storeRateLimit, idleTimeoutSeconds, portal, clientRateLimit, apiKeyRateLimit, clientAddressHeader
        case signInRateLimit, licenseOfflineDays, webhooks
    }

    /// Reads a configuration file.
    public init(file: URL) throws(ServerConfigurationError) {
        do {
            self = try JSONCoding.decoder.decode(Self.self, from: Data(contentsOf: file))
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

    /// The settings, reading the files it names.
    public func settings(environment: [String: String]) throws(ServerConfigurationError) -> ServerSettings {
        var users = BearerTokens(users: [])
        if let usersFile { users = try BearerTokens(file: path(usersFile)) }
        var keyring: LicenseKeyring?
        if let signingKeys {
            keyring = try LicenseKeyring(folder: path(signingKeys.folder), activeKid: signingKeys.activeKid)
        }
        let openCatSettings = try openCatAPISettings()
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
            googlePushToken: try storeSettings(.google).optionalString("pushTokenEnv").flatMap { environment[$0] }
        )
        settings.acceptedEnvironments = try Self.environments(acceptedEnvironments ?? [:])
        try applyLimits(to: &settings)
        settings.requireAppleAccountToken = openCat?.requireAppleAccountToken ?? false
        try applyStoreKeys(to: &settings)
        settings.portal = try portalSettings(keyPacks: settings.keyPacks)
        settings.webhooks = try webhookSettings(environment: environment)
        return settings
    }

    /// The `webhooks` section: every endpoint's URL checked (SSRF) and secret read, the numbers in range.
    func webhookSettings(environment: [String: String]) throws(ServerConfigurationError) -> WebhookSettings {
        var settings = WebhookSettings()
        guard let webhooks else { return settings }
        settings.allowPrivateNetworks = webhooks.allowPrivateNetworks ?? false
        settings.timeoutSeconds = webhooks.timeoutSeconds ?? settings.timeoutSeconds
        settings.retryHours = webhooks.retryHours ?? settings.retryHours
        settings.disableAfterDays = webhooks.disableAfterDays ?? settings.disableAfterDays
        settings.rotationOverlapHours = webhooks.rotationOverlapHours ?? settings.rotationOverlapHours
        guard (1...120).contains(settings.timeoutSeconds), (24...720).contains(settings.retryHours),
            (1...90).contains(settings.disableAfterDays), (0...720).contains(settings.rotationOverlapHours)
        else {
            throw ServerConfigurationError(
                "webhooks: timeoutSeconds 1…120, retryHours 24…720, disableAfterDays 1…90, rotationOverlapHours 0…720"
            )
        }
        let policy = WebhookAddressPolicy(allowPrivateNetworks: settings.allowPrivateNetworks)
        for endpoint in webhooks.endpoints ?? [] {
            settings.endpoints.append(try configuredEndpoint(endpoint, policy: policy, environment: environment))
        }
        guard Set(settings.endpoints.map(\.id)).count == settings.endpoints.count else {
            throw ServerConfigurationError("webhooks.endpoints: every id once")
        }
        return settings
    }

    func configuredEndpoint(
        _ endpoint: Webhooks.Endpoint,
        policy: WebhookAddressPolicy,
        environment: [String: String]
    ) throws(ServerConfigurationError) -> WebhookSettings.ConfiguredEndpoint {
        let name = "webhooks.endpoints.\(endpoint.id)"
        guard !endpoint.id.isEmpty, endpoint.id.utf8.count <= 64 else {
            throw ServerConfigurationError("webhooks.endpoints: an id of 1 to 64 characters")
        }
        do { _ = try policy.check(endpoint.url) } catch {
            throw ServerConfigurationError("\(name).url: \(error.message)")
        }
        var text: String?
        if let file = endpoint.secretFile {
            text = (try? String(contentsOf: path(file), encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines
            )
        } else if let variable = endpoint.secretEnv {
            text = environment[variable]
        }
        guard let text, (try? StandardWebhookSecret(text)) != nil, text.hasPrefix(StandardWebhookSecret.prefix) else {
            throw ServerConfigurationError("\(name): secretFile or secretEnv holds a whsec_ secret")
        }
        let known = Set(WebhookEventType.all.map(\.rawValue))
        if let unknown = endpoint.events?.first(where: { !known.contains($0) }) {
            throw ServerConfigurationError("\(name).events: \(unknown) is not an event type")
        }
        return WebhookSettings.ConfiguredEndpoint(
            id: endpoint.id,
            app: endpoint.app ?? "default",
            url: endpoint.url,
            eventTypes: endpoint.events.map { $0.map(WebhookEventType.init(rawValue:)) },
            secret: Secret(text)
        )
    }

    /// The OpenCat API's settings (keys by hash, entitlements, the offerings file), or nil when the file has none.
    func openCatAPISettings() throws(ServerConfigurationError) -> OpenCatAPISettings? {
        guard let api = openCat else { return nil }
        var offerings = Offerings(currentOfferingId: nil, all: [:])
        if let file = api.offeringsFile {
            do { offerings = try JSONCoding.decoder.decode(Offerings.self, from: Data(contentsOf: path(file))) } catch {
                throw ServerConfigurationError("\(file) is not an offerings file")
            }
        }
        var settings = OpenCatAPISettings(
            apiKeySHA256: Set(api.apiKeySHA256),
            entitlements: api.entitlements ?? [:],
            offerings: offerings
        )
        settings.secretKeySHA256 = Set((api.secretKeySHA256 ?? []).map { $0.lowercased() })
        return settings
    }

    /// The rate limits, timeouts and proxy header, each checked.
    func applyLimits(to settings: inout ServerSettings) throws(ServerConfigurationError) {
        if let storeRateLimit {
            guard storeRateLimit.requests > 0, storeRateLimit.seconds > 0 else {
                throw ServerConfigurationError("storeRateLimit: requests and seconds are 1 or more")
            }
            settings.storeRateLimit = storeRateLimit
        }
        for (name, limit) in [("clientRateLimit", clientRateLimit), ("apiKeyRateLimit", apiKeyRateLimit)] {
            guard let limit else { continue }
            guard limit.requests > 0, limit.seconds > 0 else {
                throw ServerConfigurationError("\(name): requests and seconds are 1 or more")
            }
        }
        settings.clientRateLimit = clientRateLimit ?? settings.clientRateLimit
        settings.apiKeyRateLimit = apiKeyRateLimit ?? settings.apiKeyRateLimit
        if let signInRateLimit {
            guard signInRateLimit.isValid else {
                throw ServerConfigurationError("signInRateLimit: requests and seconds are 1 or more")
            }
            settings.signInRateLimit = signInRateLimit
        }
        if let licenseOfflineDays {
            guard (1...3_650).contains(licenseOfflineDays) else {
                throw ServerConfigurationError("licenseOfflineDays: 1…3650")
            }
            settings.licenseOfflineSeconds = TimeInterval(licenseOfflineDays) * 86_400
        }
        if let clientAddressHeader {
            guard HTTPField.Name(clientAddressHeader) != nil else {
                throw ServerConfigurationError("clientAddressHeader: a header name such as X-Forwarded-For")
            }
            settings.clientAddressHeader = clientAddressHeader
        }
        if let idleTimeoutSeconds {
            guard (1...3_600).contains(idleTimeoutSeconds) else {
                throw ServerConfigurationError("idleTimeoutSeconds: 1…3600")
            }
            settings.idleTimeoutSeconds = idleTimeoutSeconds
        }
    }

    /// The server's own keys beside the stores' adapter settings (`steam.refundReportSeconds`, `steam.ticketIdentity`,
    /// `apple.rereadNotifications`, `stripe.prices`).
    func applyStoreKeys(to settings: inout ServerSettings) throws(ServerConfigurationError) {
        if let seconds = try storeSettings(.steam).integer("refundReportSeconds", as: Int.self) {
            guard seconds == 0 || seconds >= 60 else {
                throw ServerConfigurationError("stores.steam.refundReportSeconds: 0 (never) or 60 or more")
            }
            settings.steamReconciliationSeconds = seconds == 0 ? nil : seconds
        }
        if let identity = try storeSettings(.steam).optionalString("ticketIdentity") {
            guard (1...256).contains(identity.count) else {
                throw ServerConfigurationError("stores.steam.ticketIdentity: 1 to 256 characters")
            }
            settings.steamTicketIdentity = identity
        }
        settings.appleRereadNotifications = try storeSettings(.apple).bool("rereadNotifications", default: false)
        guard !settings.appleRereadNotifications || stores?["apple"]?["issuerId"] != nil else {
            throw ServerConfigurationError(
                "stores.apple.rereadNotifications: needs the App Store Server API credentials (issuerId, keyId, privateKeyFile)"
            )
        }
        settings.stripePrices = try storeSettings(.stripe).prices("prices")
    }

    func portalSettings(keyPacks: [String: KeyPack]) throws(ServerConfigurationError) -> PortalSettings? {
        guard let portal else { return nil }
        guard let url = URL(string: portal.publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil
        else { throw ServerConfigurationError("portal.publicURL is an http(s) URL") }
        for product in portal.products ?? [] {
            guard keyPacks[product.productId] != nil else {
                throw ServerConfigurationError("portal.products: \(product.productId) is not a key pack")
            }
            guard let price = product.price, price.amount > 0 else {
                throw ServerConfigurationError("portal.products: \(product.productId)'s amount is a positive decimal")
            }
        }
        for item in portal.operators ?? [] where item.tokenSHA256.count != 64 || item.name.isEmpty {
            throw ServerConfigurationError("portal.operators: \(item.name) needs a name and a 64-hex tokenSHA256")
        }
        let mailFile = path(portal.mail?.file ?? "portal-mail.jsonl")
        var settings = PortalSettings(
            publicURL: url,
            products: portal.products ?? [],
            operators: (portal.operators ?? []).map {
                PortalSettings.Operator(name: $0.name, tokenSHA256: $0.tokenSHA256)
            },
            mail: FileMailSender(file: mailFile)
        )
        settings.checkoutOrigins += portal.checkoutOrigins ?? []
        return settings
    }

    /// A store's settings (empty when the file has none), its errors named `stores.<store>.<key>`.
    func storeSettings(_ store: Store) -> StoreSettings {
        StoreSettings(configuration: StoreAdapterConfiguration(store: store, settings: stores?[store.rawValue] ?? [:]))
    }

    /// A store's settings read for the server itself, with ``ServerConfigurationError``s that name the field.
    struct StoreSettings {
        var configuration: StoreAdapterConfiguration

        func optionalString(_ key: String) throws(ServerConfigurationError) -> String? {
            try named { () throws(StoreAdapterError) in try configuration.optionalString(key) }
        }

        func integer(_ key: String, as type: Int.Type) throws(ServerConfigurationError) -> Int? {
            try named { () throws(StoreAdapterError) in try configuration.integer(key, as: type) }
        }

        func bool(_ key: String, default fallback: Bool) throws(ServerConfigurationError) -> Bool {
            try named { () throws(StoreAdapterError) in try configuration.bool(key, default: fallback) }
        }

        func prices(_ key: String) throws(ServerConfigurationError) -> [String: Money] {
            try named { () throws(StoreAdapterError) in try configuration.prices(key) }
        }

        private func named<T>(_ body: () throws(StoreAdapterError) -> T) throws(ServerConfigurationError) -> T {
            do { return try body() } catch {
                throw ServerConfigurationError("stores.\(configuration.store).\(error.message)")
            }
        }
    }

    /// Store → accepted environments, from the file's names (`*` sets every store not named).
    static func environments(_ file: [String: [String]]) throws(ServerConfigurationError)
        -> [Store: Set<VerifiedPurchase.Environment>]
    {
        var accepted: [Store: Set<VerifiedPurchase.Environment>] = [:]
        let stores = Store.known
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

    /// The store adapters and webhook verifiers the file configures.
    public func adapters(environment: [String: String], httpClient: HTTPClient, logger: Logger)
        throws(ServerConfigurationError) -> (
            adapters: [any StoreAdapter], stripeWebhooks: StripeWebhookVerifier?, payPalWebhooks: PayPalWebhookVerifier?
        )
    {
        var adapters: [any StoreAdapter] = []
        var stripeWebhooks: StripeWebhookVerifier?
        var payPalWebhooks: PayPalWebhookVerifier?
        let base = base
        let context = StoreAdapterConfiguration.Context(
            httpClient: httpClient,
            logger: logger,
            environment: environment,
            readFile: { text, holdsSecret in
                let file = text.hasPrefix("/") ? URL(fileURLWithPath: text) : base.appendingPathComponent(text)
                if holdsSecret {
                    // Only the message is kept (`StoreAdapterConfiguration` names the key and the store).
                    do throws(ServerConfigurationError) { try LicenseKeyring.checkOwnerOnly(file) } catch {
                        throw StoreAdapterError(.misconfigured, store: .apple, error.message)
                    }
                }
                return try Data(contentsOf: file)
            }
        )
        for name in (stores ?? [:]).keys where !Store(rawValue: name).isKnown {
            let known = Store.known.map(\.rawValue).joined(separator: ", ")
            throw ServerConfigurationError("stores.\(name) is not a store (\(known))")
        }
        for store in Store.known {
            guard let settings = stores?[store.rawValue] else { continue }
            let configuration = StoreAdapterConfiguration(store: store, settings: settings)
            do throws(StoreAdapterError) {
                let adapter = try configuration.makeAdapter(context)
                adapters.append(adapter)
                // The webhook signing secret: `webhookSecretEnv` or an owner-only `webhookSecretFile`.
                if store == .stripe, let secret = try configuration.optionalSecret("webhookSecret", context) {
                    do throws(StoreAdapterError) { stripeWebhooks = try StripeWebhookVerifier(secret: secret) } catch {
                        throw configuration.error("webhookSecret", error.message)
                    }
                }
                if let payPal = adapter as? PayPalAdapter, try configuration.optionalString("webhookId") != nil {
                    do throws(StoreAdapterError) { payPalWebhooks = try payPal.webhookVerifier() } catch {
                        throw configuration.error("webhookId", error.message)
                    }
                }
            } catch {
                throw ServerConfigurationError(
                    error.code == .misconfigured
                        ? "stores.\(store).\(error.message)" : "stores.\(store): \(error.message) (\(error.code))"
                )
            }
        }
        return (adapters, stripeWebhooks, payPalWebhooks)
    }
}

public import Foundation
import Hummingbird
public import OpenCatCore
public import StoreAdapters

/// A user of the key server API: who a bearer token is, with the email and Steam id their keys sync by.
///
/// The configuration holds the SHA-256 of each token, never the token.
public struct ServerUser: Sendable, Hashable, Codable {
    /// The user's id in the ledger.
    public var userId: String
    /// The email the user's purchases and keys sync by (compared case-insensitively).
    public var email: String?
    /// The Steam id (a decimal SteamID64) the user's Steam purchases are matched by.
    public var steamId: String?
    /// Hex SHA-256 of the user's bearer token.
    public var tokenSHA256: String

    /// A user; the token hash is kept in lowercase.
    public init(userId: String, email: String? = nil, steamId: String? = nil, tokenSHA256: String) {
        self.userId = userId
        self.email = email
        self.steamId = steamId
        self.tokenSHA256 = tokenSHA256.lowercased()
    }

    /// A user for a token (hashes it).
    public init(userId: String, email: String? = nil, steamId: String? = nil, token: String) {
        self.init(userId: userId, email: email, steamId: steamId, tokenSHA256: BearerTokens.hash(token))
    }
}

/// Who a bearer token is. Tokens are compared by their SHA-256, so the table never holds a token and a lookup
/// reveals nothing about one; no token is ever logged or echoed.
public struct BearerTokens: Sendable {
    let byHash: [String: ServerUser]
    let byEmail: [String: ServerUser]

    /// The users.
    public init(users: [ServerUser]) {
        byHash = Dictionary(users.map { ($0.tokenSHA256, $0) }, uniquingKeysWith: { first, _ in first })
        byEmail = Dictionary(
            users.compactMap { user in user.email.map { ($0.lowercased(), user) } },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// Tokens to user ids, `{"<token>": "<user id>"}` (tests and quick starts).
    public init(_ tokens: [String: String]) {
        self.init(users: tokens.map { ServerUser(userId: $0.value, token: $0.key) })
    }

    /// Reads a users file: a JSON array of ``ServerUser``, or `{"<token>": "<user id>"}` (quick starts).
    public init(file: URL) throws(ServerConfigurationError) {
        guard let data = try? Data(contentsOf: file) else {
            throw ServerConfigurationError("\(file.path) cannot be read")
        }
        if let users = try? JSONCoding.decoder.decode([ServerUser].self, from: data) {
            self.init(users: users)
        } else if let tokens = try? JSONCoding.decoder.decode([String: String].self, from: data) {
            self.init(tokens)
        } else {
            throw ServerConfigurationError("\(file.lastPathComponent) is not a JSON array of users")
        }
    }

    /// Hex SHA-256 of a token.
    public static func hash(_ token: String) -> String { Fingerprint.hex(of: token) }

    /// The user a bearer token names.
    func user(token: String) -> ServerUser? { byHash[Self.hash(token)] }

    /// The user with an email (case-insensitive).
    func user(email: String) -> ServerUser? { byEmail[email.lowercased()] }

    /// Every configured user id.
    var userIds: [String] { byHash.values.map(\.userId) }

    /// The email of a configured user.
    func email(of userId: String) -> String? { byHash.values.first { $0.userId == userId }?.email }
}

/// What a key pack credits when bought: keys, bonus keys, keys given to the community pool, and licenses.
public struct KeyPack: Sendable, Hashable, Codable {
    /// Keys credited to the buyer.
    public var keys: Int64
    /// Bonus keys, also credited to the buyer (default 0).
    public var bonusKeys: Int64
    /// Keys credited to the community pool (default 0).
    public var communityKeys: Int64
    /// The plan its licenses unlock (`L1`…`L9`).
    public var plan: String
    /// How many licenses a pack mints.
    public var licenses: Int

    /// A key pack; by default no bonus, no community share, and one `L1` license.
    public init(keys: Int64, bonusKeys: Int64 = 0, communityKeys: Int64 = 0, plan: String = "L1", licenses: Int = 1) {
        self.keys = keys
        self.bonusKeys = bonusKeys
        self.communityKeys = communityKeys
        self.plan = plan
        self.licenses = licenses
    }

    /// Reads a pack from the configuration: `keys` is required, the rest default as in the memberwise initialiser.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = try container.decode(Int64.self, forKey: .keys)
        bonusKeys = try container.decodeIfPresent(Int64.self, forKey: .bonusKeys) ?? 0
        communityKeys = try container.decodeIfPresent(Int64.self, forKey: .communityKeys) ?? 0
        plan = try container.decodeIfPresent(String.self, forKey: .plan) ?? "L1"
        licenses = try container.decodeIfPresent(Int.self, forKey: .licenses) ?? 1
    }
}

/// A feature an app sells for keys.
public struct FeatureSetting: Sendable, Hashable, Codable {
    /// The feature's id, as unlock requests name it.
    public var id: String
    /// The name shown to users.
    public var name: String
    /// What an unlock costs, in keys.
    public var cost: Int64

    /// A feature.
    public init(id: String, name: String, cost: Int64) {
        self.id = id
        self.name = name
        self.cost = cost
    }
}

/// How often a user may call a rate-limited endpoint: `requests` per `seconds`.
public struct RateLimit: Sendable, Hashable, Codable {
    /// How many calls a window allows.
    public var requests: Int
    /// The window's length, in seconds.
    public var seconds: Int

    /// A limit of `requests` per `seconds`.
    public init(requests: Int, seconds: Int) {
        self.requests = requests
        self.seconds = seconds
    }
}

/// The limits on sign-in links and operator sign-ins, each per instance.
public struct SignInRateLimit: Sendable, Hashable, Codable {
    /// Per client address and target (an email, an operator name).
    public var perClientAndEmail = RateLimit(requests: 5, seconds: 900)
    /// Per client address, whatever the target.
    public var perClient = RateLimit(requests: 30, seconds: 3_600)
    /// Mails sent to one email address.
    public var perEmail = RateLimit(requests: 20, seconds: 3_600)

    /// The defaults.
    public init() {}

    /// Reads the limits a configuration names; the others keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        perClientAndEmail =
            try container.decodeIfPresent(RateLimit.self, forKey: .perClientAndEmail) ?? perClientAndEmail
        perClient = try container.decodeIfPresent(RateLimit.self, forKey: .perClient) ?? perClient
        perEmail = try container.decodeIfPresent(RateLimit.self, forKey: .perEmail) ?? perEmail
    }

    /// Whether every limit allows at least one call per window of at least a second.
    var isValid: Bool {
        [perClientAndEmail, perClient, perEmail].allSatisfy { $0.requests > 0 && $0.seconds > 0 }
    }
}

/// The OpenCat API's settings: the app's API keys (by SHA-256), which products unlock which entitlements, and the
/// offerings.
public struct OpenCatAPISettings: Sendable {
    /// Hex SHA-256 of each accepted public app key (`ocat_…`, shipped inside the app): it posts receipts and reads
    /// a subscriber's current entitlements, never their transaction history.
    public var apiKeySHA256: Set<String>
    /// Hex SHA-256 of each secret key (the app's own backend): it also reads every subscriber's full history.
    public var secretKeySHA256: Set<String> = []
    /// Product id → entitlement ids.
    public var entitlements: [String: [String]]
    /// The offerings the API answers with.
    public var offerings: Offerings

    /// Settings; the key hashes are kept in lowercase and no secret key is accepted until `secretKeySHA256` is set.
    public init(apiKeySHA256: Set<String>, entitlements: [String: [String]], offerings: Offerings) {
        self.apiKeySHA256 = Set(apiKeySHA256.map { $0.lowercased() })
        self.entitlements = entitlements
        self.offerings = offerings
    }
}

/// Everything the server answers from besides its database and stores.
public struct ServerSettings: Sendable {
    /// The users by bearer token (hashed).
    public var users: BearerTokens
    /// Store product id → key pack.
    public var keyPacks: [String: KeyPack]
    /// App id → the features it sells.
    public var apps: [String: [FeatureSetting]]
    /// Signs the licenses key packs mint; `nil`: packs mint none.
    public var keyring: LicenseKeyring?
    /// The limit on key sync, per user and instance.
    public var syncRateLimit: RateLimit
    /// The OpenCat API's settings; `nil`: the server does not serve that API.
    public var openCat: OpenCatAPISettings?
    /// The shared token Google's Pub/Sub push subscription sends as `?token=` (RTDN).
    public var googlePushToken: String?
    /// Whether a Google, Stripe or PayPal purchase must name its buyer (the token's user id, in Google's obfuscated
    /// account id, Stripe's `app_user_id` metadata or PayPal's `custom_id`): their order and payment ids are not
    /// secrets, so without it whoever posts an id first gets the keys. On by default.
    public var bindPurchases: Bool = true
    /// The store environments whose purchases credit anything, per store; a store not listed accepts production
    /// only. A sandbox or test purchase elsewhere is refused (`sandboxNotAccepted`), never credited.
    public var acceptedEnvironments: [Store: Set<VerifiedPurchase.Environment>] = [:]
    /// How often one user (or one app user of the OpenCat API, or one API key) may call an endpoint that reaches a
    /// store's API, per instance.
    public var storeRateLimit = RateLimit(requests: 30, seconds: 60)
    /// How many receipts one client address may post with the public app key, per instance (`clientRateLimit`).
    public var clientRateLimit = RateLimit(requests: 120, seconds: 60)
    /// The safety ceiling on receipts per API key, per instance (`apiKeyRateLimit`): high enough that every install
    /// of a popular app posting at once never reaches it.
    public var apiKeyRateLimit = RateLimit(requests: 10_000, seconds: 60)
    /// The request header a trusted reverse proxy puts the client's address in (`clientAddressHeader`, such as
    /// `X-Forwarded-For`: its first address is taken); nil: the connection's peer is the client.
    public var clientAddressHeader: String?
    /// Sign-in links: per client address and email (`signInRateLimit.perClientAndEmail`, default 5 per 15 minutes),
    /// per client address (`perClient`, 30 an hour) and mails per email (`perEmail`, 20 an hour); one client's
    /// requests never stop another client's.
    public var signInRateLimit = SignInRateLimit()
    /// Stripe product id → its price per unit: a PaymentIntent must charge exactly price × quantity.
    public var stripePrices: [String: Money] = [:]
    /// How long a connection may stay idle, or a request half-sent, before the server closes it.
    public var idleTimeoutSeconds: Int = 30
    /// The identity the game passes to `ISteamUser::GetAuthTicketForWebApi` for this server (`stores.steam.ticketIdentity`,
    /// default `opencat-server`): the server asks Steam to accept only tickets made for it, so a ticket minted for
    /// another service of the game proves nothing here. A client naming another `steamIdentity` is refused.
    public var steamTicketIdentity = "opencat-server"
    /// Whether an App Store notification about a subscription is re-read from the App Store Server API (Get All
    /// Subscription Statuses) before it is applied (`stores.apple.rereadNotifications`, default false; needs the
    /// API credentials): the state applied is then Apple's current one, whatever order notifications arrive in.
    public var appleRereadNotifications = false
    /// How long a device may trust a key-pack license without syncing (`licenseOfflineDays`, default 30): licenses
    /// carry `offlineUntil`, set when they are minted and renewed at every key sync, so a device that never syncs
    /// stops trusting them after it and cannot miss a revocation for good.
    public var licenseOfflineSeconds: TimeInterval = 30 * 86_400
    /// How often the Steam refund report is read (seconds); nil: never (Steam refunds then never reach the server).
    public var steamReconciliationSeconds: Int? = 3_600
    /// Where the OpenCat API binds an Apple purchase to its app user (docs/SECURITY.md, "Receipts belong to their
    /// buyer").
    public var requireAppleAccountToken: Bool = false
    /// The web portal (`/portal`) and the operator console (`/console`); `nil`: neither is served.
    public var portal: PortalSettings?
    /// Events out: the endpoints the configuration registers, development mode, timeouts and retries (`webhooks`).
    public var webhooks = WebhookSettings()

    /// The environments a store's purchases may come from.
    public func environments(_ store: Store) -> Set<VerifiedPurchase.Environment> {
        Self.environments(store, in: acceptedEnvironments)
    }

    /// The environments `accepted` allows for a store: production only for a store it does not name.
    static func environments(_ store: Store, in accepted: [Store: Set<VerifiedPurchase.Environment>])
        -> Set<VerifiedPurchase.Environment>
    {
        accepted[store] ?? [.production]
    }

    /// Settings; key sync is limited to 10 requests per 60 seconds per user by default, and the other settings take their
    /// declared defaults.
    public init(
        users: BearerTokens,
        keyPacks: [String: KeyPack] = [:],
        apps: [String: [FeatureSetting]] = [:],
        keyring: LicenseKeyring? = nil,
        syncRateLimit: RateLimit = RateLimit(requests: 10, seconds: 60),
        openCat: OpenCatAPISettings? = nil,
        googlePushToken: String? = nil
    ) {
        self.users = users
        self.keyPacks = keyPacks
        self.apps = apps
        self.keyring = keyring
        self.syncRateLimit = syncRateLimit
        self.openCat = openCat
        self.googlePushToken = googlePushToken
    }
}

public import Foundation
public import OpenCatCore
public import OpenCatLicense

/// The platform a key pack was bought on: the last segment of `POST /api/v1/keys/purchase/{platform}`.
public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    /// The App Store.
    case apple
    /// Google Play.
    case google
    /// Stripe.
    case stripe
    /// PayPal.
    case paypal
    /// Steam.
    case steam

    /// The OpenCatCore store.
    public var store: Store { Store(rawValue: rawValue) }
}

/// Typed JSON for `serverMetadata`: what the server sends, kept exactly (numbers as their decimal text), never `Any`.
/// The kernel's one JSON value (`JSONValue`) under the name the key server's models have always used.
public typealias MetadataValue = JSONValue

/// A license key as the key server delivers it: the human key, its plan, when it was bought, the signed license
/// that proves it offline, and whatever else the server attached.
public struct VULicenseKey: Sendable, Hashable, Codable {
    /// The human key (`VUUW-ABCD-1234-WXYZ-L2`).
    public var keyValue: HumanKey
    /// The plan.
    public var planType: PlanLevel
    /// When it was bought.
    public var purchaseDate: Date
    /// The signed license (`key/….…`).
    public var license: SignedLicense
    /// Anything else the server sent, as typed JSON.
    public var serverMetadata: [String: MetadataValue]?

    /// Creates a key.
    public init(
        keyValue: HumanKey,
        planType: PlanLevel,
        purchaseDate: Date,
        license: SignedLicense,
        serverMetadata: [String: MetadataValue]? = nil
    ) {
        self.keyValue = keyValue
        self.planType = planType
        self.purchaseDate = purchaseDate
        self.license = license
        self.serverMetadata = serverMetadata
    }
}

/// The answer of a key sync (`GET /api/v1/keys/email/{email}`, `GET /api/v1/keys/steam/{steamId}`): every key the
/// account owns.
public struct VUUserKeySync: Sendable, Hashable, Codable {
    /// The account's email (empty for a Steam account without one).
    public var userEmail: String
    /// Every key of the account, with its license.
    public var availableKeys: [VULicenseKey]
    /// When the server answered.
    public var syncTimestamp: Date
    /// The server's signed revocation list (`LicenseRevocationList`, `rev/….…`), JSON member `revocations`;
    /// absent (nil) when the server sends none. KeyServerClient's `KeysForAllSync` hands it to
    /// `KeyVault.applyRevocations(_:)`.
    public var revocations: String?

    /// Creates a key sync answer.
    public init(userEmail: String, availableKeys: [VULicenseKey], syncTimestamp: Date, revocations: String? = nil) {
        self.userEmail = userEmail
        self.availableKeys = availableKeys
        self.syncTimestamp = syncTimestamp
        self.revocations = revocations
    }
}

/// The answer of a key-pack purchase (`POST /api/v1/keys/purchase/{platform}`). Keys are whole keys (`Int`, 64-bit on
/// every supported platform, the width of the server's ledger).
public struct KeyPurchaseResult: Sendable, Hashable, Codable {
    /// Keys credited to the buyer, bonus keys excluded.
    public var keysAdded: Int
    /// Bonus keys credited on top.
    public var bonusKeys: Int
    /// Keys the purchase gave to the community pool.
    public var communityDonated: Int
    /// The store's transaction id.
    public var transactionId: String
    /// The keys minted for the purchase, with their licenses.
    public var licenses: [VULicenseKey]

    /// Creates a purchase answer.
    public init(
        keysAdded: Int,
        bonusKeys: Int,
        communityDonated: Int,
        transactionId: String,
        licenses: [VULicenseKey]
    ) {
        self.keysAdded = keysAdded
        self.bonusKeys = bonusKeys
        self.communityDonated = communityDonated
        self.transactionId = transactionId
        self.licenses = licenses
    }
}

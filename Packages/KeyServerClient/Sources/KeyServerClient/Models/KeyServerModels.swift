public import Foundation
public import OpenCatCore

/// The platform a key pack was bought on.
public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    case apple, google, stripe, paypal, steam

    /// The OpenCatCore store.
    public var store: Store { Store(rawValue: rawValue) }
}

/// Typed JSON for `serverMetadata`: what the server sends, kept exactly (numbers as `Decimal`), never `Any`.
public indirect enum MetadataValue: Sendable, Hashable, Codable {
    case string(String)
    case number(Decimal)
    case bool(Bool)
    case array([MetadataValue])
    case object([String: MetadataValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Decimal.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([MetadataValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: MetadataValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        case .null: try container.encodeNil()
        }
    }
}

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

/// The answer of a key sync: every key the account owns.
public struct VUUserKeySync: Sendable, Hashable, Codable {
    public var userEmail: String
    public var availableKeys: [VULicenseKey]
    public var syncTimestamp: Date
    /// The server's signed revocation list (``LicenseRevocationList``, `rev/….…`), JSON member `revocations`;
    /// absent (nil) when the server sends none. ``KeysForAllSync`` hands it to ``KeyVault/applyRevocations(_:)``.
    public var revocations: String?
}

/// The answer of a key-pack purchase.
public struct KeyPurchaseResult: Sendable, Hashable, Codable {
    public var keysAdded: Int
    public var bonusKeys: Int
    public var communityDonated: Int
    public var transactionId: String
    /// The keys minted for the purchase, with their licenses.
    public var licenses: [VULicenseKey]
}

/// The answer of a spend.
public struct SpendResult: Sendable, Hashable, Codable {
    public var remainingBalance: Int
    public var featureUnlocked: Bool
    public var transactionId: String
}

/// A wallet as the server knows it.
public struct WalletState: Sendable, Hashable, Codable {
    public var userId: String
    public var balance: Int
    /// Keys a refund took back that the wallet no longer held: spending, sharing and donating wait until a purchase
    /// clears it (0 from servers that do not report it).
    public var debt: Int

    private enum CodingKeys: String, CodingKey { case userId, balance, debt, unlockedFeatures, updatedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decode(String.self, forKey: .userId)
        balance = try container.decode(Int.self, forKey: .balance)
        debt = try container.decodeIfPresent(Int.self, forKey: .debt) ?? 0
        unlockedFeatures = try container.decode([String: [String]].self, forKey: .unlockedFeatures)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
    }
    /// Unlocked features by app id.
    public var unlockedFeatures: [String: [String]]
    public var updatedAt: Date
}

/// One entry of a wallet's history.
public struct WalletTransaction: Sendable, Hashable, Codable {
    /// `purchase`, `spend`, `donation`, `share`, `received`, … (open).
    public var kind: String
    public var id: String
    /// Keys added (positive) or taken (negative).
    public var amount: Int
    public var feature: String?
    public var app: String?
    public var date: Date

    public init(kind: String, id: String, amount: Int, feature: String? = nil, app: String? = nil, date: Date) {
        self.kind = kind
        self.id = id
        self.amount = amount
        self.feature = feature
        self.app = app
        self.date = date
    }
}

/// A feature an app sells for keys.
public struct AppFeature: Sendable, Hashable, Codable {
    public var id: String
    public var appId: String
    public var name: String
    /// Its price in keys.
    public var cost: Int
}

/// The answer of an unlock.
public struct UnlockResult: Sendable, Hashable, Codable {
    public var featureId: String
    public var unlocked: Bool
    public var remainingBalance: Int
    public var transactionId: String
}

/// The answer of a donation to the community pool.
public struct DonationResult: Sendable, Hashable, Codable {
    public var donated: Int
    public var remainingBalance: Int
    public var poolTotal: Int
}

/// The answer of a share with another user.
public struct ShareResult: Sendable, Hashable, Codable {
    public var shared: Int
    public var recipientEmail: String
    public var remainingBalance: Int
    public var transactionId: String
}

/// The community pool.
public struct CommunityPool: Sendable, Hashable, Codable {
    public var totalKeys: Int
    public var contributors: Int
    public var updatedAt: Date
}

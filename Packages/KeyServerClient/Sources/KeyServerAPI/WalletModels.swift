public import Foundation

/// The answer of a spend (`POST /api/v1/wallet/spend`).
public struct SpendResult: Sendable, Hashable, Codable {
    /// The wallet's balance after the spend.
    public var remainingBalance: Int
    /// Whether the feature the spend names is unlocked for the user in that app (a spend itself unlocks nothing).
    public var featureUnlocked: Bool
    /// The ledger entry of the spend.
    public var transactionId: String

    /// Creates a spend answer.
    public init(remainingBalance: Int, featureUnlocked: Bool, transactionId: String) {
        self.remainingBalance = remainingBalance
        self.featureUnlocked = featureUnlocked
        self.transactionId = transactionId
    }
}

/// A wallet as the server knows it (`GET /api/v1/wallet/{userId}`, `POST /api/v1/wallet/sync`).
public struct WalletState: Sendable, Hashable, Codable {
    /// The wallet's user.
    public var userId: String
    /// Keys the user can spend (never below zero).
    public var balance: Int
    /// Keys a refund took back that the wallet no longer held: spending, sharing and donating wait until a purchase
    /// clears it (0 from servers that do not report it).
    public var debt: Int
    /// Unlocked features by app id.
    public var unlockedFeatures: [String: [String]]
    /// When the server answered.
    public var updatedAt: Date

    private enum CodingKeys: String, CodingKey { case userId, balance, debt, unlockedFeatures, updatedAt }

    /// Creates a wallet.
    public init(userId: String, balance: Int, debt: Int = 0, unlockedFeatures: [String: [String]], updatedAt: Date) {
        self.userId = userId
        self.balance = balance
        self.debt = debt
        self.unlockedFeatures = unlockedFeatures
        self.updatedAt = updatedAt
    }

    /// Decodes a wallet; a missing `debt` is 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decode(String.self, forKey: .userId)
        balance = try container.decode(Int.self, forKey: .balance)
        debt = try container.decodeIfPresent(Int.self, forKey: .debt) ?? 0
        unlockedFeatures = try container.decode([String: [String]].self, forKey: .unlockedFeatures)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
    }
}

/// One entry of a wallet's history.
public struct WalletTransaction: Sendable, Hashable, Codable {
    /// `purchase`, `spend`, `donation`, `share`, `received`, … (open).
    public var kind: String
    /// The ledger entry's id.
    public var id: String
    /// Keys added (positive) or taken (negative).
    public var amount: Int
    /// The feature a spend or unlock paid for.
    public var feature: String?
    /// The app of a spend or unlock.
    public var app: String?
    /// When the entry was written.
    public var date: Date

    /// Creates a history entry.
    public init(kind: String, id: String, amount: Int, feature: String? = nil, app: String? = nil, date: Date) {
        self.kind = kind
        self.id = id
        self.amount = amount
        self.feature = feature
        self.app = app
        self.date = date
    }
}

/// A page of a wallet's history (`GET /api/v1/wallet/history/{userId}`), oldest first.
public struct WalletHistoryPage: Sendable, Hashable, Codable {
    /// The page's entries.
    public var transactions: [WalletTransaction]
    /// The next page's cursor (the `cursor` query parameter); absent on the last page (and from servers that do not
    /// page).
    public var nextCursor: String?

    /// Creates a page.
    public init(transactions: [WalletTransaction], nextCursor: String? = nil) {
        self.transactions = transactions
        self.nextCursor = nextCursor
    }
}

/// A feature an app sells for keys.
public struct AppFeature: Sendable, Hashable, Codable {
    /// The feature's id.
    public var id: String
    /// The app's id.
    public var appId: String
    /// Its display name.
    public var name: String
    /// Its price in keys.
    public var cost: Int

    /// Creates a feature.
    public init(id: String, appId: String, name: String, cost: Int) {
        self.id = id
        self.appId = appId
        self.name = name
        self.cost = cost
    }
}

/// The features an app sells (`GET /api/v1/apps/{appId}/features`).
public struct AppFeatureList: Sendable, Hashable, Codable {
    /// The features.
    public var features: [AppFeature]

    /// Creates a list.
    public init(features: [AppFeature]) { self.features = features }
}

/// The ids of the features of an app a user unlocked (`GET /api/v1/apps/{appId}/unlocked/{userId}`).
public struct UnlockedFeatureList: Sendable, Hashable, Codable {
    /// The feature ids.
    public var features: [String]

    /// Creates a list.
    public init(features: [String]) { self.features = features }
}

/// The answer of an unlock (`POST /api/v1/apps/{appId}/unlock`).
public struct UnlockResult: Sendable, Hashable, Codable {
    /// The feature.
    public var featureId: String
    /// Whether it is unlocked.
    public var unlocked: Bool
    /// The wallet's balance after the unlock.
    public var remainingBalance: Int
    /// The ledger entry of the unlock.
    public var transactionId: String

    /// Creates an unlock answer.
    public init(featureId: String, unlocked: Bool, remainingBalance: Int, transactionId: String) {
        self.featureId = featureId
        self.unlocked = unlocked
        self.remainingBalance = remainingBalance
        self.transactionId = transactionId
    }
}

/// The answer of a donation to the community pool (`POST /api/v1/community/donate`).
public struct DonationResult: Sendable, Hashable, Codable {
    /// Keys donated.
    public var donated: Int
    /// The wallet's balance after the donation.
    public var remainingBalance: Int
    /// The pool's keys after the donation.
    public var poolTotal: Int

    /// Creates a donation answer.
    public init(donated: Int, remainingBalance: Int, poolTotal: Int) {
        self.donated = donated
        self.remainingBalance = remainingBalance
        self.poolTotal = poolTotal
    }
}

/// The answer of a share with another user (`POST /api/v1/community/share`).
public struct ShareResult: Sendable, Hashable, Codable {
    /// Keys shared.
    public var shared: Int
    /// The recipient, as the request named them.
    public var recipientEmail: String
    /// The wallet's balance after the share.
    public var remainingBalance: Int
    /// The ledger entry of the share.
    public var transactionId: String

    /// Creates a share answer.
    public init(shared: Int, recipientEmail: String, remainingBalance: Int, transactionId: String) {
        self.shared = shared
        self.recipientEmail = recipientEmail
        self.remainingBalance = remainingBalance
        self.transactionId = transactionId
    }
}

/// The community pool (`GET /api/v1/community/pool`).
public struct CommunityPool: Sendable, Hashable, Codable {
    /// Keys in the pool.
    public var totalKeys: Int
    /// How many users gave to it.
    public var contributors: Int
    /// When the server answered.
    public var updatedAt: Date

    /// Creates a pool.
    public init(totalKeys: Int, contributors: Int, updatedAt: Date) {
        self.totalKeys = totalKeys
        self.contributors = contributors
        self.updatedAt = updatedAt
    }
}

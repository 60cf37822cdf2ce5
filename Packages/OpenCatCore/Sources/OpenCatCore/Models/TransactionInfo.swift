public import Foundation

/// One purchase as the entitlement engine sees it.
public struct TransactionInfo: Codable, Sendable, Hashable {
    /// The state of a transaction.
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable {
        /// Paid and in force (for a subscription: within its period).
        case active
        /// A subscription whose period has ended.
        case expired
        /// Refunded or revoked by the store: grants nothing.
        case refunded
        /// Renewal failed but the store keeps access during a grace period: grants access.
        case gracePeriod
        /// Renewal failed and the store is retrying billing without granting access (Google "on hold").
        case billingRetry
        /// Payment not yet complete (deferred, processing): grants nothing yet.
        case pending
    }

    /// The store's environment: only production transactions grant entitlements unless the app opts in.
    public struct Environment: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// Real money.
        public static let production = Environment(rawValue: "production")
        /// Test purchases (App Store sandbox, Xcode and local testing, Play test cards, Stripe test mode, PayPal
        /// sandbox, Steam sandbox).
        public static let sandbox = Environment(rawValue: "sandbox")
    }

    /// The store's transaction id.
    public var transactionId: String
    /// The store's original transaction id (the first purchase of a subscription), if any.
    public var originalTransactionId: String?
    /// The product bought.
    public var productId: String
    /// The store it was bought on.
    public var store: Store
    /// When it was bought.
    public var purchaseDate: Date
    /// When access ends; `nil` for a lifetime (non-consumable) purchase.
    public var expirationDate: Date?
    /// When a grace period ends, if the store says.
    public var gracePeriodExpirationDate: Date?
    /// The state.
    public var status: Status
    /// Whether the subscription is set to renew.
    public var willRenew: Bool
    /// The store's environment (production unless the store said otherwise).
    public var environment: Environment
    /// Who bought it, as the store reports it (appAccountToken, obfuscatedExternalAccountId, custom id, steamid).
    public var purchaser: String?

    /// Creates a transaction.
    public init(
        transactionId: String,
        originalTransactionId: String? = nil,
        productId: String,
        store: Store,
        purchaseDate: Date,
        expirationDate: Date? = nil,
        gracePeriodExpirationDate: Date? = nil,
        status: Status,
        willRenew: Bool = false,
        environment: Environment = .production,
        purchaser: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.store = store
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.status = status
        self.willRenew = willRenew
        self.environment = environment
        self.purchaser = purchaser
    }

    private enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, productId, store, purchaseDate, expirationDate
        case gracePeriodExpirationDate, status, willRenew, environment, purchaser
    }

    /// Decodes a transaction; `environment` and `purchaser` may be absent (caches written before 0.2).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transactionId = try container.decode(String.self, forKey: .transactionId)
        originalTransactionId = try container.decodeIfPresent(String.self, forKey: .originalTransactionId)
        productId = try container.decode(String.self, forKey: .productId)
        store = try container.decode(Store.self, forKey: .store)
        purchaseDate = try container.decode(Date.self, forKey: .purchaseDate)
        expirationDate = try container.decodeIfPresent(Date.self, forKey: .expirationDate)
        gracePeriodExpirationDate = try container.decodeIfPresent(Date.self, forKey: .gracePeriodExpirationDate)
        status = try container.decode(Status.self, forKey: .status)
        willRenew = try container.decodeIfPresent(Bool.self, forKey: .willRenew) ?? false
        environment = try container.decodeIfPresent(Environment.self, forKey: .environment) ?? .production
        purchaser = try container.decodeIfPresent(String.self, forKey: .purchaser)
    }
}

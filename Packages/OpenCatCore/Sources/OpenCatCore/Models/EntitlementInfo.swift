public import Foundation

/// Access to a feature (an entitlement), granted by one or more products.
public struct EntitlementInfo: Codable, Sendable, Hashable {
    /// The entitlement's identifier (`"pro"`, `"full_access"`).
    public var id: String
    /// Whether access is granted at the reference time it was computed for.
    public var isActive: Bool
    /// When access ends; `nil` for lifetime access.
    public var expirationDate: Date?
    /// The product that grants it (the one with the latest expiry, or the lifetime one).
    public var productId: String
    /// The store of that product's transaction.
    public var store: Store
    /// Whether that subscription is set to renew.
    public var willRenew: Bool
    /// When that transaction was bought.
    public var purchaseDate: Date

    /// Creates an entitlement.
    public init(
        id: String,
        isActive: Bool,
        expirationDate: Date?,
        productId: String,
        store: Store,
        willRenew: Bool,
        purchaseDate: Date
    ) {
        self.id = id
        self.isActive = isActive
        self.expirationDate = expirationDate
        self.productId = productId
        self.store = store
        self.willRenew = willRenew
        self.purchaseDate = purchaseDate
    }
}

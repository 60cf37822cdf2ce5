public import Foundation

/// Everything known about one user's purchases and access.
public struct CustomerInfo: Codable, Sendable, Hashable {
    /// The app's identifier for the user.
    public var appUserId: String
    /// Every entitlement the user has or had, by id, evaluated at ``evaluatedAt``.
    public var entitlements: [String: EntitlementInfo]
    /// All known transactions, newest first.
    public var allTransactions: [TransactionInfo]
    /// When the user was first seen.
    public var firstSeenAt: Date
    /// The reference time the entitlements were evaluated at.
    public var evaluatedAt: Date

    /// Creates customer info.
    public init(
        appUserId: String,
        entitlements: [String: EntitlementInfo],
        allTransactions: [TransactionInfo],
        firstSeenAt: Date,
        evaluatedAt: Date
    ) {
        self.appUserId = appUserId
        self.entitlements = entitlements
        self.allTransactions = allTransactions
        self.firstSeenAt = firstSeenAt
        self.evaluatedAt = evaluatedAt
    }

    /// The entitlements that grant access, by id.
    public var activeEntitlements: [String: EntitlementInfo] { entitlements.filter { $0.value.isActive } }

    /// Whether the entitlement grants access.
    public func isEntitled(_ entitlementId: String) -> Bool { entitlements[entitlementId]?.isActive == true }

    /// Whether two values describe the same state, ignoring when they were evaluated.
    package func sameState(as other: CustomerInfo) -> Bool {
        var a = self
        var b = other
        a.evaluatedAt = .distantPast
        b.evaluatedAt = .distantPast
        return a == b
    }
}

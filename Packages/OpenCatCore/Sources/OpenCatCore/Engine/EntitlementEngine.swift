public import Foundation

/// Which entitlements each product grants: `"com.example.pro.monthly"` → `["pro"]`.
public struct EntitlementMap: Codable, Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Product id → entitlement ids.
    public var entitlementsByProduct: [String: Set<String>]

    /// Creates a map.
    public init(_ entitlementsByProduct: [String: Set<String>]) { self.entitlementsByProduct = entitlementsByProduct }

    /// Creates a map from a literal.
    public init(dictionaryLiteral elements: (String, Set<String>)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { $0.union($1) }))
    }

    /// The entitlements a product grants.
    public func entitlements(for productId: String) -> Set<String> { entitlementsByProduct[productId] ?? [] }
}

/// Resolves "does the user have access to X?": a pure function of transactions, the product→entitlement map
/// and a reference time.
///
/// Rules:
/// - `refunded`, `billingRetry`, `pending` and `expired` transactions grant nothing.
/// - `active` grants until its expiration date, exactly (no offline timeout); without an expiration date it is
///   lifetime access.
/// - `gracePeriod` grants until the grace period's end (or, if the store gave none, while the status holds).
/// - Across products, lifetime access beats any expiry, and otherwise the latest expiry wins.
/// - The reference time is chosen by ``referenceTime(deviceNow:lastConfirmed:)``: it never falls behind the last
///   time a store or server confirmed, so winding the device clock back does not revive an expired entitlement.
public enum EntitlementEngine {
    /// The longest grace period granted when a store reports a grace period without an end (16 days: the longest
    /// any store offers, Google Play's maximum for monthly and longer plans).
    public static let maximumGracePeriod: TimeInterval = 16 * 86_400

    /// The time to evaluate at, also bounded below by the highest device time observed before (a sealed
    /// high-water mark), so that setting the clock back and restarting does not revive an expired entitlement.
    public static func referenceTime(deviceNow: Date, lastConfirmed: Date?, highWater: Date?) -> Date {
        max(referenceTime(deviceNow: deviceNow, lastConfirmed: lastConfirmed), highWater ?? deviceNow)
    }

    /// The time to evaluate at: the device's time, but never earlier than the last confirmed time.
    public static func referenceTime(deviceNow: Date, lastConfirmed: Date?) -> Date {
        guard let lastConfirmed else { return deviceNow }
        return max(deviceNow, lastConfirmed)
    }

    /// What one transaction grants, before looking at the reference time.
    enum Grant: Equatable {
        /// Nothing (refunded, billing retry, pending, expired).
        case nothing
        /// Access until a date.
        case until(Date)
        /// Access with no end.
        case lifetime

        init(_ transaction: TransactionInfo, confirmedAt: Date?) {
            switch transaction.status {
            case .refunded, .billingRetry, .pending, .expired:
                self = .nothing
            case .active:
                self = transaction.expirationDate.map(Grant.until) ?? .lifetime
            case .gracePeriod:
                // A grace period is never open-ended: its end, else the store's expiry, else a bounded grace from
                // the last confirmed time (or the purchase).
                let fallback = (confirmedAt ?? transaction.purchaseDate).addingTimeInterval(maximumGracePeriod)
                self = .until(transaction.gracePeriodExpirationDate ?? transaction.expirationDate ?? fallback)
            }
        }

        func isActive(at time: Date) -> Bool {
            switch self {
            case .nothing: return false
            case .lifetime: return true
            case .until(let end): return end > time
            }
        }

        /// Orders grants: lifetime > later end > earlier end > nothing.
        func beats(_ other: Grant) -> Bool {
            switch (self, other) {
            case (.lifetime, .lifetime), (.nothing, .nothing): return false
            case (.lifetime, _): return true
            case (_, .lifetime): return false
            case (.until(let a), .until(let b)): return a > b
            case (.until, .nothing): return true
            case (.nothing, .until): return false
            }
        }
    }

    /// Evaluates every entitlement any transaction maps to.
    /// - Parameters:
    ///   - transactions: the user's transactions.
    ///   - map: which entitlements each product grants.
    ///   - referenceTime: the time to evaluate at.
    /// - Returns: entitlement id → entitlement, active or not.
    ///   - acceptedEnvironments: the store environments whose transactions grant anything (production only by
    ///     default: sandbox and test purchases cost nothing).
    ///   - confirmedAt: the last store- or server-confirmed time (bounds a grace period that has no end date).
    public static func entitlements(
        for transactions: [TransactionInfo],
        map: EntitlementMap,
        at referenceTime: Date,
        acceptedEnvironments: Set<TransactionInfo.Environment> = [.production],
        confirmedAt: Date? = nil
    ) -> [String: EntitlementInfo] {
        var winners: [String: (transaction: TransactionInfo, grant: Grant)] = [:]
        for transaction in transactions where acceptedEnvironments.contains(transaction.environment) {
            let grant = Grant(transaction, confirmedAt: confirmedAt)
            for id in map.entitlements(for: transaction.productId) {
                guard let current = winners[id] else {
                    winners[id] = (transaction, grant)
                    continue
                }
                let better =
                    grant.beats(current.grant)
                    || (grant == current.grant && transaction.purchaseDate > current.transaction.purchaseDate)
                if better { winners[id] = (transaction, grant) }
            }
        }
        return winners.reduce(into: [:]) { result, element in
            let (id, winner) = element
            let transaction = winner.transaction
            let expiration: Date?
            switch winner.grant {
            case .lifetime: expiration = nil
            case .until(let end): expiration = end
            case .nothing: expiration = transaction.expirationDate
            }
            let active = winner.grant.isActive(at: referenceTime)
            result[id] = EntitlementInfo(
                id: id,
                isActive: active,
                expirationDate: expiration,
                productId: transaction.productId,
                store: transaction.store,
                willRenew: active && transaction.willRenew,
                purchaseDate: transaction.purchaseDate
            )
        }
    }
}

public import OpenCat
public import OpenCatCore

/// The worked example from the design: Aura Logic's full unlock.
///
/// One non-consumable, `com.logicandchill.auralogic.fullunlock`, grants the `full_access` entitlement. Without
/// it the first 10 Easy and the first 10 Medium levels are free; Hard and Insane are locked. With it every
/// level of every difficulty, present and future, is open.
///
/// ```swift
/// let openCat = try OpenCat.configureStandalone(
///     appUserId: playerId, storeClient: storeKit, verifier: verifier,
///     entitlements: AuraLogicAccess.entitlements, offerings: AuraLogicAccess.offerings)
/// let gate = AuraLogicAccess(hasFullAccess: openCat.isEntitled(AuraLogicAccess.fullAccessEntitlement))
/// if gate.isUnlocked(level: 11, difficulty: .easy) { … } else { showPaywall() }
/// ```
public struct AuraLogicAccess: Sendable, Hashable {
    /// A puzzle difficulty.
    public enum Difficulty: String, Sendable, Hashable, CaseIterable, Codable {
        /// Easy puzzles.
        case easy
        /// Medium puzzles.
        case medium
        /// Hard puzzles.
        case hard
        /// Insane puzzles.
        case insane

        /// How many levels, counted from 1, are free without the unlock.
        public var freeLevels: Int {
            switch self {
            case .easy, .medium: return 10
            case .hard, .insane: return 0
            }
        }
    }

    /// The App Store product id of the full unlock.
    public static let fullUnlockProductId = "com.logicandchill.auralogic.fullunlock"
    /// The entitlement the full unlock grants.
    public static let fullAccessEntitlement = "full_access"
    /// The product → entitlement map to configure OpenCat with.
    public static let entitlements: EntitlementMap = [fullUnlockProductId: [fullAccessEntitlement]]
    /// The single offering holding the full unlock.
    public static let offerings = OfferingsLayout(
        currentOfferingId: "default",
        offerings: [
            .init(identifier: "default", packages: [.init(identifier: "$lifetime", productId: fullUnlockProductId)])
        ]
    )

    /// Whether the player owns the full unlock.
    public var hasFullAccess: Bool

    /// Creates a gate.
    /// - Parameter hasFullAccess: usually `openCat.isEntitled(AuraLogicAccess.fullAccessEntitlement)`.
    public init(hasFullAccess: Bool) { self.hasFullAccess = hasFullAccess }

    /// Creates a gate from the SDK's current answer (memory only; safe on every frame).
    public init(openCat: OpenCat) { self.init(hasFullAccess: openCat.isEntitled(Self.fullAccessEntitlement)) }

    /// Whether a level can be played.
    /// - Parameters:
    ///   - level: the level number, counted from 1. Numbers below 1 are never playable.
    ///   - difficulty: the difficulty.
    public func isUnlocked(level: Int, difficulty: Difficulty) -> Bool {
        guard level >= 1 else { return false }
        return hasFullAccess || level <= difficulty.freeLevels
    }

    /// Whether the paywall should be shown before a level.
    public func needsPurchase(level: Int, difficulty: Difficulty) -> Bool {
        level >= 1 && !isUnlocked(level: level, difficulty: difficulty)
    }
}

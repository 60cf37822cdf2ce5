/// An LLM provider (open: a backend may add its own).
public struct LLMProvider: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let openai = LLMProvider(rawValue: "openai")
    public static let anthropic = LLMProvider(rawValue: "anthropic")
    public static let google = LLMProvider(rawValue: "google")

    /// The providers of the design, in its order.
    public static let known: [LLMProvider] = [.openai, .anthropic, .google]

    /// The environment variable that holds the system key.
    public var environmentVariable: String { rawValue.uppercased() + "_API_KEY" }

    public var description: String { rawValue }
    public static func < (lhs: LLMProvider, rhs: LLMProvider) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A plan tier (open: `pro`, `pro_plus`, `pro_trial`, `starter`, `free`, …).
public struct PlanTier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let pro = PlanTier(rawValue: "pro")
    public static let proPlus = PlanTier(rawValue: "pro_plus")
    public static let proTrial = PlanTier(rawValue: "pro_trial")
    public static let starter = PlanTier(rawValue: "starter")
    public static let free = PlanTier(rawValue: "free")

    /// The tiers that get the system's keys (the design's `PRO_TIERS`).
    public static let systemKeyTiers: Set<PlanTier> = [.pro, .proPlus, .proTrial]

    /// Whether this tier uses the system's keys.
    public var usesSystemKeys: Bool { Self.systemKeyTiers.contains(self) }

    public var description: String { rawValue }
}

/// Where a key comes from.
public enum KeySource: String, Sendable, Hashable, Codable {
    /// The backend's own key (environment).
    case system
    /// The user's key (bring your own key), stored encrypted.
    case user
}

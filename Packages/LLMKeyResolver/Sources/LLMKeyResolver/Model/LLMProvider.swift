/// An LLM provider (open: a backend may add its own).
public struct LLMProvider: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The provider's name as the API and the stored rows write it (`openai`).
    public let rawValue: String
    /// A provider from its name; any name is a provider.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// OpenAI; its system key is `OPENAI_API_KEY`.
    public static let openai = LLMProvider(rawValue: "openai")
    /// Anthropic; its system key is `ANTHROPIC_API_KEY`.
    public static let anthropic = LLMProvider(rawValue: "anthropic")
    /// Google (Gemini); its system key is `GOOGLE_API_KEY`.
    public static let google = LLMProvider(rawValue: "google")

    /// The providers of the design, in its order.
    public static let known: [LLMProvider] = [.openai, .anthropic, .google]

    /// The environment variable that holds the system key.
    public var environmentVariable: String { rawValue.uppercased() + "_API_KEY" }

    /// The provider's name.
    public var description: String { rawValue }
    /// Orders providers by name.
    public static func < (lhs: LLMProvider, rhs: LLMProvider) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A plan tier (open: `pro`, `pro_plus`, `pro_trial`, `starter`, `free`, …).
public struct PlanTier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The tier's name as plans and the API write it (`pro_plus`).
    public let rawValue: String
    /// A tier from its name; any name is a tier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `pro`: uses the system's keys.
    public static let pro = PlanTier(rawValue: "pro")
    /// `pro_plus`: uses the system's keys.
    public static let proPlus = PlanTier(rawValue: "pro_plus")
    /// `pro_trial`: uses the system's keys.
    public static let proTrial = PlanTier(rawValue: "pro_trial")
    /// `starter`: uses the keys the user stored.
    public static let starter = PlanTier(rawValue: "starter")
    /// `free`: uses the keys the user stored.
    public static let free = PlanTier(rawValue: "free")

    /// The tiers that get the system's keys (the design's `PRO_TIERS`).
    public static let systemKeyTiers: Set<PlanTier> = [.pro, .proPlus, .proTrial]

    /// Whether this tier uses the system's keys.
    public var usesSystemKeys: Bool { Self.systemKeyTiers.contains(self) }

    /// The tier's name.
    public var description: String { rawValue }
}

/// Where a key comes from.
public enum KeySource: String, Sendable, Hashable, Codable {
    /// The backend's own key (environment).
    case system
    /// The user's key (bring your own key), stored encrypted.
    case user
}

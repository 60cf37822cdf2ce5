/// The answer of `GET /api/api-key-status`, exactly as the design: snake_case, `source` null when unavailable.
public struct APIKeyStatus: Sendable, Hashable, Codable {
    /// One provider's entry in `provider_details`: whether a key is there for the user and whose it is.
    public struct ProviderDetail: Sendable, Hashable, Codable {
        /// Whether the user can call the provider now.
        public var available: Bool
        /// Whose key would be used; `nil` (JSON `null`) when none is available.
        public var source: KeySource?

        /// An entry.
        public init(available: Bool, source: KeySource?) {
            self.available = available
            self.source = source
        }

        /// Writes `{"available", "source"}`, `source` as `null` rather than absent, as the design's clients expect.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(available, forKey: .available)
            try container.encode(source, forKey: .source)  // null, not absent
        }
    }

    /// `key_source`: `system` for the system-key tiers, `user` otherwise.
    public var keySource: KeySource
    /// `plan_tier`: the user's tier as its raw value (`pro`, `free`, …).
    public var planTier: String
    /// `using_system_keys`: whether the tier gets the system's keys.
    public var usingSystemKeys: Bool
    /// `needs_own_keys`: whether the tier uses the keys the user stores (the opposite of `using_system_keys`).
    public var needsOwnKeys: Bool
    /// `available_providers`: the providers the user can call now, by raw value.
    public var availableProviders: [String]
    /// `provider_details`: every reported provider, by raw value.
    public var providerDetails: [String: ProviderDetail]

    /// A status.
    public init(
        keySource: KeySource,
        planTier: String,
        usingSystemKeys: Bool,
        needsOwnKeys: Bool,
        availableProviders: [String],
        providerDetails: [String: ProviderDetail]
    ) {
        self.keySource = keySource
        self.planTier = planTier
        self.usingSystemKeys = usingSystemKeys
        self.needsOwnKeys = needsOwnKeys
        self.availableProviders = availableProviders
        self.providerDetails = providerDetails
    }

    enum CodingKeys: String, CodingKey {
        case keySource = "key_source"
        case planTier = "plan_tier"
        case usingSystemKeys = "using_system_keys"
        case needsOwnKeys = "needs_own_keys"
        case availableProviders = "available_providers"
        case providerDetails = "provider_details"
    }
}

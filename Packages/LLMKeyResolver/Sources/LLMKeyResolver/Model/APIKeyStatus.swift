/// The answer of `GET /api/api-key-status`, exactly as the design: snake_case, `source` null when unavailable.
public struct APIKeyStatus: Sendable, Hashable, Codable {
    public struct ProviderDetail: Sendable, Hashable, Codable {
        public var available: Bool
        public var source: KeySource?

        public init(available: Bool, source: KeySource?) {
            self.available = available
            self.source = source
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(available, forKey: .available)
            try container.encode(source, forKey: .source)  // null, not absent
        }
    }

    public var keySource: KeySource
    public var planTier: String
    public var usingSystemKeys: Bool
    public var needsOwnKeys: Bool
    public var availableProviders: [String]
    public var providerDetails: [String: ProviderDetail]

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

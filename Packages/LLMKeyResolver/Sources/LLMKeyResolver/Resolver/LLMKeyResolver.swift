public import Foundation
public import OpenCatCore

/// A user as the resolver sees them.
public struct LLMUser: Sendable, Hashable {
    /// The user's id, as the store's rows are keyed.
    public var id: String
    /// The user's plan tier, which decides whose keys they use.
    public var tier: PlanTier

    /// A user.
    public init(id: String, tier: PlanTier) {
        self.id = id
        self.tier = tier
    }
}

/// A key to call a provider with, and where it came from.
public struct ResolvedKey: Sendable, Hashable {
    /// The provider the key is for.
    public var provider: LLMProvider
    /// The key, redacted when printed or logged.
    public var key: Secret<String>
    /// Whose key it is: the system's or the user's.
    public var source: KeySource
}

/// Picks the key for a user and a provider, as the design's `APIKeyResolver`: tiers `pro`, `pro_plus` and
/// `pro_trial` get the system's keys (from the environment); every other tier uses the keys the user stored. No key
/// is a typed error, never a crash.
public struct LLMKeyResolver: Sendable {
    /// The system's keys by provider (empty values are ignored).
    public let systemKeys: [LLMProvider: Secret<String>]
    /// The users' keys.
    public let vault: UserKeyVault
    /// The providers reported in statuses (default the design's three).
    public var providers: [LLMProvider]

    /// A resolver over the system's keys (empty ones dropped) and the users' vault, reporting `providers` (duplicates
    /// dropped, order kept).
    public init(
        systemKeys: [LLMProvider: Secret<String>],
        vault: UserKeyVault,
        providers: [LLMProvider] = LLMProvider.known
    ) {
        self.systemKeys = systemKeys.filter { !$0.value.revealed.isEmpty }
        self.vault = vault
        var seen: Set<LLMProvider> = []
        self.providers = providers.filter { seen.insert($0).inserted }
    }

    /// The system keys from an environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GOOGLE_API_KEY`, …).
    public static func systemKeys(
        from environment: [String: String] = ProcessInfo.processInfo.environment,
        providers: [LLMProvider] = LLMProvider.known
    ) -> [LLMProvider: Secret<String>] {
        var keys: [LLMProvider: Secret<String>] = [:]
        for provider in providers {
            if let value = environment[provider.environmentVariable], !value.isEmpty { keys[provider] = Secret(value) }
        }
        return keys
    }

    /// The key for a user and a provider.
    /// - Throws: ``LLMKeyError`` `.noKeyForProvider`, or a store or decryption error.
    public func key(for user: LLMUser, provider: LLMProvider) async throws(LLMKeyError) -> ResolvedKey {
        if user.tier.usesSystemKeys {
            guard let key = systemKeys[provider] else {
                throw LLMKeyError(.noKeyForProvider, "no system key for \(provider)", provider: provider)
            }
            return ResolvedKey(provider: provider, key: key, source: .system)
        }
        guard let key = try await vault.keys(for: user.id)[provider] else {
            throw LLMKeyError(.noKeyForProvider, "the user has stored no \(provider) key", provider: provider)
        }
        return ResolvedKey(provider: provider, key: key, source: .user)
    }

    /// The status the design's `GET /api/api-key-status` answers.
    public func status(for user: LLMUser) async throws(LLMKeyError) -> APIKeyStatus {
        let system = user.tier.usesSystemKeys
        let available: Set<LLMProvider>
        if system {
            available = Set(systemKeys.keys)
        } else {
            available = Set(try await vault.keys(for: user.id).keys)
        }
        return Self.status(tier: user.tier, available: available, providers: providers)
    }

    /// The status for a tier and the providers it has keys for (pure).
    static func status(tier: PlanTier, available: Set<LLMProvider>, providers: [LLMProvider]) -> APIKeyStatus {
        let system = tier.usesSystemKeys
        let source: KeySource = system ? .system : .user
        let details = Dictionary(
            uniqueKeysWithValues: providers.map { provider in
                let has = available.contains(provider)
                return (provider.rawValue, APIKeyStatus.ProviderDetail(available: has, source: has ? source : nil))
            }
        )
        return APIKeyStatus(
            keySource: source,
            planTier: tier.rawValue,
            usingSystemKeys: system,
            needsOwnKeys: !system,
            availableProviders: providers.filter { available.contains($0) }.map(\.rawValue),
            providerDetails: details
        )
    }
}

extension PlanTier {
    /// The tier a customer's entitlements give: the first entitlement of `mapping` (in order) that is active, else
    /// `fallback` (e.g. `["pro_plus": .proPlus, "pro": .pro]`, fallback `.starter`).
    public static func from(
        _ info: CustomerInfo,
        mapping: KeyValuePairs<String, PlanTier>,
        fallback: PlanTier = .starter
    ) -> PlanTier {
        mapping.first { info.isEntitled($0.key) }?.value ?? fallback
    }
}

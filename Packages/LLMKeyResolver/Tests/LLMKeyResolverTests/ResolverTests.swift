import Foundation
import LLMKeyResolver
import OpenCatCore
import Testing

struct ResolverTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var tier: PlanTier
        var provider: LLMProvider
        var stored: Bool
        var testDescription: String { "\(tier) \(provider) \(stored ? "stored" : "none")" }
    }

    static let rows: [Row] = [PlanTier.pro, .proPlus, .proTrial, .starter, .free, PlanTier(rawValue: "team")]
        .flatMap { tier in
            LLMProvider.known.flatMap { provider in
                [true, false].map { Row(tier: tier, provider: provider, stored: $0) }
            }
        }

    static let userKeys: [LLMProvider: String] = [
        .openai: Keys.openai, .anthropic: Keys.anthropic, .google: Keys.google,
    ]
    static let systemKeys: [LLMProvider: String] = [
        .openai: Keys.systemOpenAI, .anthropic: Keys.systemAnthropic, .google: Keys.systemGoogle,
    ]

    @Test(arguments: rows)
    func everyTierProviderAndStoredState(_ row: Row) async throws {
        let vault = UserKeyVault(
            store: try SQLiteLLMKeyStore(fileURL: Keys.temporaryFile("keys.sqlite")),
            cipher: try Keys.cipher()
        )
        if row.stored { try await vault.update(userId: "u1", [row.provider: Self.userKeys[row.provider]!]) }
        let resolver = LLMKeyResolver(systemKeys: Keys.systemKeys, vault: vault)
        let user = LLMUser(id: "u1", tier: row.tier)
        if row.tier.usesSystemKeys {
            let key = try await resolver.key(for: user, provider: row.provider)
            #expect(key.source == .system && key.key.revealed == Self.systemKeys[row.provider])
        } else if row.stored {
            let key = try await resolver.key(for: user, provider: row.provider)
            #expect(key.source == .user && key.key.revealed == Self.userKeys[row.provider])
        } else {
            await #expect { try await resolver.key(for: user, provider: row.provider) } throws: {
                ($0 as? LLMKeyError)?.code == .noKeyForProvider && ($0 as? LLMKeyError)?.provider == row.provider
            }
        }
        #expect(rows.count == 36)
    }

    var rows: [Row] { Self.rows }

    @Test func aProTierWithoutThatSystemKeyIsATypedErrorNotACrash() async throws {
        let vault = UserKeyVault(
            store: try SQLiteLLMKeyStore(fileURL: Keys.temporaryFile("keys.sqlite")),
            cipher: try Keys.cipher()
        )
        let resolver = LLMKeyResolver(systemKeys: LLMKeyResolver.systemKeys(from: ["OPENAI_API_KEY": ""]), vault: vault)
        await #expect(throws: LLMKeyError.self) {
            try await resolver.key(for: LLMUser(id: "u", tier: .pro), provider: .openai)
        }
    }

    @Test func theStatusIsTheDesignsJSON() async throws {
        let vault = UserKeyVault(
            store: try SQLiteLLMKeyStore(fileURL: Keys.temporaryFile("keys.sqlite")),
            cipher: try Keys.cipher()
        )
        try await vault.update(userId: "s1", [.openai: Keys.openai])
        let resolver = LLMKeyResolver(
            systemKeys: LLMKeyResolver.systemKeys(from: [
                "OPENAI_API_KEY": Keys.systemOpenAI, "ANTHROPIC_API_KEY": Keys.systemAnthropic,
            ]),
            vault: vault
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let pro = String(
            decoding: try encoder.encode(try await resolver.status(for: LLMUser(id: "p1", tier: .pro))),
            as: UTF8.self
        )
        #expect(
            pro
                == #"{"available_providers":["openai","anthropic"],"key_source":"system","needs_own_keys":false,"plan_tier":"pro","provider_details":{"anthropic":{"available":true,"source":"system"},"google":{"available":false,"source":null},"openai":{"available":true,"source":"system"}},"using_system_keys":true}"#
        )
        let starter = try await resolver.status(for: LLMUser(id: "s1", tier: .starter))
        #expect(starter.keySource == .user && starter.needsOwnKeys && !starter.usingSystemKeys)
        #expect(starter.availableProviders == ["openai"])
        #expect(starter.providerDetails["google"] == .init(available: false, source: nil))
        #expect(LLMKeyDecision(starter) == .useOwnKeys([.openai]))
        #expect(LLMKeyDecision(try await resolver.status(for: LLMUser(id: "new", tier: .free))) == .askForKeys)
    }

    @Test func theTierCanComeFromCustomerEntitlements() {
        func info(_ entitlements: [String]) -> CustomerInfo {
            let now = Date(timeIntervalSince1970: 1_795_348_800)
            return CustomerInfo(
                appUserId: "u1",
                entitlements: Dictionary(
                    uniqueKeysWithValues: entitlements.map {
                        (
                            $0,
                            EntitlementInfo(
                                id: $0,
                                isActive: true,
                                expirationDate: nil,
                                productId: "p",
                                store: .apple,
                                willRenew: false,
                                purchaseDate: now
                            )
                        )
                    }
                ),
                allTransactions: [],
                firstSeenAt: now,
                evaluatedAt: now
            )
        }
        let mapping: KeyValuePairs<String, PlanTier> = ["pro_plus": .proPlus, "pro": .pro]
        #expect(PlanTier.from(info(["pro"]), mapping: mapping) == .pro)
        #expect(PlanTier.from(info(["pro", "pro_plus"]), mapping: mapping) == .proPlus)
        #expect(PlanTier.from(info([]), mapping: mapping) == .starter)
        #expect(PlanTier.from(info(["other"]), mapping: mapping, fallback: .free) == .free)
    }
}

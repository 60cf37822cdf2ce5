import Foundation
import LLMFeatureGateExample
import LLMKeyResolver
import OpenCatCore
import Testing

/// The design's three scenarios as screens, against a backend in memory: A (a Pro tier, the system's keys), B (a
/// Starter user's own keys), C (no keys: the setup screen, save, check again).
struct LLMFeatureGateTests {
    /// Keys in each provider's format for this backend; none is a real key.
    static let openaiKey = "sk-example-openai-key-000123456"
    static let googleKey = "AI-example-google-key-000654321"

    let backend = InMemoryKeysBackend(tiers: ["pro-token": .pro, "trial-token": .proTrial, "starter-token": .starter])

    func gate(_ token: String) -> LLMFeatureGate {
        LLMFeatureGate(
            client: APIKeyStatusClient(
                baseURL: URL(string: "https://api.example.com")!,
                token: Secret(token),
                http: HTTPClient(transport: backend, retryPolicy: .never)
            )
        )
    }

    @Test(arguments: ["pro-token", "trial-token"])
    func aProTierGetsEveryFeatureOnTheSystemsKeys(token: String) async throws {
        #expect(try await gate(token).refresh() == .ready(LLMProvider.known))
    }

    @Test func aStarterUserWithoutKeysIsAskedForThemAndGetsTheFeaturesOfTheKeysSaved() async throws {
        let starter = gate("starter-token")
        #expect(try await starter.refresh() == .needsKeys)

        #expect(try await starter.saveKeys([.openai: Self.openaiKey]) == .ready([.openai]))
        #expect(try await starter.saveKeys([.google: Self.googleKey]) == .ready([.openai, .google]))
        #expect(try await starter.refresh() == .ready([.openai, .google]))

        // Deleting every key brings the setup screen back.
        #expect(try await starter.saveKeys([.openai: nil, .google: nil]) == .needsKeys)
    }

    @Test func aKeyInTheWrongFormatIsRefusedNamingTheFieldWithoutEchoingTheKey() async throws {
        let starter = gate("starter-token")
        let error = try await #require(throws: APIKeyStatusError.self) {
            try await starter.saveKeys([.openai: "sk-typo"])
        }
        #expect(error.code == .invalidKey)
        #expect(error.field == "openai")
        #expect(error.status == 422)
        #expect(!"\(error)".contains("sk-typo"))
        // Nothing was saved: the user is still on the setup screen.
        #expect(try await starter.refresh() == .needsKeys)
    }

    @Test func aRefusedTokenIsUnauthorized() async {
        let error = await #expect(throws: APIKeyStatusError.self) { try await gate("expired-token").refresh() }
        #expect(error?.code == .unauthorized)
    }

    @Test func eachDecisionHasOneScreen() {
        let pro = gate("pro-token")
        #expect(pro.screen(for: .useSystemKeys) == .ready(LLMProvider.known))
        #expect(pro.screen(for: .useOwnKeys([.anthropic])) == .ready([.anthropic]))
        #expect(pro.screen(for: .askForKeys) == .needsKeys)
        var openaiOnly = pro
        openaiOnly.allProviders = [.openai]
        #expect(openaiOnly.screen(for: .useSystemKeys) == .ready([.openai]))
    }
}

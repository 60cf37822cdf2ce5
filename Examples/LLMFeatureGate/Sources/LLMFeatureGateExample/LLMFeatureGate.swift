public import LLMKeyResolver

/// A worked example of the app side (design 003): after sign-in the app asks the backend for the key status and
/// turns the decision into what the UI shows.
///
/// ```swift
/// let gate = LLMFeatureGate(client: APIKeyStatusClient(baseURL: api, token: Secret(accessToken)))
/// switch try await gate.refresh() {
/// case .ready(let providers): enable(providers)          // A and B
/// case .needsKeys: showKeySetup()                         // C
/// }
/// // In the setup screen:
/// try await gate.saveKeys([.openai: typedKey])            // saves, checks again, returns the new screen
/// ```
public struct LLMFeatureGate: Sendable {
    /// What the app shows.
    public enum Screen: Sendable, Hashable {
        /// LLM features on, for these providers (all of them with the system's keys).
        case ready([LLMProvider])
        /// The "add your API keys" screen.
        case needsKeys
    }

    /// The app's client of the backend's key API, with the user's token.
    public let client: APIKeyStatusClient
    /// Every provider the app has features for.
    public var allProviders: [LLMProvider]

    /// Creates a gate.
    /// - Parameters:
    ///   - client: see ``client``.
    ///   - allProviders: see ``allProviders`` (default: the design's three, OpenAI, Anthropic and Google).
    public init(client: APIKeyStatusClient, allProviders: [LLMProvider] = LLMProvider.known) {
        self.client = client
        self.allProviders = allProviders
    }

    /// Scenario A (system keys) → every provider; B (own keys) → those; C (none) → the setup screen.
    /// - Parameter decision: the client's decision for the current status.
    /// - Returns: the screen to show.
    public func screen(for decision: LLMKeyDecision) -> Screen {
        switch decision {
        case .useSystemKeys: .ready(allProviders)
        case .useOwnKeys(let providers): .ready(providers)
        case .askForKeys: .needsKeys
        }
    }

    /// Checks the status and decides.
    /// - Returns: the screen to show.
    /// - Throws: ``APIKeyStatusError`` (`network`, `unauthorized`, `serverUnavailable`, `invalidResponse`), or
    ///   `CancellationError` when the task is cancelled.
    public func refresh() async throws -> Screen { screen(for: try await client.decision()) }

    /// Saves keys from the setup screen (nil deletes one), then checks again.
    /// - Parameter keys: a provider mapped to the key the user typed, or to `nil` to delete its key.
    /// - Returns: the screen to show after saving.
    /// - Throws: ``APIKeyStatusError`` `.invalidKey` naming the field to correct, or `CancellationError`.
    public func saveKeys(_ keys: [LLMProvider: String?]) async throws -> Screen {
        screen(for: try await client.save(keys))
    }
}

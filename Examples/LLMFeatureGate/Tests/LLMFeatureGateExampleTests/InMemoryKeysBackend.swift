import Foundation
import HTTPTypes
import LLMKeyResolver
import OpenCatCore

/// The backend's key API in memory, with no network, answering as LLMKeyResolverHTTP's `LLMKeysAPI` does:
/// `GET /api/api-key-status` (the design's JSON) and `POST /api/v1/settings/llm-keys` (partial: a key sets, `null`
/// deletes; a key in the wrong format is a 422 naming the field, never echoing the key); 401 without a known token.
/// Each token stands for a user on a plan tier; Pro tiers use the system's keys.
actor InMemoryKeysBackend: HTTPTransport {
    private let tiers: [String: PlanTier]
    /// The keys each token's user saved, by provider.
    private var saved: [String: [String: String]] = [:]

    /// Creates a backend.
    /// - Parameter tiers: each token and the plan tier of its user.
    init(tiers: [String: PlanTier]) {
        self.tiers = tiers
    }

    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        let bearer = request.headerFields[.authorization] ?? ""
        let token = bearer.hasPrefix("Bearer ") ? String(bearer.dropFirst("Bearer ".count)) : ""
        guard let tier = tiers[token] else { return Self.answer(401, #"{"error":{"code":"unauthorized"}}"#) }
        switch (request.method, request.path ?? "") {
        case (.get, "/api/api-key-status"):
            return Self.answer(200, try JSONEncoder().encode(status(tier: tier, keys: saved[token] ?? [:])))
        case (.post, "/api/v1/settings/llm-keys"):
            guard let body, let changes = try? JSONDecoder().decode([String: String?].self, from: body) else {
                return Self.answer(400, #"{"error":{"code":"bad_request"}}"#)
            }
            var keys = saved[token] ?? [:]
            for (provider, key) in changes.sorted(by: { $0.key < $1.key }) {
                guard LLMProvider.known.map(\.rawValue).contains(provider) else {
                    return Self.answer(400, #"{"error":{"code":"unknown_provider"}}"#)
                }
                guard let key else {
                    keys[provider] = nil
                    continue
                }
                guard Self.isWellFormed(key, for: provider) else {
                    return Self.answer(422, #"{"error":{"code":"invalid_key","field":"\#(provider)"}}"#)
                }
                keys[provider] = key
            }
            saved[token] = keys
            return Self.answer(200, "{}")
        default:
            return Self.answer(404, #"{"error":{"code":"not_found"}}"#)
        }
    }

    /// The design's status for a user: the system's keys on Pro tiers, otherwise the user's own.
    private func status(tier: PlanTier, keys: [String: String]) -> APIKeyStatus {
        let providers = LLMProvider.known.map(\.rawValue)
        if tier.usesSystemKeys {
            return APIKeyStatus(
                keySource: .system,
                planTier: tier.rawValue,
                usingSystemKeys: true,
                needsOwnKeys: false,
                availableProviders: providers,
                providerDetails: Dictionary(
                    uniqueKeysWithValues: providers.map {
                        ($0, APIKeyStatus.ProviderDetail(available: true, source: .system))
                    }
                )
            )
        }
        let available = providers.filter { keys[$0] != nil }
        return APIKeyStatus(
            keySource: .user,
            planTier: tier.rawValue,
            usingSystemKeys: false,
            needsOwnKeys: available.isEmpty,
            availableProviders: available,
            providerDetails: Dictionary(
                uniqueKeysWithValues: providers.map { provider in
                    let has = keys[provider] != nil
                    return (provider, APIKeyStatus.ProviderDetail(available: has, source: has ? .user : nil))
                }
            )
        )
    }

    /// This backend's format check: a provider's prefix, at least 24 characters, no whitespace.
    static func isWellFormed(_ key: String, for provider: String) -> Bool {
        let prefix = ["openai": "sk-", "anthropic": "sk-ant-", "google": "AI"][provider] ?? ""
        return key.hasPrefix(prefix) && key.count >= 24 && !key.contains(where: \.isWhitespace)
    }

    private static func answer(_ status: Int, _ json: String) -> HTTPTransportResponse {
        answer(status, Data(json.utf8))
    }

    private static func answer(_ status: Int, _ json: Data) -> HTTPTransportResponse {
        HTTPTransportResponse(
            head: HTTPResponse(status: .init(code: status), headerFields: [.contentType: "application/json"]),
            body: json
        )
    }
}

public import Foundation
import HTTPTypes
public import OpenCatCore

/// What an app does with a status: the design's three scenarios as one typed decision.
public enum LLMKeyDecision: Sendable, Hashable {
    /// A: the backend uses its own keys: enable every LLM feature.
    case useSystemKeys
    /// B: the user's own keys: enable the features of these providers.
    case useOwnKeys([LLMProvider])
    /// C: the user must add keys: show the setup screen, save, check again.
    case askForKeys

    /// The decision for a status.
    public init(_ status: APIKeyStatus) {
        if status.usingSystemKeys {
            self = .useSystemKeys
        } else if status.availableProviders.isEmpty {
            self = .askForKeys
        } else {
            self = .useOwnKeys(status.availableProviders.map(LLMProvider.init(rawValue:)))
        }
    }
}

/// The app side of the API: checks the status, saves keys, and decides.
public struct APIKeyStatusClient: Sendable {
    public let baseURL: URL
    public let token: Secret<String>
    let http: HTTPClient

    public init(baseURL: URL, token: Secret<String>, http: HTTPClient = HTTPClient()) {
        self.baseURL = baseURL
        self.token = token
        self.http = http
    }

    /// `GET /api/api-key-status`.
    public func status() async throws(APIKeyStatusError) -> APIKeyStatus {
        try decode(APIKeyStatus.self, try await send(.get, "/api/api-key-status", body: nil))
    }

    /// The decision for the current status.
    public func decision() async throws(APIKeyStatusError) -> LLMKeyDecision { LLMKeyDecision(try await status()) }

    /// `GET /api/v1/settings/llm-keys`: the stored keys, masked.
    public func maskedKeys() async throws(APIKeyStatusError) -> [String: String] {
        try decode([String: String].self, try await send(.get, "/api/v1/settings/llm-keys", body: nil))
    }

    /// `POST /api/v1/settings/llm-keys`: a provider mapped to a key sets it, to nil deletes it; others unchanged.
    /// Scenario C ends here: save, then check the status again.
    /// - Returns: the decision after saving.
    @discardableResult
    public func save(_ keys: [LLMProvider: String?]) async throws(APIKeyStatusError) -> LLMKeyDecision {
        var object: [String: Any] = [:]
        for (provider, key) in keys { object[provider.rawValue] = key ?? NSNull() }
        guard let body = try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys) else {
            throw APIKeyStatusError(.invalidResponse, "the keys could not be encoded")
        }
        _ = try await send(.post, "/api/v1/settings/llm-keys", body: body)
        return try await decision()
    }

    func send(_ method: HTTPRequest.Method, _ path: String, body: Data?) async throws(APIKeyStatusError) -> Data {
        let base =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + path) else { throw APIKeyStatusError(.invalidResponse, "bad base URL") }
        var request = HTTPRequest(method: method, url: url)
        request.headerFields[.authorization] = "Bearer \(token.revealed)"
        request.headerFields[.accept] = "application/json"
        if body != nil { request.headerFields[.contentType] = "application/json" }
        let response: HTTPTransportResponse
        do { response = try await http.send(request, body: body) } catch {
            throw APIKeyStatusError(.network, "the server could not be reached")
        }
        switch response.status.code {
        case 200..<300: return response.body
        case 401, 403: throw APIKeyStatusError(.unauthorized, "the token was refused", status: response.status.code)
        case 422:
            let field = (try? JSONDecoder().decode([String: [String: String]].self, from: response.body))?["error"]?[
                "field"
            ]
            throw APIKeyStatusError(.invalidKey, "a key is not in its provider's format", status: 422, field: field)
        case 500...: throw APIKeyStatusError(.serverUnavailable, "the server failed", status: response.status.code)
        default: throw APIKeyStatusError(.invalidResponse, "unexpected answer", status: response.status.code)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(APIKeyStatusError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw APIKeyStatusError(.invalidResponse, "the server sent an unreadable \(T.self)")
        }
    }
}

/// An app-side failure. Never carries a key or the token.
public struct APIKeyStatusError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case network, unauthorized, invalidKey, serverUnavailable, invalidResponse
    }

    public var code: Code
    public var message: String
    public var status: Int?
    /// For `invalidKey`: the provider field the server refused.
    public var field: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.field = field
    }

    public var description: String { "APIKeyStatusError.\(code): \(message)" }
}

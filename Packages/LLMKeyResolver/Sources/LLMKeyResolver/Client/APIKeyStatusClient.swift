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
///
/// Every call throws an ``APIKeyStatusError``, or `CancellationError` when its task is cancelled.
public struct APIKeyStatusClient: Sendable {
    /// The backend's base URL; the API's paths (`/api/api-key-status`, `/api/v1/settings/llm-keys`) are resolved
    /// against it.
    public let baseURL: URL
    /// The user's bearer token, sent as `Authorization: Bearer …` on every call (a `Secret`: it prints redacted).
    public let token: Secret<String>
    let http: HTTPClient

    /// A client for the backend at `baseURL`, calling as the holder of `token` through `http` (timeouts, retries).
    public init(baseURL: URL, token: Secret<String>, http: HTTPClient = HTTPClient()) {
        self.baseURL = baseURL
        self.token = token
        self.http = http
    }

    /// `GET /api/api-key-status`.
    public func status() async throws -> APIKeyStatus {
        try await api.send(.get, "/api/api-key-status")
    }

    /// The decision for the current status.
    public func decision() async throws -> LLMKeyDecision { LLMKeyDecision(try await status()) }

    /// `GET /api/v1/settings/llm-keys`: the stored keys, masked.
    public func maskedKeys() async throws -> [String: String] {
        try await api.send(.get, "/api/v1/settings/llm-keys")
    }

    /// `POST /api/v1/settings/llm-keys`: a provider mapped to a key sets it, to nil deletes it; others unchanged.
    /// Scenario C ends here: save, then check the status again.
    /// - Returns: the decision after saving.
    @discardableResult
    public func save(_ keys: [LLMProvider: String?]) async throws -> LLMKeyDecision {
        let body = Dictionary(uniqueKeysWithValues: keys.map { ($0.key.rawValue, $0.value) })
        _ = try await api.exchange(.post, "/api/v1/settings/llm-keys", body: body)
        return try await decision()
    }

    /// The API's edge: the bearer token, ``APIKeyStatusError``s.
    var api: JSONAPIClient<APIKeyStatusError> {
        JSONAPIClient(baseURL: baseURL, http: http, bearerToken: token) { APIKeyStatusError.from($0) }
    }
}

/// An app-side failure. Never carries a key or the token.
public struct APIKeyStatusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// `network`: the server could not be reached; `unauthorized`: 401/403, the token was refused;
        /// `invalidKey`: 422, a key is not in its provider's format (see `field`); `serverUnavailable`: 5xx;
        /// `invalidResponse`: any other status, an unreadable answer, or a request that could not be built.
        case network, unauthorized, invalidKey, serverUnavailable, invalidResponse
    }

    /// What went wrong.
    public var code: Code
    /// A one-line reason for logs and developers (never a key or the token).
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// For `invalidKey`: the provider field the server refused.
    public var field: String?

    /// An error with its code and message; `status` and `field` as the properties of the same names.
    public init(_ code: Code, _ message: String, status: Int? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.field = field
    }

    /// `APIKeyStatusError.<code>: <message>`, for logs.
    public var description: String { "APIKeyStatusError.\(code): \(message)" }

    /// The error for a failed call.
    static func from(_ failure: JSONAPIFailure) -> APIKeyStatusError {
        switch failure {
        case .invalidRequest(let reason): APIKeyStatusError(.invalidResponse, reason)
        case .transport: APIKeyStatusError(.network, "the server could not be reached")
        case .unreadable(_, let type, _): APIKeyStatusError(.invalidResponse, "the server sent an unreadable \(type)")
        case .refused(let status, let envelope, _):
            switch status {
            case 401, 403: APIKeyStatusError(.unauthorized, "the token was refused", status: status)
            case 422:
                APIKeyStatusError(
                    .invalidKey,
                    "a key is not in its provider's format",
                    status: 422,
                    field: envelope?.field
                )
            case 500...: APIKeyStatusError(.serverUnavailable, "the server failed", status: status)
            default: APIKeyStatusError(.invalidResponse, "unexpected answer", status: status)
            }
        }
    }
}

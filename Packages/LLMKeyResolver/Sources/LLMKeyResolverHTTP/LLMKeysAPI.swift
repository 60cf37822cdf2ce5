public import Foundation
public import HTTPTypes
public import LLMKeyResolver
public import Logging
public import OpenCatCore

/// The design's HTTP API, framework-agnostic over swift-http-types:
/// - `GET /api/api-key-status` → `APIKeyStatus`;
/// - `GET /api/v1/settings/llm-keys` → the stored keys, masked (`{"openai": "sk-...xyz123", …}`);
/// - `POST /api/v1/settings/llm-keys` `{openai?, anthropic?, google?}`: absent unchanged, null deletes; a key in the
///   wrong format answers 422 naming the field, never echoing the key;
/// - `GET /openapi.yaml` → ``openAPIDocument`` (no token).
/// Every route needs `Authorization: Bearer <token>` (401 otherwise, with `error.reason` naming the failed check, an
/// ``LLMAuthenticationError/Code``). Errors are `{"error": {"code", "message"}}`.
public struct LLMKeysAPI: Sendable {
    /// Resolves statuses and reads and writes the users' keys.
    public let resolver: LLMKeyResolver
    /// Turns a bearer token into a user.
    public let authenticator: any LLMAuthenticator
    /// The time tokens are checked at.
    public let clock: any WallClock
    /// Where failures are logged (never a key or a token); silent by default.
    public let logger: Logger

    /// The API over a resolver and an authenticator; the system clock and a silent logger by default.
    public init(
        resolver: LLMKeyResolver,
        authenticator: any LLMAuthenticator,
        clock: any WallClock = SystemClock(),
        logger: Logger = Logger(label: "dev.opencat.llmkeys", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.resolver = resolver
        self.authenticator = authenticator
        self.clock = clock
        self.logger = logger
    }

    /// The largest request body accepted.
    public static let maximumBodyBytes = 16 * 1024

    /// Answers one request.
    public func handle(_ request: HTTPRequest, body: Data) async -> (HTTPResponse, Data) {
        let path = String((request.path ?? "").prefix { $0 != "?" })
        let route = (request.method, path)
        guard let methods = Self.routes[path] else { return Self.error(.notFound, "not_found", "no such route") }
        guard methods.contains(request.method.rawValue) else {
            var (response, data) = Self.error(
                .methodNotAllowed,
                "method_not_allowed",
                "\(request.method) is not allowed here"
            )
            response.headerFields[.allow] = methods.joined(separator: ", ")
            return (response, data)
        }
        if path == "/openapi.yaml" {
            var response = HTTPResponse(status: .ok)
            response.headerFields[.contentType] = "application/yaml"
            return (response, Data(Self.openAPIDocument.utf8))
        }
        let user: LLMUser
        do throws(LLMAuthenticationError) {
            guard let token = HTTPAuthorization.bearerToken(in: request.headerFields[.authorization]) else {
                throw LLMAuthenticationError(.missing, "no bearer token")
            }
            user = try authenticator.authenticate(bearerToken: token, now: clock.currentDate)
        } catch {
            // The reason only: never the token, nor any of its claims.
            logger.notice("bearer token refused", metadata: ["reason": "\(error.code)"])
            return Self.error(
                .unauthorized,
                "unauthorized",
                "a valid bearer token is required",
                reason: error.code.rawValue
            )
        }
        do {
            switch route {
            case (.get, "/api/api-key-status"):
                return try Self.json(.ok, await resolver.status(for: user))
            case (.get, "/api/v1/settings/llm-keys"):
                let keys = try await resolver.vault.keys(for: user.id)
                return try Self.json(
                    .ok,
                    Dictionary(uniqueKeysWithValues: keys.map { ($0.key.rawValue, KeyFormat.mask($0.value)) })
                )
            case (.post, "/api/v1/settings/llm-keys"):
                guard body.count <= Self.maximumBodyBytes else {
                    return Self.error(.contentTooLarge, "too_large", "the body is too large")
                }
                guard let changes = Self.changes(body) else {
                    return Self.error(
                        .badRequest,
                        "invalid_body",
                        "expected {openai?, anthropic?, google?} as strings or null"
                    )
                }
                for case (let provider, let key?) in changes {
                    do { try KeyFormat.validate(key, for: provider) } catch {
                        return Self.error(
                            .unprocessableContent,
                            "invalid_key_format",
                            "\(provider.rawValue): not a valid \(provider.rawValue) key",
                            field: provider.rawValue
                        )
                    }
                }
                let keys = try await resolver.vault.update(userId: user.id, changes)
                return try Self.json(
                    .ok,
                    Dictionary(uniqueKeysWithValues: keys.map { ($0.key.rawValue, KeyFormat.mask($0.value)) })
                )
            default:
                return Self.error(.methodNotAllowed, "method_not_allowed", "\(request.method) is not allowed here")
            }
        } catch let error as LLMKeyError {
            logger.error("llm keys request failed", metadata: ["code": "\(error.code)"])
            return Self.error(.internalServerError, error.code.rawValue, "the keys could not be read or written")
        } catch {
            return Self.error(.internalServerError, "internal", "internal error")
        }
    }

    /// The partial update in a body: each known provider absent (unchanged), null (delete) or a string (set).
    static func changes(_ body: Data) -> [LLMProvider: String?]? {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
        var changes: [LLMProvider: String?] = [:]
        for (name, value) in object {
            let provider = LLMProvider(rawValue: name)
            guard LLMProvider.known.contains(provider) else { return nil }
            if value is NSNull {
                changes[provider] = .some(nil)
            } else if let key = value as? String {
                changes[provider] = key
            } else {
                return nil
            }
        }
        return changes
    }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> (HTTPResponse, Data) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = "application/json"
        return (response, try encoder.encode(value))
    }

    /// An error answer: `{"error": {"code", "message", "field"?, "reason"?}}` (`reason`: why a token was refused,
    /// an ``LLMAuthenticationError/Code``).
    public static func error(
        _ status: HTTPResponse.Status,
        _ code: String,
        _ message: String,
        field: String? = nil,
        reason: String? = nil
    )
        -> (HTTPResponse, Data)
    {
        let answer = JSONAPIErrorAnswer(
            error: JSONAPIErrorEnvelope(code: code, message: message, reason: reason, field: field)
        )
        return (try? json(status, answer)) ?? (HTTPResponse(status: status), Data())
    }
}

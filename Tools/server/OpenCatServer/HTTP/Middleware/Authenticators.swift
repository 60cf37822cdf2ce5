import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import OpenCatCore

/// `/api/v1`: the key-server user a bearer token names (`usersFile`); no identity without one (the routes that need
/// it answer 401).
struct KeyServerAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let users: BearerTokens

    func authenticate(request: Request, context: ServerRequestContext) async throws -> Caller? {
        guard let token = HTTPAuthorization.bearerToken(in: request.headers[.authorization]) else { return nil }
        return users.user(token: token).map(Caller.user)
    }
}

/// `/v1` (receipts, subscribers, offerings): an app's OpenCat API key, public or secret; the whole group answers 404
/// when the server has no OpenCat API.
struct AppKeyAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let api: OpenCatAPISettings?

    func authenticate(request: Request, context: ServerRequestContext) async throws -> Caller? {
        guard let api else { throw APIError(.notFound, "not_found", "the OpenCat API is off") }
        guard let key = HTTPAuthorization.bearerToken(in: request.headers[.authorization]) else { return nil }
        let hash = BearerTokens.hash(key)
        if api.secretKeySHA256.contains(hash) {
            return .app(OpenCatCaller(settings: api, isSecret: true, keyHash: hash))
        }
        guard api.apiKeySHA256.contains(hash) else { return nil }
        return .app(OpenCatCaller(settings: api, isSecret: false, keyHash: hash))
    }
}

/// `/metrics`: a console operator's token (`portal.operators`, compared by SHA-256 in constant time).
struct OperatorTokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let operators: [PortalSettings.Operator]

    func authenticate(request: Request, context: ServerRequestContext) async throws -> Caller? {
        guard let token = HTTPAuthorization.bearerToken(in: request.headers[.authorization]) else { return nil }
        let hash = Data(Fingerprint.hex(of: token).utf8)
        return operators.first { ConstantTime.equals(Data($0.tokenSHA256.utf8), hash) }.map { .operator($0.name) }
    }
}

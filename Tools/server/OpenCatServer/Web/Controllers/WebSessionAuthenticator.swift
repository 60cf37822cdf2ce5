import Foundation
import Hummingbird
import HummingbirdAuth

/// `/portal` and `/console`: the signed-in portal user or console operator a session cookie names (HttpOnly,
/// SameSite=Strict, looked up by its SHA-256 in the web sessions). No identity without a live session: the pages that
/// need one send the browser to sign in.
struct WebSessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext

    /// The caller a request's session cookie names, as the area's controller reads it.
    let caller: @Sendable (Request) async throws -> Caller?

    init(_ caller: @escaping @Sendable (Request) async throws -> Caller?) { self.caller = caller }

    func authenticate(request: Request, context: ServerRequestContext) async throws -> Caller? {
        try await caller(request)
    }
}

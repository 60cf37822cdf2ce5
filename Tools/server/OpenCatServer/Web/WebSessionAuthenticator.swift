import Foundation
import Hummingbird
import HummingbirdAuth

/// `/portal` and `/console`: the signed-in portal user or console operator a session cookie names (HttpOnly,
/// SameSite=Strict, looked up by its SHA-256 in the ledger's web sessions). No identity without a live session: the
/// pages that need one send the browser to sign in.
struct WebSessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext

    /// Which area's cookie is read.
    enum Area: Sendable {
        case portal
        case console
    }

    let server: OpenCatServerApplication
    let area: Area

    func authenticate(request: Request, context: ServerRequestContext) async throws -> Caller? {
        switch area {
        case .portal: try await server.portalSession(request).map(Caller.portal)
        case .console: try await server.consoleOperator(request).map(Caller.console)
        }
    }
}

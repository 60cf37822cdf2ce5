import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The routes a router registered, by path template: which methods a path answers (405 and `Allow` for the rest).
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, path: RouterPath)]>([])

    /// Takes the router's routes once they are all registered.
    func set(_ described: [(method: HTTPRequest.Method, path: RouterPath)]) {
        routes.withLock { $0 = described }
    }

    /// The methods registered for a concrete path (empty: no route has this path). As the router's trie resolves a
    /// path, a constant segment wins over a capture: `/api/v1/wallet/spend` is the spend route's path, never the
    /// wallet of a user named `spend`.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = routes.withLock { routes in
            routes.compactMap { route in Self.specificity(route.path, segments).map { (route.method, $0) } }
        }
        guard let best = matching.map(\.1).max(by: { $0.lexicographicallyPrecedes($1) }) else { return [] }
        var seen = Set<String>()
        return matching.filter { $0.1 == best }.map(\.0).filter { seen.insert($0.rawValue).inserted }
            .sorted { $0.rawValue < $1.rawValue }
    }

    /// How closely a template matches the segments (2 a constant, 1 a capture or wildcard, 0 the rest of the path,
    /// per segment), or nil when it does not match.
    static func specificity(_ template: RouterPath, _ segments: [Substring]) -> [Int]? {
        var index = 0
        var ranks: [Int] = []
        for component in template.components {
            if component == .recursiveWildcard { return ranks + [0] }
            guard index < segments.count, component ~= segments[index] else { return nil }
            ranks.append(component == segments[index] ? 2 : 1)
            index += 1
        }
        return index == segments.count ? ranks : nil
    }
}

/// Answers what no route answered in the servers' JSON error envelope: Hummingbird's own `HTTPError`s (an unknown
/// route is 404 `not_found`, a known path asked with another method 405 `method_not_allowed` with `Allow`, a body
/// over the limit 413), and anything unexpected as a 500 `internal` that is logged by its type only (an error's
/// description can quote a secret). ``APIError`` and ``LedgerError`` answer themselves.
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            throw envelope(error, request)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw APIError(.internalServerError, "internal", "the server could not complete the request")
        }
    }

    func envelope(_ error: HTTPError, _ request: Request) -> APIError {
        if error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard allowed.isEmpty || allowed.contains(request.method) else {
                return APIError(
                    .methodNotAllowed,
                    "method_not_allowed",
                    "\(request.method.rawValue) is not allowed here",
                    headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")]
                )
            }
            return APIError(.notFound, "not_found", "no such route")
        }
        let code =
            switch error.status {
            case .contentTooLarge: "invalid_input"
            case .unsupportedMediaType: "unsupported_media_type"
            case .badRequest: "invalid_input"
            default: error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            }
        return APIError(error.status, code, error.body ?? error.status.reasonPhrase, headers: error.headers)
    }
}

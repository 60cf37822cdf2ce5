import Hummingbird
import MockStores

/// Hands every request to the server's script (no routing: matching is the script's job).
struct MockResponder: HTTPResponder {
    typealias Context = MockRequestContext

    let server: MockStoreServer

    func respond(to request: Request, context: MockRequestContext) async throws -> Response {
        try await server.respond(to: request, channel: context.channel)
    }
}

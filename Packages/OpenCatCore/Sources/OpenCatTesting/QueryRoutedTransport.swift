public import Foundation
public import HTTPTypes
public import OpenCatCore

/// A transport that answers each request with the ``ScriptedTransport`` scripted for the value of one query item
/// (Steam's `ticket` or `transid`), and every other request with ``others``. A ``ScriptedTransport`` matches paths,
/// not queries: this is how one API answers differently per id.
public struct QueryRoutedTransport: HTTPTransport {
    /// The query item whose value picks the transport.
    public var item: String
    /// The transports, by the item's value.
    public var routes: [String: ScriptedTransport]
    /// Answers requests without the item, or with a value that has no route.
    public var others: ScriptedTransport

    /// A transport routing by a query item's value.
    public init(routingBy item: String, routes: [String: ScriptedTransport], others: ScriptedTransport) {
        self.item = item
        self.routes = routes
        self.others = others
    }

    /// Sends the request through the transport its query item names, else through ``others``.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        let value = URLComponents(string: request.path ?? "")?.queryItems?.first { $0.name == item }?.value
        return try await (value.flatMap { routes[$0] } ?? others).send(request, body: body)
    }
}

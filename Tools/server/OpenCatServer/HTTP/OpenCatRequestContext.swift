import Foundation
public import Hummingbird
public import NIOCore

/// The request context of every route: Hummingbird's core context and the peer's address (the client, unless a
/// proxy is in between: see ``ServerSettings/clientAddressHeader``).
public struct OpenCatRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The address the connection came from.
    public let remoteAddress: SocketAddress?

    /// A context for a request on a channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// A path parameter, percent-decoded (clients encode `@`, `:`, `|`, … in path segments).
    func decoded(_ name: String) -> String? {
        parameters.get(name).flatMap { $0.removingPercentEncoding }
    }
}

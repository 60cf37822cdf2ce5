/// Errors of ``MockStoreServer``'s own API (the HTTP side answers with status codes instead).
public enum MockStoreServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// ``MockStoreServer/run()`` or ``MockStoreServer/start()`` was called on a server that already ran.
    case alreadyStarted
    /// The server is not listening (stopped, or it could not bind).
    case notRunning
    /// ``MockStoreServer/verify(allowUnused:)`` found unmatched requests or unused interactions (one line each).
    case scriptNotFollowed([String])
    /// A request was held or reset by a fault and its connection closed without a response.
    case connectionClosed
    /// The requested port is outside 0…65535 (it would otherwise be truncated to some other port).
    case invalidPort(Int)

    public var description: String {
        switch self {
        case .alreadyStarted: return "MockStoreServer: a server runs once; create a new one"
        case .notRunning: return "MockStoreServer: the server is not running"
        case .scriptNotFollowed(let lines):
            return "MockStoreServer: the cassette script was not followed:\n"
                + lines.map { "  - " + $0 }.joined(separator: "\n")
        case .connectionClosed: return "MockStoreServer: connection closed without a response (fault)"
        case .invalidPort(let port): return "MockStoreServer: port \(port) is outside 0...65535"
        }
    }
}

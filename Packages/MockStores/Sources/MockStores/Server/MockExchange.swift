public import OpenCatCore

/// How `MockStoreServer` handled one request (`MockStoreServer/exchanges`).
public struct MockExchange: Sendable, Hashable {
    /// Who answered.
    public enum Handling: Sendable, Hashable {
        /// A cassette interaction.
        case interaction(InteractionReference)
        /// A built-in endpoint of an authenticator (a token endpoint with no cassette entry).
        case builtIn(Store)
        /// The store's auth check refused the request before any interaction answered.
        case rejectedByAuth(Store)
        /// No interaction matched (answered 599).
        case unmatched
    }

    /// The request.
    public var request: MockRequest
    /// Who answered.
    public var handling: Handling
    /// The fault applied, if any.
    public var fault: Cassette.Fault.Kind?
    /// The status sent, or `nil` when no response was sent (timeout, reset).
    public var status: Int?

    /// Creates a record.
    public init(request: MockRequest, handling: Handling, fault: Cassette.Fault.Kind? = nil, status: Int?) {
        self.request = request
        self.handling = handling
        self.fault = fault
        self.status = status
    }
}

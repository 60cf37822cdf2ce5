/// Checks the credentials of requests to one store's API the way the real service does, and serves the endpoints a
/// client needs before it can call the API (OAuth token endpoints).
///
/// `MockStoreServer` has a built-in authenticator for every store of ``MockCredentials`` and accepts more through
/// `MockStoreServer/setAuthenticator(_:for:)` (for APIs added later, or a third-party store).
public protocol MockAuthenticator: Sendable {
    /// Checks a request that matched an interaction of this store.
    /// - Returns: `nil` to accept it, or the store's rejection (401/403) to send instead of the interaction.
    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse?

    /// Answers a request that no interaction matched, when the authenticator serves it itself (the PayPal and Google
    /// token endpoints issue tokens without a cassette entry).
    /// - Returns: the response, or `nil` when the request is not one of its endpoints.
    func builtInResponse(to request: MockRequest, context: MockAuthContext) -> MockResponse?

    /// Sees a response a cassette interaction gave to a request of this store (to learn the access token a scripted
    /// token endpoint issued).
    func observe(_ response: MockResponse, to request: MockRequest)
}

extension MockAuthenticator {
    /// Serves nothing by itself.
    public func builtInResponse(to request: MockRequest, context: MockAuthContext) -> MockResponse? { nil }
    /// Learns nothing.
    public func observe(_ response: MockResponse, to request: MockRequest) {}
}

public import Foundation

/// What an authenticator knows about the server when it checks a request.
public struct MockAuthContext: Sendable {
    /// The server's base URL (`http://127.0.0.1:PORT`).
    public var baseURL: URL
    /// The current date on the server's clock (for `exp` checks).
    public var now: Date

    /// Creates a context.
    public init(baseURL: URL, now: Date) {
        self.baseURL = baseURL
        self.now = now
    }
}

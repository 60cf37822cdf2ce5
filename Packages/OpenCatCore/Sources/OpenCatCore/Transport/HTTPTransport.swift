public import Foundation
public import HTTPTypes

/// Sends one HTTP request and returns the response: the seam every OpenCat client talks through.
///
/// Implementations do one attempt and nothing more; retries, back-off and timeouts live in ``HTTPClient``.
/// Production code uses ``URLSessionTransport``; tests use an in-process double or a MockStores server on
/// loopback. An implementation must honour task cancellation (``HTTPClient`` cancels an attempt on timeout).
public protocol HTTPTransport: Sendable {
    /// Sends a request.
    /// - Parameters:
    ///   - request: method, URL parts and header fields.
    ///   - body: the request body, if any.
    /// - Returns: the response head and its whole body.
    /// - Throws: ``HTTPTransportError`` when no HTTP response was received.
    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse
}

/// A response head with its complete body.
public struct HTTPTransportResponse: Sendable, Equatable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body bytes.
    public var body: Data

    /// Creates a response.
    public init(head: HTTPResponse, body: Data = Data()) {
        self.head = head
        self.body = body
    }

    /// Convenience for the status.
    public var status: HTTPResponse.Status { head.status }
}

/// Why no HTTP response was received.
public struct HTTPTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible: new codes are not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No response within the request's timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// The connection could not be made or was lost (refused, reset, DNS failure).
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// The request could not be turned into a network request (bad URL).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// Something came back that is not an HTTP response.
        public static let invalidResponse = Code(rawValue: "invalidResponse")
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable reason. Never contains request bodies or header values.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTPTransportError(\(code)): \(message)" }
}

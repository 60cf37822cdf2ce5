import AsyncHTTPClient
public import Foundation
public import HTTPTypes
import NIOCore
import NIOHTTP1
public import OpenCatCore

/// An `HTTPTransport` on swift-server's AsyncHTTPClient: the transport for servers on Linux.
///
/// OpenCatCore's `HTTPClient` keeps doing retries, back-off and per-attempt deadlines on its injected clock; this
/// type only moves bytes:
/// - **No redirects.** A 3xx is returned as it is, so `Authorization` and API-key headers never follow a redirect
///   to another host.
/// - **Cancellation is immediate.** Cancelling the calling task cancels the request (AsyncHTTPClient's
///   structured `execute`), so a timed-out attempt never lingers.
/// - **Bounded bodies.** A response body larger than ``maximumResponseBytes`` is an
///   `HTTPTransportError/Code/invalidResponse` error, read no further.
///
/// The transport owns an AsyncHTTPClient client (on the shared event-loop group) unless given one; call
/// ``shutdown()`` when done with a client it owns. Errors never carry request headers or bodies.
public final class AsyncHTTPClientTransport: HTTPTransport, Sendable {
    /// The largest response body read (default 16 MiB; store answers are a few kilobytes).
    public let maximumResponseBytes: Int
    private let client: AsyncHTTPClient.HTTPClient
    private let ownsClient: Bool

    /// Creates a transport with its own client: no redirects, a generous connect timeout (deadlines are
    /// `HTTPClient`'s job), HTTP/1.1 and HTTP/2.
    /// - Parameter maximumResponseBytes: see ``maximumResponseBytes``.
    public init(maximumResponseBytes: Int = 16 * 1024 * 1024) {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(30))
        )
        configuration.decompression = .disabled
        self.client = AsyncHTTPClient.HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: configuration
        )
        self.ownsClient = true
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Creates a transport on a client the caller configures and shuts down (make sure it does not follow
    /// redirects).
    public init(client: AsyncHTTPClient.HTTPClient, maximumResponseBytes: Int = 16 * 1024 * 1024) {
        self.client = client
        self.ownsClient = false
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Shuts down the client this transport created (nothing for a client given to it).
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        guard let url = request.url else { throw HTTPTransportError(.invalidRequest, "the request has no valid URL") }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            // The attempt's deadline is HTTPClient's (on its injected clock); this one only bounds a stuck socket.
            let response = try await client.execute(outgoing, timeout: .minutes(5))
            let bytes = try await response.body.collect(upTo: maximumResponseBytes)
            var fields = HTTPFields()
            for header in response.headers {
                if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
            }
            let head = HTTPResponse(
                status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
                headerFields: fields
            )
            return HTTPTransportResponse(head: head, body: Data(bytes.readableBytesView))
        } catch {
            throw Self.map(error)
        }
    }

    /// Maps AsyncHTTPClient's and NIO's errors to ``HTTPTransportError`` (cancellation stays cancellation).
    static func map(_ error: any Error) -> any Error {
        if error is CancellationError { return error }
        if error is NIOTooManyBytesError {
            return HTTPTransportError(.invalidResponse, "the response body is larger than the transport's limit")
        }
        if let error = error as? HTTPClientError {
            if error == .cancelled { return CancellationError() }
            if [.deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout].contains(error) {
                return HTTPTransportError(.timeout, "the request timed out")
            }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) {
                return HTTPTransportError(.invalidRequest, "unsupported URL")
            }
            return HTTPTransportError(.connectionFailed, "connection failed")
        }
        return HTTPTransportError(.connectionFailed, "connection failed (\(type(of: error)))")
    }
}

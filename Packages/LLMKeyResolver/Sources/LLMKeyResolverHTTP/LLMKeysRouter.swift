import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore

/// The API as a Hummingbird responder: every request is handed to ``LLMKeysAPI`` (bodies up to
/// ``LLMKeysAPI/maximumBodyBytes``).
public struct LLMKeysResponder: HTTPResponder {
    /// Hummingbird's basic request context: the API needs nothing more.
    public typealias Context = BasicRequestContext
    /// The API every request is handed to.
    public let api: LLMKeysAPI

    /// A responder for `api`.
    public init(api: LLMKeysAPI) { self.api = api }

    /// Collects the body (at most `LLMKeysAPI.maximumBodyBytes`) and answers with the API's response.
    public func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: LLMKeysAPI.maximumBodyBytes) } catch {
            let (head, data) = LLMKeysAPI.error(.contentTooLarge, "too_large", "the body is too large")
            return Response(
                status: head.status,
                headers: head.headerFields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
            )
        }
        let (response, data) = await api.handle(request.head, body: Data(body.readableBytesView))
        return Response(
            status: response.status,
            headers: response.headerFields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

extension LLMKeysAPI {
    /// A Hummingbird application serving the API on an address (`opencat-server llm-keys` binds `--host`, 127.0.0.1 by default).
    public func application(
        host: String = "127.0.0.1",
        port: Int,
        onServerRunning: @escaping @Sendable (Int) -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        Application(
            responder: LLMKeysResponder(api: self),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

import Foundation
public import Hummingbird
public import NIOCore
import OpenCatCore

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

extension OpenCatRequestContext {
    /// Request bodies are read by ``OpenCatRequestDecoder`` (`request.decode(as:context:)`).
    public var requestDecoder: OpenCatRequestDecoder { OpenCatRequestDecoder() }
}

/// Reads a JSON request body as the server's APIs define it: `Content-Type: application/json` (UTF-8; 415
/// otherwise), at most 256 KiB (413), strict JSON (``StrictJSON``: no repeated member, integer numbers; 400), then
/// decoded with the project's JSON coding (`JSONCoding`; 400 when it is not the expected shape).
public struct OpenCatRequestDecoder: RequestDecoder {
    /// The largest body a route reads.
    public static let maximumBodyBytes = 256 * 1024

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext)
        async throws -> T
    {
        try Self.checkContentType(request.headers[.contentType])
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: Self.maximumBodyBytes) } catch {
            throw APIError(.contentTooLarge, "invalid_input", "the body is too large")
        }
        return try Self.decode(T.self, json: Data(buffer.readableBytesView))
    }

    /// 415 unless the content type is `application/json` (parameters allowed; a charset only if UTF-8).
    static func checkContentType(_ value: String?) throws(APIError) {
        let parts = (value ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let charsetOK = parts.dropFirst().allSatisfy { parameter in
            !parameter.hasPrefix("charset=") || ["charset=utf-8", "charset=\"utf-8\""].contains(parameter)
        }
        guard parts.first == "application/json", charsetOK else {
            throw APIError(.unsupportedMediaType, "unsupported_media_type", "the body must be application/json (UTF-8)")
        }
    }

    /// A body already read, checked and decoded.
    static func decode<T: Decodable>(_ type: T.Type, json data: Data) throws(APIError) -> T {
        do { try StrictJSON.check(data) } catch { throw APIError(.badRequest, "invalid_input", error.message) }
        do { return try JSONCoding.decoder.decode(T.self, from: data) } catch {
            throw APIError(.badRequest, "invalid_input", "the body is not the expected JSON")
        }
    }
}

import Foundation
public import Hummingbird
public import HummingbirdAuth
public import NIOCore
import OpenCatCore

/// Who a request comes from, as an authenticator middleware of its route group established it.
public enum Caller: Sendable {
    /// A key-server user, by bearer token (`/api/v1`).
    case user(ServerUser)
    /// An app's OpenCat API key (`/v1`): the public key in every copy of the app, or a secret key.
    case app(OpenCatCaller)
    /// A console operator, by name (`/metrics` by token).
    case `operator`(String)
    /// A portal user's session (`/portal`).
    case portal(PortalUser)
    /// A console operator's session (`/console`).
    case console(ConsoleOperator)
}

/// The request context of every route: Hummingbird's core context, the peer's address (the client, unless a proxy
/// is in between: see ``ServerSettings/clientAddressHeader``) and the caller the route group's authenticator found.
/// Handlers read the caller from here and never parse a header for it.
public struct ServerRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The address the connection came from.
    public let remoteAddress: SocketAddress?
    /// The authenticated caller, if any (set by the route group's authenticator middleware).
    public var identity: Caller?

    /// A context for a request on a channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// A path parameter, percent-decoded (clients encode `@`, `:`, `|`, … in path segments).
    func decoded(_ name: String) -> String? {
        parameters.get(name).flatMap { $0.removingPercentEncoding }
    }

    /// The key-server user the bearer token names, or 401.
    func keyServerUser() throws(APIError) -> ServerUser {
        guard case .user(let user)? = identity else {
            throw APIError(.unauthorized, "unauthorized", "The token is missing, invalid or expired.")
        }
        return user
    }

    /// The key-server user when it is the one the path names (`:userId`), else 401 or 403.
    func owner(_ parameter: String = "userId") throws(APIError) -> ServerUser {
        let user = try keyServerUser()
        try WalletController.own(user, decoded(parameter))
        return user
    }

    /// The app key's caller, or 401.
    func appCaller() throws(APIError) -> OpenCatCaller {
        guard case .app(let caller)? = identity else {
            throw APIError(.unauthorized, "unauthorized", "The API key is missing or wrong.")
        }
        return caller
    }
}

extension ServerRequestContext {
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

public import Foundation
public import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A Swift package registry on loopback for tests (SE-0292, with SE-0391's signed releases), keeping its releases in a
/// folder: publish (`PUT /{scope}/{name}/{version}`, multipart, signatures kept as given), list releases, release
/// metadata (checksum and signing), the manifest and its version-specific variants, the source archive with its
/// `Digest` and signature headers, and identifier lookup by repository URL. A version is published once (409 after);
/// every request is kept for the test to inspect (``requests``).
///
/// It checks what the specification asks a server to check — identifiers, versions, a zip with a `Package.swift` —
/// and stores what a client sends as it is: signatures are verified by the client that resolves (SwiftPM), not here.
///
/// ```swift
/// let registry = MockPackageRegistry(folder: temporaryFolder)
/// try await registry.run { url in
///     // swift package-registry set --scope opencat --allow-insecure-http \(url)
/// }
/// ```
public final class MockPackageRegistry: Sendable {
    /// A request as the registry received it.
    public struct Request: Sendable, Hashable {
        /// `GET`, `PUT`, …
        public var method: String
        /// The path and query.
        public var target: String
        /// Its header fields.
        public var headers: HTTPFields
        /// The status it was answered with.
        public var status: Int
    }

    /// Where releases are kept: `<scope>/<name>/<version>/` (lowercased identifiers) with `source-archive.zip`,
    /// `metadata.json`, `release.json` and the signatures.
    public let folder: URL
    let recorded = Mutex<[Request]>([])
    let publishing = Mutex<Set<String>>([])

    /// A registry keeping its releases in `folder` (created when missing).
    public init(folder: URL) {
        self.folder = folder
    }

    /// A publish request's multipart body and `Content-Type` (SE-0292 4.6), as a client sends one: the source
    /// archive, and its signature and the metadata when given.
    public static func publishForm(archive: Data, signature: Data? = nil, metadata: Data? = nil)
        -> (body: Data, contentType: String)
    {
        var parts: [(name: String, type: String, data: Data)] = [("source-archive", "application/zip", archive)]
        if let signature { parts.append(("source-archive-signature", "application/octet-stream", signature)) }
        if let metadata { parts.append(("metadata", "application/json", metadata)) }
        return MultipartForm.encode(parts)
    }

    /// Every request so far, in order.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Runs `body` with the registry listening on 127.0.0.1 (its base URL, no trailing slash); stops after.
    public func run<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let router = Router()
        router.add(middleware: RecordingMiddleware(registry: self))
        RegistryRoutes(registry: self).add(to: router)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "opencat.mock-registry", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            defer { group.cancelAll() }
            var port = 0
            for await listening in ports {
                port = listening
                break
            }
            return try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }

    func record(_ request: Hummingbird.Request, status: Int) {
        let entry = Request(
            method: request.method.rawValue,
            target: request.uri.description,
            headers: request.headers,
            status: status
        )
        recorded.withLock { $0.append(entry) }
    }
}

/// Keeps every request with the status it was answered with.
struct RecordingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let registry: MockPackageRegistry

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            registry.record(request, status: Int(response.status.code))
            return response
        } catch let error as any HTTPResponseError {
            registry.record(request, status: Int(error.status.code))
            throw error
        }
    }
}

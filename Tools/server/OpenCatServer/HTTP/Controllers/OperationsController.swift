import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenCatCore
import Prometheus
import Synchronization

/// Resumes a continuation with the first answer given; later ones are dropped.
final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<String?, Never>?>

    init(_ continuation: CheckedContinuation<String?, Never>) { self.continuation = Mutex(continuation) }

    func give(_ answer: String?) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        pending?.resume(returning: answer)
    }
}

/// `GET /health` (the process is up), `GET /ready` (the database answers: 200, else 503 with the reason and
/// `Retry-After`), `GET /openapi.yaml` (the key server's API document), `GET /v1/openapi.yaml` (the OpenCat API's and
/// these routes').
struct OperationsController: ServerController {
    let state: any ServerStateRepository
    /// The database's name (`sqlite`, `postgresql`).
    let databaseKind: String
    /// The stores whose refunds never reach this server (named in `/ready`).
    let storesWithoutRefunds: [String]

    /// How long `/ready` waits for the database before answering 503.
    static let readinessTimeout = Duration.seconds(2)

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("/health") { _, _ in
            Self.json(.ok, ReadyAnswer(status: "ok", database: databaseKind))
        }
        router.get("/ready") { _, _ in
            if let problem = await readinessProblem() {
                var response = Self.json(
                    .serviceUnavailable,
                    ReadyAnswer(status: "unavailable", database: databaseKind, reason: problem)
                )
                response.headers[.retryAfter] = "5"
                return response
            }
            var answer = ReadyAnswer(status: "ready", database: databaseKind)
            let missing = storesWithoutRefunds
            if !missing.isEmpty {
                answer.refundsNotReceivedFrom = missing
                answer.detail = "refunds from \(missing.joined(separator: ", ")) never reach this server"
            }
            return Self.json(.ok, answer)
        }
        for (path, document) in [
            ("/openapi.yaml", Self.keyServerDocument), ("/v1/openapi.yaml", Self.openCatDocument),
        ] {
            router.get(RouterPath(path)) { _, _ in
                guard let document else {
                    throw APIError(.notFound, "not_found", "the API document is not installed beside the server")
                }
                var headers = HTTPFields()
                headers[.contentType] = "application/yaml"
                return Response(
                    status: .ok,
                    headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: document))
                )
            }
        }
    }

    /// Why the server is not ready (the database does not answer in time), or nil when it is. Answers within
    /// ``readinessTimeout`` even while the database hangs: the probe is left to finish on its own.
    func readinessProblem() async -> String? {
        let state = state
        let timeout = Self.readinessTimeout
        let dialect = state.dialect.rawValue
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let answer = FirstAnswer(continuation)
            Task {
                do throws(LedgerError) {
                    try await state.ping()
                    answer.give(nil)
                } catch {
                    answer.give("the \(dialect) database does not answer: \(error.message)")
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                answer.give("the \(dialect) database did not answer within \(timeout)")
            }
        }
    }

    /// The key server's OpenAPI document (`Resources/keyserver.openapi.yaml`, served at `/openapi.yaml`).
    static let keyServerDocument = openAPIDocument("keyserver.openapi.yaml")
    /// The OpenCat API's and the server's own routes (`Resources/opencat.openapi.yaml`, at `/v1/openapi.yaml`).
    static let openCatDocument = openAPIDocument("opencat.openapi.yaml")

    /// A document from the resource bundle installed beside the executable; nil when it is not there (never a crash).
    static func openAPIDocument(_ name: String) -> Data? {
        var candidates: [URL] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        for folder in [executable.deletingLastPathComponent(), Bundle.main.bundleURL] {
            for bundle in ["OpenCatWorkspace_OpenCatServer.resources", "OpenCatWorkspace_OpenCatServer.bundle"] {
                candidates.append(folder.appendingPathComponent(bundle).appendingPathComponent(name))
            }
        }
        return candidates.lazy.compactMap { FileManager.default.contents(atPath: $0.path) }.first
    }
}

/// `GET /health` and `GET /ready`: the status, the database, and why it is not ready or which stores' refunds never
/// arrive.
struct ReadyAnswer: Encodable {
    var status: String
    var database: String
    var reason: String?
    var refundsNotReceivedFrom: [String]?
    var detail: String?
}

/// `GET /metrics`: the Prometheus text of the process's registry for a console operator's token (`Authorization:
/// Bearer`; 401 otherwise). ``OpenCatServerApplication/metricsApplication(host:port:)`` serves it on a port of its own.
struct MetricsController: ServerController {
    let registry: PrometheusCollectorRegistry
    /// The console's operators (`portal.operators`), whose tokens read the metrics.
    let operators: [PortalSettings.Operator]

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.group("/metrics").add(middleware: OperatorTokenAuthenticator(operators: operators))
            .get { _, context in
                guard case .operator? = context.identity else {
                    throw APIError(.unauthorized, "unauthorized", "the metrics need an operator's token")
                }
                return Self.page(registry)
            }
    }

    /// The registry's series in Prometheus' text format.
    static func page(_ registry: PrometheusCollectorRegistry?) -> Response {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry?.emit(into: &buffer)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
    }
}

import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import OpenCatCore
import Prometheus
import Synchronization

/// Logs every request once it is answered: method, the route's template (never the concrete path, whose segments
/// can be emails, nor the query, which can carry a push token), status, duration and a request id — the client's
/// `X-Request-Id` when it is a plain token of at most 64 characters, else Hummingbird's. The id is echoed in the
/// answer's `X-Request-Id`. Headers and bodies are never logged.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The level requests are logged at (`info`; health and readiness probes at `debug`).
    public var level: Logger.Level
    /// Where requests are logged (default: the request context's logger).
    public var logger: Logger?

    /// A middleware logging at `level`, to `logger` or else the request context's logger.
    public init(level: Logger.Level = .info, logger: Logger? = nil) {
        self.level = level
        self.logger = logger
    }

    /// Answers the request through `next`, sets the answer's `X-Request-Id` (an `HTTPResponseError` is answered here,
    /// with it), and logs the request once it is answered; rethrows any other error of `next` (logged as 500).
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        // Hummingbird's own id when its server made the context (`context.id` traps without one).
        let id =
            Self.clientRequestId(request.headers[Self.requestIdField])
            ?? context.logger[metadataKey: "hb.request.id"]?.description ?? UUID().uuidString.lowercased()
        context.logger[metadataKey: "request_id"] = .string(id)
        var logger = self.logger ?? context.logger
        logger[metadataKey: "request_id"] = .string(id)
        let probe = request.uri.path == "/health" || request.uri.path == "/ready"
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIdField] = id
            log(request, context: context, logger: logger, status: response.status.code, started: started, probe: probe)
            return response
        } catch let error as any HTTPResponseError {
            // Answered here, so the refusal carries the request id too.
            var response = try error.response(from: request, context: context)
            response.headers[Self.requestIdField] = id
            log(request, context: context, logger: logger, status: response.status.code, started: started, probe: probe)
            return response
        } catch {
            log(request, context: context, logger: logger, status: 500, started: started, probe: probe)
            throw error
        }
    }

    func log(
        _ request: Request,
        context: Context,
        logger: Logger,
        status: Int,
        started: ContinuousClock.Instant,
        probe: Bool
    ) {
        let elapsed = ContinuousClock.now - started
        let milliseconds =
            Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) / 1_000_000_000_000_000
        logger.log(
            level: probe ? .debug : level,
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(status),
                "ms": .string(String(format: "%.1f", milliseconds)),
            ]
        )
    }

    /// The answer's and request's `X-Request-Id`.
    public static var requestIdField: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    /// A client's request id, when it is 1–64 characters of letters, digits, `-`, `_` and `.`.
    static func clientRequestId(_ value: String?) -> String? {
        guard let value, (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E })
        else { return nil }
        return value
    }
}

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

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
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

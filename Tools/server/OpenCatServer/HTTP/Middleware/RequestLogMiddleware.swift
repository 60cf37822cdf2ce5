import Foundation
import HTTPTypes
public import Hummingbird
public import Logging

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

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

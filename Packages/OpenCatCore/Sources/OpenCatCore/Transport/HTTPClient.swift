public import Foundation
public import HTTPTypes
public import Logging

/// An ``HTTPTransport`` with OpenCat's shared behaviour on top: a per-attempt timeout and the ``RetryPolicy``,
/// all waiting done on the injected ``WallClock``.
///
/// Every OpenCat client (store adapters, server connector, key server, ChippiPay) sends through one of these,
/// so timeouts and retries behave the same everywhere.
public struct HTTPClient: Sendable {
    /// The transport that performs single attempts.
    public var transport: any HTTPTransport
    /// When to retry.
    public var retryPolicy: RetryPolicy
    /// The clock used for timeouts and back-off.
    public var clock: any WallClock
    /// The default time allowed for one attempt.
    public var timeout: Duration
    /// Where request summaries go (method, host, status, attempt; never paths, which can carry tokens, nor
    /// headers, query values or bodies).
    public var logger: Logger

    /// Creates a client.
    public init(
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = .default,
        clock: any WallClock = SystemClock(),
        timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "dev.opencat.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.timeout = timeout
        self.logger = logger
    }

    /// Sends a request, retrying as the policy allows.
    ///
    /// Any status is returned to the caller once retries are over (a 404 or a final 503 is a response, not an
    /// error): the caller maps it to its own domain.
    /// - Parameters:
    ///   - request: the request.
    ///   - body: the body, if any.
    ///   - timeout: the time allowed for each attempt (default: ``timeout``).
    ///   - idempotent: whether repeating is safe; by default `GET`/`HEAD`/`PUT`/`DELETE`/`OPTIONS`, and any
    ///     request carrying an `Idempotency-Key` or `PayPal-Request-Id` header.
    /// - Returns: the last response.
    /// - Throws: ``HTTPTransportError`` if the last attempt got no response; `CancellationError` if cancelled.
    public func send(
        _ request: HTTPRequest,
        body: Data? = nil,
        timeout: Duration? = nil,
        idempotent: Bool? = nil
    ) async throws -> HTTPTransportResponse {
        let idempotent = idempotent ?? Self.isIdempotent(request)
        let limit = timeout ?? self.timeout
        var attempt = 1
        while true {
            try Task.checkCancellation()
            let decision: RetryPolicy.Decision
            do {
                let response = try await attemptOnce(request, body: body, timeout: limit)
                decision = retryPolicy.decision(
                    after: response.head,
                    attempt: attempt,
                    idempotent: idempotent,
                    now: clock.currentDate
                )
                logger.debug(
                    "http response",
                    metadata: Self.summary(request, attempt: attempt).merging(["status": "\(response.status.code)"]) {
                        $1
                    }
                )
                if case .stop = decision { return response }
            } catch let error as HTTPTransportError {
                decision = retryPolicy.decision(after: error, attempt: attempt, idempotent: idempotent)
                logger.debug(
                    "http transport error",
                    metadata: Self.summary(request, attempt: attempt).merging(["error": "\(error.code)"]) { $1 }
                )
                if case .stop = decision { throw error }
            }
            if case .retry(let wait) = decision {
                logger.debug("http retry", metadata: ["wait": "\(wait)", "attempt": "\(attempt + 1)"])
                try await clock.sleep(for: wait)
            }
            attempt += 1
        }
    }

    private func attemptOnce(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws
        -> HTTPTransportResponse
    {
        try await clock.attempt(transport: transport, request: request, body: body, timeout: timeout)
    }

    static func isIdempotent(_ request: HTTPRequest) -> Bool {
        switch request.method {
        case .get, .head, .put, .delete, .options: return true
        default:
            return request.headerFields[HTTPField.Name("Idempotency-Key")!] != nil
                || request.headerFields[HTTPField.Name("PayPal-Request-Id")!] != nil
        }
    }

    static func summary(_ request: HTTPRequest, attempt: Int) -> Logger.Metadata {
        ["method": "\(request.method.rawValue)", "host": "\(request.authority ?? "")", "attempt": "\(attempt)"]
    }
}

extension WallClock {
    /// One attempt against its deadline. The deadline is fixed before the request leaves, so time that passes
    /// while the timer task is still starting (a test clock moved by the remote side) still counts.
    func attempt(
        transport: any HTTPTransport,
        request: HTTPRequest,
        body: Data?,
        timeout: Duration
    ) async throws -> HTTPTransportResponse {
        let clock = self
        let deadline = now.advanced(by: timeout)
        // The whole attempt counts as external work (not just the transport call), so a test clock that holds
        // during external work cannot fire the timer between the response arriving and it being taken.
        return try await runningExternalWork {
            try await withThrowingTaskGroup(of: HTTPTransportResponse?.self) { group in
                group.addTask { try await transport.send(request, body: body) }
                group.addTask {
                    try await clock.sleep(until: deadline, tolerance: nil)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else {
                    throw HTTPTransportError(.invalidResponse, "no result")
                }
                guard let response = first else {
                    throw HTTPTransportError(.timeout, "no response within \(timeout)")
                }
                return response
            }
        }
    }
}

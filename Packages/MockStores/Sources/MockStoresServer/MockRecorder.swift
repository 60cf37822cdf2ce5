public import Foundation
import Hummingbird
public import Logging
public import MockStores
public import OpenCatCore
import ServiceLifecycle
import Synchronization

/// A loopback recording proxy (Hummingbird 2 on 127.0.0.1, an ephemeral port by default): every request a client
/// sends to it is forwarded to a real API with OpenCat's `HTTPClient`, the client gets the API's answer, and the
/// exchange is kept (``exchanges``) for `SecretScrubber` (MockStores) to turn into a cassette. VCR-style: point an
/// adapter's base URL at ``baseURL``, run it against the real store once, and replay the cassette forever after.
///
/// ```swift
/// try await MockRecorder.withRunningRecorder(upstream: URL(string: "https://api.stripe.com")!) { recorder in
///     let adapter = StripeAdapter(configuration: .init(secretKey: key, baseURL: recorder.baseURL))
///     _ = try await adapter.verify(proof)
///     let recording = SecretScrubber(store: .stripe).recording(
///         of: recorder.exchanges, scenario: "one-time-paid", input: input, expect: .verified("active"))
///     try recording.write(to: cassetteURL)   // no secret in it; print(recording.report) says what was replaced
/// }
/// ```
///
/// The exchanges hold the secrets the client sent and the API answered: they stay in memory and are never logged.
/// Each request is sent once (no retries: the client's own retries are recorded as they happen); the request's
/// hop-by-hop headers, `Host` and `Accept-Encoding` are not forwarded, and the answer's framing headers
/// (`Content-Length`, `Transfer-Encoding`, `Content-Encoding`) are not passed back (the body is already decoded).
/// A request the upstream does not answer (unreachable, timed out) gets 502 and is not recorded. After
/// ``maximumExchanges`` exchanges the recorder stops by itself; later requests get 503.
///
/// Thread-safe.
public final class MockRecorder: Sendable {
    enum Phase: Sendable {
        case idle
        case running(port: Int)
        case stopping
        case stopped
    }

    struct State: Sendable {
        var phase = Phase.idle
        var started = false
        var stopRequested = false
        var serviceGroup: ServiceGroup?
        var runTask: Task<Void, any Error>?
        var exchanges: [RecordedExchange] = []
        var reserved = 0
        var upstreamFailures = 0
        var listeningWaiters: [CheckedContinuation<URL, any Error>] = []
    }

    let state = Mutex(State())
    /// The real API every request is forwarded to (`https://api.stripe.com`); a path in it prefixes every request's.
    public let upstream: URL
    /// The address it binds (`127.0.0.1` by default).
    public let host: String
    /// The port it asked for (`0`: any free port; read ``port`` once running).
    public let requestedPort: Int
    /// How many exchanges to record before stopping (`nil`: until ``stop()``).
    public let maximumExchanges: Int?
    /// The client that forwards requests (one attempt each).
    public let httpClient: HTTPClient
    /// Where the recorder logs (method and status of each exchange at `debug`; never paths, headers or bodies).
    public let logger: Logger

    /// Creates a recorder (not yet listening).
    /// - Parameters:
    ///   - upstream: the real API's base URL (`http` or `https`, with a host).
    ///   - host: the address to bind.
    ///   - port: the port (`0`: an ephemeral port).
    ///   - maximumExchanges: stop after this many exchanges (`nil`: until ``stop()``).
    ///   - httpClient: the forwarding client; its retry policy should be `.never` so every attempt the client makes
    ///     is recorded as it happened (default: `URLSessionTransport`, no retries, 60 s per request).
    ///   - logger: where to log (no-op by default).
    public init(
        upstream: URL,
        host: String = "127.0.0.1",
        port: Int = 0,
        maximumExchanges: Int? = nil,
        httpClient: HTTPClient = HTTPClient(retryPolicy: .never, timeout: .seconds(60)),
        logger: Logger = Logger(label: "dev.opencat.mockstores.recorder", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.upstream = upstream
        self.host = host
        self.requestedPort = port
        self.maximumExchanges = maximumExchanges
        self.httpClient = httpClient
        self.logger = logger
    }

    /// Checks an upstream URL before anything listens: `http` or `https`, with a host, without a query.
    /// - Throws: `RecordingError` naming what is wrong.
    public static func validate(upstream: URL) throws(RecordingError) {
        guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw RecordingError("the upstream must be an http or https URL")
        }
        guard let host = upstream.host, !host.isEmpty else { throw RecordingError("the upstream URL has no host") }
        guard upstream.query == nil else { throw RecordingError("the upstream URL must not have a query") }
    }

    // MARK: Lifecycle

    /// Starts a recorder, runs `body` with it listening, then stops it (also when `body` throws).
    /// - Parameters:
    ///   - upstream: the real API's base URL.
    ///   - maximumExchanges: stop after this many exchanges (`nil`: when `body` returns).
    ///   - httpClient: the forwarding client (one attempt per request).
    ///   - logger: where to log.
    ///   - body: the recording session, given the listening recorder.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or why the recorder could not listen.
    public static func withRunningRecorder<T>(
        upstream: URL,
        maximumExchanges: Int? = nil,
        httpClient: HTTPClient = HTTPClient(retryPolicy: .never, timeout: .seconds(60)),
        logger: Logger = Logger(label: "dev.opencat.mockstores.recorder", factory: { _ in SwiftLogNoOpLogHandler() }),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (MockRecorder) async throws -> T
    ) async throws -> T {
        let recorder = MockRecorder(
            upstream: upstream,
            maximumExchanges: maximumExchanges,
            httpClient: httpClient,
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { try await recorder.run() }
            do {
                _ = try await recorder.listening()
                let result = try await body(recorder)
                await recorder.stop()
                try await group.waitForAll()
                return result
            } catch {
                await recorder.stop()
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// Runs the recorder until ``stop()`` is called, ``maximumExchanges`` are recorded, or the task is cancelled.
    /// A recorder runs once.
    /// - Throws: when it cannot bind, `MockStoreServerError.invalidPort(_:)`, `.alreadyStarted`, or a
    ///   `RecordingError` for an unusable upstream URL.
    public func run() async throws {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { throw MockStoreServerError.alreadyStarted }
        do {
            try MockStoreServer.validate(port: requestedPort)
            try Self.validate(upstream: upstream)
        } catch {
            finish(error: error)
            throw error
        }
        let app = Application(
            responder: MockRecorderResponder(recorder: self),
            configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort), serverName: nil),
            onServerRunning: { [self] channel in didStartListening(port: channel.localAddress?.port ?? requestedPort) },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let stopAtOnce = state.withLock { state in
            state.serviceGroup = group
            return state.stopRequested
        }
        if stopAtOnce { await group.triggerGracefulShutdown() }
        do {
            try await group.run()
        } catch {
            finish(error: error)
            throw error
        }
        finish(error: MockStoreServerError.notRunning)
    }

    /// Starts the recorder in a task of its own and returns once it listens; call ``stop()`` when done.
    /// - Returns: the base URL.
    @discardableResult
    public func start() async throws -> URL {
        let task = Task { try await self.run() }
        state.withLock { $0.runTask = task }
        return try await listening()
    }

    /// Stops the recorder: closes the listener once the requests in flight are answered, and returns once it has
    /// stopped. Safe to call more than once, and before it listens.
    public func stop() async {
        let (group, task) = state.withLock { state in
            state.stopRequested = true
            if case .running = state.phase { state.phase = .stopping }
            return (state.serviceGroup, state.runTask)
        }
        await group?.triggerGracefulShutdown()
        _ = try? await task?.value
    }

    /// Waits until the recorder listens.
    /// - Returns: the base URL.
    /// - Throws: the recorder's error if it stopped or could not bind first.
    @discardableResult
    public func listening() async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<URL, any Error>? = state.withLock { state in
                switch state.phase {
                case .running(let port): return .success(Self.url(host: host, port: port))
                case .idle:
                    state.listeningWaiters.append(continuation)
                    return nil
                case .stopping, .stopped: return .failure(MockStoreServerError.notRunning)
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func didStartListening(port: Int) {
        let (waiters, url) = state.withLock { state in
            state.phase = .running(port: port)
            defer { state.listeningWaiters.removeAll() }
            return (state.listeningWaiters, Self.url(host: host, port: port))
        }
        waiters.forEach { $0.resume(returning: url) }
    }

    private func finish(error: any Error) {
        let listeners = state.withLock { state in
            state.phase = .stopped
            defer { state.listeningWaiters.removeAll() }
            return state.listeningWaiters
        }
        listeners.forEach { $0.resume(throwing: error) }
    }

    private static func url(host: String, port: Int) -> URL {
        let authority = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(authority):\(port)")!
    }

    // MARK: Address and results

    /// The port it listens on. Stops the program if the recorder is not listening (a set-up error).
    public var port: Int {
        guard case .running(let port) = state.withLock({ $0.phase }) else {
            preconditionFailure("MockRecorder is not listening: use withRunningRecorder or await start()")
        }
        return port
    }

    /// `http://127.0.0.1:PORT`: the base URL to point the client at. Stops the program if the recorder is not
    /// listening.
    public var baseURL: URL { Self.url(host: host, port: port) }

    /// The exchanges recorded so far, in the order their answers arrived. They hold secrets: scrub them with
    /// `SecretScrubber` (MockStores) before writing anything.
    public var exchanges: [RecordedExchange] { state.withLock { $0.exchanges } }

    /// How many requests the upstream did not answer (answered 502 and not recorded).
    public var upstreamFailures: Int { state.withLock { $0.upstreamFailures } }
}

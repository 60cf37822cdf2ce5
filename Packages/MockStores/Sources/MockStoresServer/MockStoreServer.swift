public import Foundation
import Hummingbird
public import Logging
public import MockStores
public import OpenCatCore
import ServiceLifecycle
import Synchronization

/// A loopback HTTP server (Hummingbird 2 on 127.0.0.1, an ephemeral port by default) that answers like the stores'
/// APIs from `Cassette`s: App Store Server API, Google OAuth + androidpublisher, Stripe, PayPal, Steam
/// ISteamMicroTxn and the OpenCat server API, with the stores' own auth checks and deterministic faults.
///
/// ```swift
/// try await MockStoreServer.withRunningServer(cassettes: [cassette], credentials: credentials) { server in
///     let adapter = StripeAdapter(configuration: .init(secretKey: key, baseURL: server.baseURL))
///     let purchase = try await adapter.verify(cassette.proof)
///     try server.verify()          // every request matched, every interaction used
/// }
/// ```
///
/// **Matching.** A request is answered by the first interaction, in order, that has answers left and whose method,
/// path, query, listed headers and body match (see `Cassette/RequestPattern`). The same request can therefore be
/// answered differently the second time (pending, then succeeded). Unlisted headers are ignored; auth is checked
/// separately by the interaction's store's `MockAuthenticator`. A request that nothing matches gets `599` with a
/// JSON body naming the nearest interaction and the first field that differed, and is kept in
/// ``unmatchedRequests``; ``unusedInteractions`` lists interactions with answers left.
///
/// **Faults.** `delay` waits on the injected `WallClock` (so tests drive it with a `ManualClock`), `timeout` never
/// answers (the request is held until the client closes the connection or the server stops), `reset` closes the
/// connection without a response, `malformed` sends truncated JSON, `rateLimited` sends 429 with `Retry-After`,
/// `serverError` a 5xx.
///
/// Thread-safe; every property reads a consistent snapshot.
public final class MockStoreServer: Sendable {
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
        var script = InteractionScript()
        var authenticators: [Store: any MockAuthenticator] = [:]
        var received: [MockRequest] = []
        var exchanges: [MockExchange] = []
        var unmatched: [UnmatchedRequest] = []
        var listeningWaiters: [CheckedContinuation<URL, any Error>] = []
        var requestWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var holds: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    let state: Mutex<State>
    /// The clock that `delay` faults wait on and that auth checks read the time from.
    public let clock: any WallClock
    /// How `delay` and `timeout` faults let time pass.
    public let remoteTime: MockRemoteTime
    /// Where the server logs (unmatched requests at `error`, each exchange at `debug`). No-op by default.
    public let logger: Logger
    /// The address it binds (`127.0.0.1` by default).
    public let host: String
    /// The port it asked for (`0`: any free port; read ``port`` once running).
    public let requestedPort: Int
    /// The Stripe Checkout and PayPal approval simulator it serves after the cassettes, if any.
    public let checkout: MockCheckout?

    /// Creates a server (not yet listening).
    /// - Parameters:
    ///   - cassettes: the interaction script, in order.
    ///   - credentials: the credentials the auth checks accept.
    ///   - clock: the clock for `delay` faults and `exp` checks (a `ManualClock` in tests).
    ///   - remoteTime: how `delay` and `timeout` faults let time pass (``MockRemoteTime/sharedClock(advance:)`` when
    ///     the clock is a test clock shared with the client).
    ///   - host: the address to bind.
    ///   - port: the port (`0`: an ephemeral port).
    ///   - checkout: a checkout simulator to serve after the cassettes (`nil`: none).
    ///   - logger: where to log (no-op by default).
    public init(
        cassettes: [Cassette] = [],
        credentials: MockCredentials = MockCredentials(),
        clock: any WallClock = SystemClock(),
        remoteTime: MockRemoteTime = .waitsOnClock,
        host: String = "127.0.0.1",
        port: Int = 0,
        checkout: MockCheckout? = nil,
        logger: Logger = Logger(label: "dev.opencat.mockstores", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        var initial = State()
        initial.script = InteractionScript(cassettes)
        initial.authenticators = credentials.authenticators()
        self.state = Mutex(initial)
        self.clock = clock
        self.remoteTime = remoteTime
        self.logger = logger
        self.host = host
        self.requestedPort = port
        self.checkout = checkout
    }

    // MARK: Lifecycle

    /// Starts a server, runs `body` with it listening, then stops it (also when `body` throws).
    /// - Parameters:
    ///   - cassettes: the interaction script, in order.
    ///   - credentials: the credentials the auth checks accept.
    ///   - clock: the clock for `delay` faults and `exp` checks.
    ///   - remoteTime: how `delay` and `timeout` faults let time pass.
    ///   - checkout: a checkout simulator to serve after the cassettes (`nil`: none).
    ///   - logger: where to log.
    ///   - body: the test, given the listening server.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or the server's error if it could not listen.
    public static func withRunningServer<T>(
        cassettes: [Cassette] = [],
        credentials: MockCredentials = MockCredentials(),
        clock: any WallClock = SystemClock(),
        remoteTime: MockRemoteTime = .waitsOnClock,
        checkout: MockCheckout? = nil,
        logger: Logger = Logger(label: "dev.opencat.mockstores", factory: { _ in SwiftLogNoOpLogHandler() }),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (MockStoreServer) async throws -> T
    ) async throws -> T {
        let server = MockStoreServer(
            cassettes: cassettes,
            credentials: credentials,
            clock: clock,
            remoteTime: remoteTime,
            checkout: checkout,
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { try await server.run() }
            do {
                _ = try await server.listening()
                let result = try await body(server)
                await server.stop()
                try await group.waitForAll()
                return result
            } catch {
                await server.stop()
                group.cancelAll()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// The ports a server can be asked for (`0`: an ephemeral port).
    public static let validPorts = 0...65535

    /// Checks a requested port before anything binds: a value outside ``validPorts`` is refused, never truncated.
    /// - Throws: ``MockStoreServerError/invalidPort(_:)``.
    public static func validate(port: Int) throws(MockStoreServerError) {
        guard validPorts.contains(port) else { throw .invalidPort(port) }
    }

    /// Runs the server until ``stop()`` is called or the task is cancelled. A server runs once.
    /// - Throws: when it cannot bind, ``MockStoreServerError/invalidPort(_:)``, or
    ///   ``MockStoreServerError/alreadyStarted``.
    public func run() async throws {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { throw MockStoreServerError.alreadyStarted }
        do {
            try Self.validate(port: requestedPort)
        } catch {
            finish(error: error)
            throw error
        }

        let app = Application(
            responder: MockResponder(server: self),
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

    /// Starts the server in a task of its own and returns once it listens. Prefer
    /// ``withRunningServer(cassettes:credentials:clock:remoteTime:checkout:logger:isolation:_:)``, which cannot leak a running server;
    /// call ``stop()`` when done.
    /// - Returns: the base URL.
    @discardableResult
    public func start() async throws -> URL {
        let task = Task { try await self.run() }
        state.withLock { $0.runTask = task }
        return try await listening()
    }

    /// Stops the server: releases held requests (timeouts, delays), closes the listener and every connection, and
    /// returns once it has stopped. Safe to call more than once, and before the server listens.
    public func stop() async {
        let (holds, group, task) = state.withLock { state in
            state.stopRequested = true
            if case .running = state.phase { state.phase = .stopping }
            let holds = Array(state.holds.values)
            state.holds.removeAll()
            return (holds, state.serviceGroup, state.runTask)
        }
        holds.forEach { $0.resume() }
        await group?.triggerGracefulShutdown()
        _ = try? await task?.value
    }

    /// Waits until the server listens.
    /// - Returns: the base URL.
    /// - Throws: the server's error if it stopped or could not bind first.
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
        let (listeners, requestWaiters, holds) = state.withLock { state in
            state.phase = .stopped
            defer {
                state.listeningWaiters.removeAll()
                state.requestWaiters.removeAll()
                state.holds.removeAll()
            }
            return (state.listeningWaiters, Array(state.requestWaiters.values), Array(state.holds.values))
        }
        listeners.forEach { $0.resume(throwing: error) }
        requestWaiters.forEach { $0.continuation.resume(throwing: MockStoreServerError.notRunning) }
        holds.forEach { $0.resume() }
    }

    private static func url(host: String, port: Int) -> URL {
        let authority = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(authority):\(port)")!
    }

    // MARK: Address

    /// The port it listens on. Stops the program if the server is not listening (a test set-up error).
    public var port: Int {
        guard case .running(let port) = state.withLock({ $0.phase }) else {
            preconditionFailure("MockStoreServer is not listening: use withRunningServer or await start()")
        }
        return port
    }

    /// `http://127.0.0.1:PORT`: the base URL to configure clients with. Stops the program if the server is not
    /// listening.
    public var baseURL: URL { Self.url(host: host, port: port) }
}

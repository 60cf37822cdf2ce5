import Foundation
public import MockStores
public import OpenCatCore
import Synchronization

// What the server answers with (its script and credentials) and what it recorded.
extension MockStoreServer {
    // MARK: Script and credentials

    /// Replaces the interaction script with one cassette's interactions and clears the records (received requests,
    /// exchanges, unmatched requests). Issued access tokens stay valid.
    public func load(_ cassette: Cassette) { load([cassette]) }

    /// Replaces the interaction script with several cassettes' interactions, in order, and clears the records.
    public func load(_ cassettes: [Cassette]) {
        state.withLock { state in
            state.script = InteractionScript(cassettes)
            state.received.removeAll()
            state.exchanges.removeAll()
            state.unmatched.removeAll()
        }
    }

    /// Appends a cassette's interactions after the loaded ones, keeping the records.
    public func append(_ cassette: Cassette) {
        state.withLock { $0.script.append(cassette) }
    }

    /// Replaces the credentials of the built-in auth checks (custom authenticators set with
    /// ``setAuthenticator(_:for:)`` for other stores are kept).
    public func register(_ credentials: MockCredentials) {
        let builtIn = credentials.authenticators()
        state.withLock { state in
            for store in [
                Store.apple, .google, .stripe, .paypal, .steam, MockCredentials.openCatStore,
                MockCredentials.keyServerStore, MockCredentials.llmKeysStore, MockCredentials.chippiPayStore,
            ] {
                state.authenticators[store] = builtIn[store]
            }
        }
    }

    /// Sets (or, with `nil`, removes) the auth check for a store's interactions.
    public func setAuthenticator(_ authenticator: (any MockAuthenticator)?, for store: Store) {
        state.withLock { $0.authenticators[store] = authenticator }
    }

    /// Clears the records (received requests, exchanges, unmatched requests) without touching the script.
    public func clearRecords() {
        state.withLock { state in
            state.received.removeAll()
            state.exchanges.removeAll()
            state.unmatched.removeAll()
        }
    }

    // MARK: Records

    /// Every request received since the last ``load(_:)-(Cassette)`` or ``clearRecords()``, in arrival order.
    public var receivedRequests: [MockRequest] { state.withLock { $0.received } }

    /// How each received request was handled, in arrival order.
    public var exchanges: [MockExchange] { state.withLock { $0.exchanges } }

    /// Requests no interaction matched, with the nearest interaction.
    public var unmatchedRequests: [UnmatchedRequest] { state.withLock { $0.unmatched } }

    /// Interactions with answers left.
    public var unusedInteractions: [InteractionReference] { state.withLock { $0.script.unused } }

    /// Everything that went wrong: one line per unmatched request and per unused interaction.
    public var problems: [String] {
        state.withLock { state in
            state.unmatched.map(\.description) + state.script.unused.map { "unused interaction \($0)" }
        }
    }

    /// Throws when a request went unmatched or (unless allowed) an interaction was not used.
    /// - Parameter allowUnused: whether interactions with answers left are acceptable.
    /// - Throws: ``MockStoreServerError/scriptNotFollowed(_:)`` listing every problem.
    public func verify(allowUnused: Bool = false) throws {
        let lines = state.withLock { state in
            state.unmatched.map(\.description)
                + (allowUnused ? [] : state.script.unused.map { "unused interaction \($0)" })
        }
        if !lines.isEmpty { throw MockStoreServerError.scriptNotFollowed(lines) }
    }

    /// Waits (without sleeping) until at least `count` requests have arrived since the last reset of the records.
    /// - Throws: `CancellationError` if cancelled; ``MockStoreServerError/notRunning`` if the server stops first.
    public func waitForRequests(_ count: Int = 1) async throws {
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if state.received.count >= count { return .success(()) }
                    if case .stopped = state.phase { return .failure(MockStoreServerError.notRunning) }
                    state.requestWaiters[id] = (count, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.requestWaiters.removeValue(forKey: id) { return Optional(waiter) }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

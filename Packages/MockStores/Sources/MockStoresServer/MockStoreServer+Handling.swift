import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MockStores
import NIOCore
import OpenCatCore
import Synchronization

extension MockStoreServer {
    /// What to do with a request, decided atomically against the script.
    enum Plan: Sendable {
        case respond(MockResponse)
        case delay(Duration, MockResponse)
        case hang
        case reset
    }

    /// The largest request body the mock reads.
    static let maximumBodySize = 32 * 1024 * 1024

    func respond(to request: Request, channel: any Channel) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.maximumBodySize)
        let target = request.head.path ?? "/"
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let mockRequest = MockRequest(
            method: request.method.rawValue,
            path: String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : nil,
            headers: request.headers,
            body: Data(body.readableBytesView),
            receivedAt: clock.currentDate
        )

        switch plan(for: mockRequest) {
        case .respond(let response):
            return Self.hummingbirdResponse(response)
        case .delay(let duration, let response):
            if case .sharedClock(let advance) = remoteTime {
                // A test clock shared with the client: the remote side moves time itself (the client's clock may
                // hold its automatic advancing while it waits on this request), so the client's timeout fires if
                // the delay is longer than it.
                advance(duration)
            } else {
                try await holdingConnection(channel) { [clock] in try await clock.sleep(for: duration) }
            }
            return Self.hummingbirdResponse(response)
        case .hang:
            if case .sharedClock(let advance) = remoteTime {
                // Move a shared test clock one minute on, past the client's timeout: OpenCat's HTTPClient fixes each
                // attempt's deadline before the request leaves, so one step is enough, and a small step keeps
                // short-lived credentials (a 5-minute App Store API token) valid across retries.
                advance(.seconds(60))
            }
            try await waitForRelease(of: channel)
            try? await channel.close()
            throw MockStoreServerError.connectionClosed
        case .reset:
            try? await channel.close()
            throw MockStoreServerError.connectionClosed
        }
    }

    /// Records the request and decides the answer: a matching interaction (after the store's auth check), a built-in
    /// endpoint, the checkout simulator (after the store's auth check), or the unmatched-request answer.
    func plan(for request: MockRequest) -> Plan {
        let context = MockAuthContext(baseURL: currentBaseURL, now: clock.currentDate)
        let (plan, waiters, logLine) = state.withLock {
            state -> (Plan, [CheckedContinuation<Void, any Error>], String?) in
            state.received.append(request)
            let ready = state.requestWaiters.filter { $0.value.count <= state.received.count }
            for id in ready.keys { state.requestWaiters.removeValue(forKey: id) }
            let waiters = ready.values.map(\.continuation)

            if let position = state.script.match(request) {
                let store = state.script.entries[position].store
                let authenticator = state.authenticators[store]
                if let rejection = authenticator?.rejection(for: request, context: context) {
                    state.exchanges.append(
                        MockExchange(request: request, handling: .rejectedByAuth(store), status: rejection.status)
                    )
                    return (.respond(rejection), waiters, nil)
                }
                let entry = state.script.consume(position)
                let (plan, status) = Self.plan(for: entry.interaction, answering: request)
                if case .respond(let response) = plan { authenticator?.observe(response, to: request) }
                if case .delay(_, let response) = plan { authenticator?.observe(response, to: request) }
                state.exchanges.append(
                    MockExchange(
                        request: request,
                        handling: .interaction(entry.reference),
                        fault: entry.interaction.fault?.kind,
                        status: status
                    )
                )
                return (plan, waiters, nil)
            }

            for store in state.authenticators.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                if let response = state.authenticators[store]!.builtInResponse(to: request, context: context) {
                    state.exchanges.append(
                        MockExchange(request: request, handling: .builtIn(store), status: response.status)
                    )
                    return (.respond(response), waiters, nil)
                }
            }

            if let handled = checkout?.handle(
                request,
                baseURL: context.baseURL,
                authenticate: { state.authenticators[$0]?.rejection(for: request, context: context) }
            ) {
                let handling: MockExchange.Handling =
                    handled.rejectedByAuth ? .rejectedByAuth(handled.store) : .builtIn(handled.store)
                state.exchanges.append(
                    MockExchange(request: request, handling: handling, status: handled.response.status)
                )
                return (.respond(handled.response), waiters, nil)
            }

            let nearest = state.script.nearest(to: request)
            let unmatched = UnmatchedRequest(request: request, nearest: nearest?.0, difference: nearest?.1)
            state.unmatched.append(unmatched)
            state.exchanges.append(MockExchange(request: request, handling: .unmatched, status: 599))
            return (.respond(Self.unmatchedResponse(unmatched)), waiters, unmatched.description)
        }
        waiters.forEach { $0.resume() }
        if let logLine { logger.error("\(logLine)") }
        logger.debug("mock exchange", metadata: ["method": "\(request.method)"])
        return plan
    }

    private var currentBaseURL: URL {
        if case .running(let port) = state.withLock({ $0.phase }) {
            return URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
        }
        return URL(string: "http://\(host):\(requestedPort)")!
    }

    /// The plan for an interaction, and the status it will send (`nil`: none).
    static func plan(for interaction: Cassette.Interaction, answering request: MockRequest? = nil) -> (Plan, Int?) {
        var template = interaction.response
        if interaction.request.rpc != nil, let json = template?.json {
            // A JSON-RPC answer carries the request's id.
            template?.json = json.answeringJSONRPC(request?.json)
        }
        let response = template.map(mockResponse)
        guard let fault = interaction.fault else {
            let response = response ?? MockResponse(status: 200)
            return (.respond(response), response.status)
        }
        switch fault.kind {
        case .delay:
            let response = response ?? MockResponse(status: 200)
            return (.delay(delay(seconds: fault.seconds), response), response.status)
        case .timeout:
            return (.hang, nil)
        case .reset:
            return (.reset, nil)
        case .malformed:
            var malformed = response ?? MockResponse(status: 200)
            let full = malformed.body.isEmpty ? Data(#"{"object":"opencat_mock","truncated":"#.utf8) : malformed.body
            malformed.body = full.prefix(max(1, full.count / 2))
            malformed.headers[.contentType] = "application/json"
            return (.respond(malformed), malformed.status)
        case .rateLimited:
            var limited = response ?? MockResponse(status: 429)
            limited.status = 429
            limited.headers[.retryAfter] = String(min(max(fault.retryAfter ?? 1, 0), Cassette.maximumRetryAfterSeconds))
            return (.respond(limited), 429)
        case .serverError:
            var failed = response ?? MockResponse(status: 500)
            failed.status = (500...599).contains(fault.status ?? 500) ? fault.status ?? 500 : 500
            return (.respond(failed), failed.status)
        default:
            // Refused by validation; answer like an unknown fault would be noticed.
            let response = MockResponse.json(
                599,
                ["error": ["type": "opencat_mock_unknown_fault", "message": .string(fault.kind.rawValue)]]
            )
            return (.respond(response), 599)
        }
    }

    /// A delay fault's duration, clamped to 0…``Cassette/maximumDelaySeconds`` (NaN: none): validation refuses
    /// anything else, and a cassette built in code must not trap the server either.
    static func delay(seconds: Double?) -> Duration {
        let seconds = seconds ?? 0
        guard seconds.isFinite, seconds > 0 else { return .zero }
        let bounded = min(seconds, Cassette.maximumDelaySeconds)
        return .nanoseconds(Int64((bounded * 1_000_000_000).rounded()))
    }

    /// A cassette response as a ``MockResponse``: headers (without framing headers), the body, and
    /// `Content-Type: application/json` for a JSON body that names none.
    static func mockResponse(_ template: Cassette.ResponseTemplate) -> MockResponse {
        var fields = HTTPFields()
        for (name, value) in (template.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name), fieldName != .contentLength, fieldName != .transferEncoding
            else {
                continue
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        var body = Data()
        if let json = template.json {
            body = json.serialized()
            if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        } else if let text = template.bodyText {
            body = Data(text.utf8)
        }
        // Validation keeps statuses in 100...599; a cassette built in code must not trap the HTTP layer either.
        let status = (100...599).contains(template.status) ? template.status : 500
        return MockResponse(status: status, headers: fields, body: body)
    }

    /// The loud answer to an unmatched request: 599 with the nearest interaction and the first difference.
    static func unmatchedResponse(_ unmatched: UnmatchedRequest) -> MockResponse {
        var nearest: JSONValue = .null
        if let reference = unmatched.nearest {
            nearest = [
                "cassette": .string(reference.cassette), "index": .integer(Int64(reference.index)),
                "method": .string(reference.method), "path": .string(reference.path),
                "difference": unmatched.difference.map(JSONValue.string) ?? .null,
            ]
        }
        return .json(
            599,
            [
                "error": [
                    "type": "opencat_mock_unmatched_request", "message": .string(unmatched.description),
                    "nearest": nearest,
                ]
            ]
        )
    }

    static func hummingbirdResponse(_ response: MockResponse) -> Response {
        Response(
            status: HTTPResponse.Status(code: response.status),
            headers: response.headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body))
        )
    }

    // MARK: Holding requests

    /// Runs `operation` (a clock sleep) unless the server stops or the connection closes first.
    func holdingConnection(_ channel: any Channel, _ operation: @escaping @Sendable () async throws -> Void)
        async throws
    {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await operation()
                return true
            }
            group.addTask {
                try await self.waitForRelease(of: channel)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                try? await channel.close()
                throw MockStoreServerError.connectionClosed
            }
        }
    }

    /// Suspends until the server stops or the connection closes (returns), or the task is cancelled (throws).
    func waitForRelease(of channel: any Channel) async throws {
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    switch state.phase {
                    case .stopping, .stopped: return .success(())
                    case .idle, .running: break
                    }
                    if state.stopRequested { return .success(()) }
                    state.holds[id] = continuation
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    channel.closeFuture.whenComplete { [self] _ in release(id) }
                }
            }
        } onCancel: {
            let hold = state.withLock { state in
                if let hold = state.holds.removeValue(forKey: id) { return Optional(hold) }
                state.cancelledEarly.insert(id)
                return nil
            }
            hold?.resume(throwing: CancellationError())
        }
    }

    private func release(_ id: UInt64) {
        state.withLock { $0.holds.removeValue(forKey: id) }?.resume()
    }
}

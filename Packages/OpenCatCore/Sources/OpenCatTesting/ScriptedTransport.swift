public import Foundation
public import HTTPTypes
public import OpenCatCore
import Synchronization

/// An in-process HTTPTransport double: answers requests from a script of (matcher, reply) steps, records every
/// request, and fails loudly (throws) on a request no step matches.
public final class ScriptedTransport: HTTPTransport {
    /// A request as received.
    public struct Recorded: Sendable {
        public var request: HTTPRequest
        public var body: Data?
        public var bodyText: String { body.map { String(decoding: $0, as: UTF8.self) } ?? "" }
        public var path: String { request.path ?? "" }
    }

    /// What a step answers.
    public enum Reply: Sendable {
        case response(status: Int, headers: [String: String] = [:], body: Data)
        case transportError(HTTPTransportError.Code)
        /// Never answers (until cancelled): exercises timeouts.
        case hang

        /// An empty answer with a status and headers.
        public static func status(_ code: Int, _ headers: [String: String] = [:]) -> Reply {
            .response(status: code, headers: headers, body: Data())
        }
    }

    /// One scripted exchange.
    public struct Step: Sendable {
        /// The method to match (nil: any).
        public var method: HTTPRequest.Method?
        /// Matched against the path without the query string, as a prefix unless `exact`.
        public var path: String
        public var exact: Bool
        /// How many times this step may answer (nil: any number of times).
        public var times: Int?
        public var reply: Reply

        /// Creates a step.
        public init(method: HTTPRequest.Method?, path: String, exact: Bool = false, times: Int? = nil, reply: Reply) {
            self.method = method
            self.path = path
            self.exact = exact
            self.times = times
            self.reply = reply
        }
    }

    private struct State {
        var steps: [Step] = []
        var recorded: [Recorded] = []
    }

    private let state = Mutex(State())

    /// Creates a transport with no steps.
    public init() {}

    /// A transport that answers any request with the replies in order, one each, then `200` with no body (the
    /// shape of retry tests: `[.status(429, ["Retry-After": "7"]), .status(200)]`). ``requests`` counts attempts.
    public convenience init(answering replies: [Reply]) {
        self.init()
        for reply in replies { add(Step(method: nil, path: "", times: 1, reply: reply)) }
        add(Step(method: nil, path: "", reply: .status(200)))
    }

    /// Adds a JSON reply for a method and path prefix.
    public func on(
        _ method: HTTPRequest.Method,
        _ path: String,
        exact: Bool = false,
        times: Int? = nil,
        status: Int = 200,
        headers: [String: String] = [:],
        json: String
    ) {
        add(
            Step(
                method: method,
                path: path,
                exact: exact,
                times: times,
                reply: .response(
                    status: status,
                    headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                    body: Data(json.utf8)
                )
            )
        )
    }

    public func add(_ step: Step) { state.withLock { $0.steps.append(step) } }

    public func on(_ method: HTTPRequest.Method, _ path: String, exact: Bool = false, times: Int? = nil, reply: Reply) {
        add(Step(method: method, path: path, exact: exact, times: times, reply: reply))
    }

    public var requests: [Recorded] { state.withLock { $0.recorded } }

    public func requests(matching pathFragment: String) -> [Recorded] {
        requests.filter { $0.path.contains(pathFragment) }
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        let reply: Reply = try state.withLock { state in
            state.recorded.append(Recorded(request: request, body: body))
            let path = String((request.path ?? "").prefix { $0 != "?" })
            guard
                let index = state.steps.firstIndex(where: { step in
                    (step.method == nil || step.method == request.method)
                        && (step.exact ? path == step.path : path.hasPrefix(step.path))
                        && (step.times ?? 1) > 0
                })
            else {
                throw HTTPTransportError(.invalidRequest, "ScriptedTransport: no step for \(request.method) \(path)")
            }
            if let times = state.steps[index].times { state.steps[index].times = times - 1 }
            return state.steps[index].reply
        }
        switch reply {
        case .response(let status, let headers, let body):
            var fields = HTTPFields()
            for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
            return HTTPTransportResponse(
                head: HTTPResponse(status: .init(code: status), headerFields: fields),
                body: body
            )
        case .transportError(let code):
            throw HTTPTransportError(code, "scripted \(code)")
        case .hang:
            ManualClock.externalWorkWillNeverFinish()
            while true { try await Task.sleep(for: .seconds(3600)) }  // sleep-ok: `.hang` never answers
        }
    }
}

extension HTTPClient {
    /// A client over a scripted transport on an auto-advancing test clock, with deterministic back-off.
    ///
    /// The default clock holds while a transport call runs, so an attempt's timeout never fires because a loaded
    /// machine was slow to deliver a scripted answer; a `.hang` reply lets it advance again, so its timeout does fire.
    public static func scripted(
        _ transport: ScriptedTransport,
        clock: any WallClock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true),
        maxAttempts: Int = 3
    ) -> HTTPClient {
        HTTPClient(
            transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: maxAttempts, jitter: .none),
            clock: clock,
            timeout: .seconds(10)
        )
    }
}

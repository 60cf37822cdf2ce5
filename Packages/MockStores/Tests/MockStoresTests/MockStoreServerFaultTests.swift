import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing

struct MockStoreServerFaultTests {
    static let example = Store(rawValue: "example")

    static func cassette(_ fault: Cassette.Fault, response: Cassette.ResponseTemplate? = nil) -> Cassette {
        .script(
            Self.example,
            [Cassette.Interaction(request: .init(method: "GET", path: "/v1/thing"), response: response, fault: fault)]
        )
    }

    @Test func aDelayMovesASharedTestClockThenAnswers() async throws {
        let clock = ManualClock()
        let cassette = Self.cassette(.delay(seconds: 2), response: .init(status: 200, json: ["late": true]))
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let before = clock.currentDate
            let response = try await Loopback.send(.get, server, "/v1/thing")
            #expect(response.status.code == 200)
            #expect(response.json == ["late": true])
            #expect(clock.currentDate.timeIntervalSince(before) == 2)
            #expect(server.exchanges.first?.fault == .delay)
        }
    }

    @Test func aDelayLongerThanTheClientsTimeoutMakesItTimeOut() async throws {
        let clock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true)
        let client = HTTPClient(retryPolicy: .never, clock: clock, timeout: .seconds(10))
        let cassette = Self.cassette(.delay(seconds: 30), response: .init(status: 200))
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let error = await #expect(throws: HTTPTransportError.self) {
                try await Loopback.send(.get, server, "/v1/thing", client: client)
            }
            #expect(error?.code == .timeout)
        }
    }

    @Test func aTimeoutNeverAnswersAndTheClientGivesUp() async throws {
        let clientClock = ManualClock()
        let client = HTTPClient(retryPolicy: .never, clock: clientClock, timeout: .seconds(10))
        try await MockStoreServer.withRunningServer(cassettes: [Self.cassette(.timeout)]) { server in
            let call = Task { try await Loopback.send(.get, server, "/v1/thing", client: client) }
            try await server.waitForRequests(1)
            #expect(await clientClock.waitForSleepers(1))
            clientClock.advance(by: .seconds(10))
            await #expect {
                try await call.value
            } throws: { error in
                (error as? HTTPTransportError)?.code == .timeout
            }
            #expect(server.exchanges.first?.status == nil)
            #expect(server.exchanges.first?.fault == .timeout)
        }
    }

    /// The client's own timeout never fires here (its clock does not move), so only the stopping server can end the
    /// call; the time limit catches a hang without a real-time bound a starved one-core run could exceed.
    @Test(.timeLimit(.minutes(3)))
    func stoppingTheServerReleasesAHeldRequestWithoutHanging() async throws {
        let client = HTTPClient(retryPolicy: .never, clock: ManualClock(), timeout: .seconds(10))
        let call = try await MockStoreServer.withRunningServer(cassettes: [Self.cassette(.timeout)]) { server in
            let call = Task { try await Loopback.send(.get, server, "/v1/thing", client: client) }
            try await server.waitForRequests(1)
            return call
        }
        await #expect {
            try await call.value
        } throws: { error in
            (error as? HTTPTransportError)?.code == .connectionFailed
        }
    }

    @Test func aResetClosesTheConnectionWithoutAResponse() async throws {
        let cassette = Self.cassette(.reset)
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            await #expect {
                try await Loopback.send(.get, server, "/v1/thing")
            } throws: { error in
                (error as? HTTPTransportError)?.code == .connectionFailed
            }
            #expect(server.exchanges.first?.fault == .reset)
            #expect(server.unusedInteractions.isEmpty)
        }
    }

    @Test func aMalformedBodyIsTruncatedJSONWithStatus200() async throws {
        let cassette = Self.cassette(
            .malformed,
            response: .init(status: 200, json: ["id": "pi_1", "status": "succeeded"])
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let response = try await Loopback.send(.get, server, "/v1/thing")
            #expect(response.status.code == 200)
            #expect(response.head.headerFields[.contentType] == "application/json")
            #expect(!response.body.isEmpty)
            #expect(response.json == nil)
            #expect(#"{"id":"pi_1","status":"succeeded"}"#.hasPrefix(response.text))
        }
    }

    @Test func aMalformedFaultWithoutAResponseStillSendsBrokenJSON() async throws {
        try await MockStoreServer.withRunningServer(cassettes: [Self.cassette(.malformed)]) { server in
            let response = try await Loopback.send(.get, server, "/v1/thing")
            #expect(response.status.code == 200)
            #expect(response.json == nil)
        }
    }

    @Test func rateLimitedAnswers429WithRetryAfterThenTheNextInteractionSucceeds() async throws {
        let cassette = Cassette.script(
            Self.example,
            [
                Cassette.Interaction(
                    request: .init(method: "GET", path: "/v1/thing"),
                    response: .init(status: 429, json: ["error": ["type": "rate_limit_error"]]),
                    fault: .rateLimited(retryAfter: 3)
                ),
                .get("/v1/thing", json: ["ok": true]),
            ]
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let first = try await Loopback.send(.get, server, "/v1/thing")
            #expect(first.status.code == 429)
            #expect(first.head.headerFields[.retryAfter] == "3")
            #expect(first.json?["error"]?["type"] == "rate_limit_error")
            let second = try await Loopback.send(.get, server, "/v1/thing")
            #expect(second.status.code == 200)
            try server.verify()
        }
    }

    @Test(arguments: [nil, 503] as [Int?])
    func serverErrorAnswersTheStatusWithTheBody(status: Int?) async throws {
        let fault = status.map { Cassette.Fault.serverError(status: $0) } ?? Cassette.Fault(kind: .serverError)
        let cassette = Self.cassette(fault, response: .init(status: 200, json: ["error": "down"]))
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let response = try await Loopback.send(.get, server, "/v1/thing")
            #expect(response.status.code == (status ?? 500))
            #expect(response.json == ["error": "down"])
        }
    }
}

import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatAsyncHTTPClient
import OpenCatConformance
import OpenCatCore
import OpenCatTesting
import Testing

/// Both transports on real loopback HTTP: redirects are never followed, so credentials never leave for the host a
/// 3xx names, and requests cancelled concurrently (some before they started) end at once instead of stalling
/// until a transport's own timeout (docs/DECISIONS.md D13).
struct TransportSecurityTests {
    static let store = Store(rawValue: "example")
    static let ahc = AsyncHTTPClientTransport()

    enum Kind: String, CaseIterable, Sendable { case urlsession, ahc }

    func transport(_ kind: Kind) -> any HTTPTransport {
        switch kind {
        case .urlsession: URLSessionTransport()
        case .ahc: Self.ahc
        }
    }

    private func cassette(_ interactions: [Cassette.Interaction]) -> Cassette {
        Cassette(
            store: Self.store,
            scenario: "transport",
            input: .init(kind: .stripePaymentIntent, token: "pi_test"),
            interactions: interactions,
            expect: .verified("active")
        )
    }

    @Test(arguments: Kind.allCases)
    func aRedirectIsReturnedNotFollowedAndTheAuthorizationStaysHome(_ kind: Kind) async throws {
        let redirect = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/start"),
            response: .init(status: 302, headers: ["Location": "/v1/elsewhere"])
        )
        let target = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/elsewhere"),
            response: .init(status: 200, json: ["leaked": true]),
            minTimes: 0
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette([redirect, target])]) { server in
            var request = HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("v1/start"))
            request.headerFields[.authorization] = "Bearer sk_test_secret"
            let response = try await transport(kind).send(request, body: nil)
            #expect(response.status.code == 302)
            #expect(response.head.headerFields[.location] == "/v1/elsewhere")
            #expect(server.exchanges.count == 1)
            #expect(!server.exchanges.contains { $0.request.path == "/v1/elsewhere" })
        }
    }

    @Test(arguments: Kind.allCases)
    func requestsCancelledConcurrentlyEndPromptly(_ kind: Kind) async throws {
        // Each request would be held by the mock until the server stops; cancelling must end every one at once
        // (including one cancelled before its URLSession task existed), not after URLSession's own timeout.
        let held = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/held"),
            fault: .init(kind: .timeout),
            times: 8,
            minTimes: 0
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette([held])]) { server in
            let transport = transport(kind)
            let started = ContinuousClock.now
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let request = HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("v1/held"))
                        if index.isMultiple(of: 2) { withUnsafeCurrentTask { $0?.cancel() } }
                        _ = try? await transport.send(request, body: nil)
                    }
                }
                group.cancelAll()
            }
            // A request whose cancellation were lost would end at its transport's own timeout (300 s: URLSession's
            // per-request interval, AsyncHTTPClient's default). The bound is well below it and wide enough for eight
            // requests on one core starved by the rest of the suite (26 s was seen there; 10 s was exceeded).
            let bound: Duration = .seconds(120)
            #expect(ContinuousClock.now - started < bound)
        }
    }

    @Test func theMatrixIsTheSameThroughAsyncHTTPClientInParallel() async throws {
        let catalogue = try ScenarioCatalogue.load(
            from: ConformanceSuiteTests.fixtures.appendingPathComponent("scenarios.json")
        )
        let serial = try await ConformanceSuite(catalogue: catalogue, cassetteFolders: [ConformanceSuiteTests.fixtures])
            .run()
        var parallel = try ConformanceSuite(
            catalogue: catalogue,
            cassetteFolders: [ConformanceSuiteTests.fixtures],
            parallelism: 4
        )
        parallel.makeTransport = { Self.ahc }
        let report = await parallel.run()
        #expect(report.succeeded, "\(report.renderText())")
        #expect(
            report.cells.map { "\($0.store)/\($0.scenario)=\($0.status)" }
                == serial.cells.map { "\($0.store)/\($0.scenario)=\($0.status)" }
        )
    }
}

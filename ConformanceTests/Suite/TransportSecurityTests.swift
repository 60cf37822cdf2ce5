import Foundation
import HTTPTypes
import MockStores
import OpenCatCore
import Testing

/// The URLSession transport on real loopback HTTP: redirects are never followed, so credentials never leave for
/// the host a 3xx names, and a request cancelled before it started does not linger.
struct TransportSecurityTests {
    static let store = Store(rawValue: "example")

    private func cassette(_ interactions: [Cassette.Interaction]) -> Cassette {
        Cassette(
            store: Self.store, scenario: "transport", input: .init(kind: .stripePaymentIntent, token: "pi_test"),
            interactions: interactions, expect: .verified("active"))
    }

    @Test func aRedirectIsReturnedNotFollowedAndTheAuthorizationStaysHome() async throws {
        let redirect = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/start"),
            response: .init(status: 302, headers: ["Location": "/v1/elsewhere"]))
        let target = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/elsewhere"), response: .init(status: 200, json: ["leaked": true]),
            minTimes: 0)
        try await MockStoreServer.withRunningServer(cassettes: [cassette([redirect, target])]) { server in
            var request = HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("v1/start"))
            request.headerFields[.authorization] = "Bearer sk_test_secret"
            let response = try await URLSessionTransport().send(request, body: nil)
            #expect(response.status.code == 302)
            #expect(response.head.headerFields[.location] == "/v1/elsewhere")
            #expect(server.exchanges.count == 1)
            #expect(!server.exchanges.contains { $0.request.path == "/v1/elsewhere" })
        }
    }

    @Test func requestsCancelledConcurrentlyEndPromptly() async throws {
        // Each request would be held by the mock until the server stops; cancelling must end every one at once
        // (including one cancelled before its URLSession task existed), not after URLSession's own timeout.
        let held = Cassette.Interaction(request: .init(method: "GET", path: "/v1/held"), fault: .init(kind: .timeout), times: 8, minTimes: 0)
        try await MockStoreServer.withRunningServer(cassettes: [cassette([held])]) { server in
            let transport = URLSessionTransport()
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
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}

import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing

struct MockStoreServerMatchingTests {
    static let example = Store(rawValue: "example")

    @Test func aRequestMatchesOnMethodPathAndQueryAsAMultiset() async throws {
        let cassette = Cassette.script(
            Self.example,
            [.get("/v1/items/1", query: ["expand[]": ["a", "b"], "limit": ["2"]])]
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let response = try await Loopback.send(.get, server, "/v1/items/1?limit=2&expand[]=b&expand[]=a")
            #expect(response.status.code == 200)
            #expect(response.json == ["ok": true])
            #expect(response.head.headerFields[.contentType] == "application/json")
            try server.verify()
            let received = try #require(server.receivedRequests.first)
            #expect(received.path == "/v1/items/1")
            #expect(received.queryItems.map(\.description) == ["limit=2", "expand[]=b", "expand[]=a"])
        }
    }

    @Test func aMissingOrExtraQueryParameterDoesNotMatch() async throws {
        let cassette = Cassette.script(Self.example, [.get("/v1/items/1", query: ["limit": ["2"]])])
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let response = try await Loopback.send(.get, server, "/v1/items/1?limit=2&page=3")
            #expect(response.status.code == 599)
            #expect(server.unmatchedRequests.first?.difference == "query: expected limit=2, found limit=2&page=3")
        }
    }

    @Test func aJSONBodyMatchesCanonically() async throws {
        let interaction = Cassette.Interaction(
            request: .init(method: "POST", path: "/v1/receipts", json: ["a": 1, "b": [true, nil], "c": ["d": "e"]]),
            response: .init(status: 201, json: ["created": true])
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.example, [interaction])]) { server in
            let response = try await Loopback.send(
                .post,
                server,
                "/v1/receipts",
                headers: ["Content-Type": "application/json"],
                body: #"{ "c": {"d": "e"}, "b": [true, null], "a": 1.0 }"#
            )
            #expect(response.status.code == 201)
            try server.verify()
        }
    }

    @Test func aJSONBodyThatDiffersNamesTheJSONPath() async throws {
        let interaction = Cassette.Interaction(
            request: .init(method: "POST", path: "/v1/receipts", json: ["proof": "abc", "n": 1]),
            response: .init(status: 201)
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.example, [interaction])]) { server in
            let response = try await Loopback.send(.post, server, "/v1/receipts", body: #"{"proof": "abd", "n": 1}"#)
            #expect(response.status.code == 599)
            let nearest = try #require(response.json?["error"]?["nearest"])
            #expect(nearest["index"] == 0)
            #expect(nearest["difference"] == #"json: $.proof: expected "abc", found "abd""#)
        }
    }

    @Test func aFormBodyMatchesTheListedFieldsOnly() async throws {
        let interaction = Cassette.Interaction(
            request: .init(method: "POST", path: "/token", form: .init(single: ["grant_type": "client_credentials"])),
            response: .init(status: 200, json: ["access_token": "t"])
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.example, [interaction])]) { server in
            let response = try await Loopback.send(
                .post,
                server,
                "/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: "assertion=eyJ.changing.each.run&grant_type=client_credentials"
            )
            #expect(response.status.code == 200)
            #expect(server.receivedRequests.first?.formValue("assertion") == "eyJ.changing.each.run")
        }
    }

    @Test func listedHeadersMustMatchAndOthersAreIgnored() async throws {
        let interaction = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/payment_intents/pi_1", headers: ["stripe-version": "2024-06-20"]),
            response: .init(status: 200, json: ["id": "pi_1"]),
            times: 2
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.example, [interaction])]) { server in
            let good = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/pi_1",
                headers: ["Stripe-Version": "2024-06-20", "User-Agent": "anything", "Authorization": "Bearer whatever"]
            )
            #expect(good.status.code == 200)
            let bad = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/pi_1",
                headers: ["Stripe-Version": "2020-08-27"]
            )
            #expect(bad.status.code == 599)
            #expect(
                server.unmatchedRequests.first?.difference
                    == #"headers.stripe-version: expected "2024-06-20", found "2020-08-27""#
            )
        }
    }

    @Test func theSameRequestIsAnsweredInOrderThenFailsLoudly() async throws {
        let cassette = Cassette.script(
            Self.example,
            [
                .get("/v1/orders/o1", json: ["status": "PENDING"]),
                .get("/v1/orders/o1", json: ["status": "COMPLETED"], times: 2),
            ]
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            var statuses: [JSONValue?] = []
            for _ in 0..<3 { statuses.append(try await Loopback.send(.get, server, "/v1/orders/o1").json?["status"]) }
            #expect(statuses == ["PENDING", "COMPLETED", "COMPLETED"])
            #expect(server.unusedInteractions.isEmpty)

            let fourth = try await Loopback.send(.get, server, "/v1/orders/o1")
            #expect(fourth.status.code == 599)
            let unmatched = try #require(server.unmatchedRequests.first)
            #expect(unmatched.nearest?.index == 0)
            #expect(unmatched.difference?.contains("already answered") == true)
            #expect(throws: MockStoreServerError.self) { try server.verify() }
        }
    }

    @Test func anUnmatchedRequestNamesTheNearestInteractionAndIsRecorded() async throws {
        let cassette = Cassette.script(
            Self.example,
            [.get("/v1/a"), .get("/v1/payment_intents/pi_1", query: ["expand[]": ["latest_charge"]])]
        )
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            let response = try await Loopback.send(.get, server, "/v1/payment_intents/pi_1")
            #expect(response.status.code == 599)
            #expect(response.json?["error"]?["type"] == "opencat_mock_unmatched_request")
            #expect(response.json?["error"]?["nearest"]?["path"] == "/v1/payment_intents/pi_1")
            let unmatched = try #require(server.unmatchedRequests.first)
            #expect(unmatched.nearest?.index == 1)
            #expect(unmatched.difference == "query: expected expand[]=latest_charge, found none")
            #expect(
                unmatched.description.contains("nearest is example/test interactions[1] (GET /v1/payment_intents/pi_1")
            )
            #expect(server.unusedInteractions.map(\.index) == [0, 1])
            #expect(server.problems.count == 3)
            #expect(server.exchanges.first?.handling == .unmatched)
        }
    }

    @Test func aRequestForAnotherPathFallsBackToTheFirstUnusedInteraction() async throws {
        let cassette = Cassette.script(Self.example, [.get("/v1/a"), .get("/v1/b")])
        try await MockStoreServer.withRunningServer(cassettes: [cassette]) { server in
            _ = try await Loopback.send(.get, server, "/v1/a")
            _ = try await Loopback.send(.delete, server, "/v1/zzz")
            let unmatched = try #require(server.unmatchedRequests.first)
            #expect(unmatched.nearest?.index == 1)
            #expect(unmatched.difference == "method: expected GET, found DELETE")
        }
    }

    @Test func loadingAnotherCassetteReplacesTheScriptAndTheRecords() async throws {
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.example, [.get("/one")])]) { server in
            _ = try await Loopback.send(.get, server, "/one")
            server.load(.script(Self.example, [.get("/two")]))
            #expect(server.receivedRequests.isEmpty)
            #expect(try await Loopback.send(.get, server, "/one").status.code == 599)
            #expect(try await Loopback.send(.get, server, "/two").status.code == 200)
        }
    }

    @Test func aServerRunsOnceAndReportsItsAddress() async throws {
        let server = MockStoreServer()
        let url = try await server.start()
        #expect(url.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.baseURL == url)
        #expect(server.port > 0)
        await server.stop()
        await #expect(throws: MockStoreServerError.alreadyStarted) { try await server.run() }
    }
}

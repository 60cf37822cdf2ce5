import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing

/// JSON-RPC interactions: matched on method and params (ids never compared, ignored members left out), answered with
/// the request's id; ChippiPay's key check guards /v1/ only.
struct MockStoreServerJSONRPCTests {
    static let node = Store(rawValue: "starknet-node")

    static func call(_ id: Int, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    @Test func aCallMatchesOnMethodAndParamsAndTheAnswerEchoesItsID() async throws {
        let interaction = Cassette.Interaction(
            request: .init(
                method: "POST",
                path: "/rpc",
                rpc: .init(
                    method: "starknet_addInvokeTransaction",
                    params: ["invoke_transaction": ["nonce": "0x5", "signature": ["0x1", "0x2"]]],
                    ignoring: ["invoke_transaction.signature"]
                )
            ),
            response: .init(status: 200, json: ["result": ["transaction_hash": "0xabc"]])
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.node, [interaction])]) { server in
            let response = try await Loopback.send(
                .post,
                server,
                "/rpc",
                headers: ["Content-Type": "application/json"],
                body: Self.call(
                    41,
                    "starknet_addInvokeTransaction",
                    #"{"invoke_transaction":{"nonce":"0x5","signature":["0x9"]}}"#
                )
            )
            #expect(response.status.code == 200)
            #expect(response.json == ["jsonrpc": "2.0", "id": 41, "result": ["transaction_hash": "0xabc"]])
            try server.verify()
        }
    }

    @Test func anotherMethodOrParamsDoNotMatchAndTheDifferenceIsNamed() async throws {
        let interaction = Cassette.Interaction(
            request: .init(
                method: "POST",
                path: "/rpc",
                rpc: .init(method: "starknet_getNonce", params: ["block_id": "pending", "contract_address": "0x1"])
            ),
            response: .init(status: 200, json: ["result": "0x5"])
        )
        try await MockStoreServer.withRunningServer(cassettes: [.script(Self.node, [interaction])]) { server in
            let wrongParams = try await Loopback.send(
                .post,
                server,
                "/rpc",
                body: Self.call(1, "starknet_getNonce", #"{"block_id":"latest","contract_address":"0x1"}"#)
            )
            #expect(wrongParams.status.code == 599)
            #expect(server.unmatchedRequests.last?.difference?.contains("rpc.params.block_id") == true)
            let wrongMethod = try await Loopback.send(
                .post,
                server,
                "/rpc",
                body: Self.call(2, "starknet_chainId", "{}")
            )
            #expect(wrongMethod.status.code == 599)
            #expect(server.unmatchedRequests.last?.difference?.contains("rpc.method") == true)
            let notRPC = try await Loopback.send(.post, server, "/rpc", body: #"{"method":"starknet_getNonce"}"#)
            #expect(notRPC.status.code == 599)
        }
    }

    @Test func validationRefusesAnRPCPatternOnAGetOrWithAnotherBody() throws {
        func cassette(_ request: String) -> Data {
            Data(
                """
                {"format": "opencat-cassette/1", "store": "chippipay", "scenario": "s",
                 "input": {"kind": "k", "token": "t"},
                 "interactions": [{"request": \(request), "response": {"status": 200, "json": {"result": 1}}}],
                 "expect": {"outcome": "verified", "state": "active"}}
                """.utf8
            )
        }
        #expect(throws: CassetteError.self) {
            try Cassette.decode(cassette(#"{"method": "GET", "path": "/rpc", "rpc": {"method": "m"}}"#), file: "a.json")
        }
        #expect(throws: CassetteError.self) {
            try Cassette.decode(
                cassette(#"{"method": "POST", "path": "/rpc", "rpc": {"method": "m"}, "json": {}}"#),
                file: "b.json"
            )
        }
        #expect(throws: CassetteError.self) {
            try Cassette.decode(cassette(#"{"method": "POST", "path": "/rpc", "rpc": {"method": ""}}"#), file: "c.json")
        }
        #expect(throws: (any Error).self) {
            try Cassette.decode(
                cassette(#"{"method": "POST", "path": "/rpc", "rpc": {"method": "m", "parms": []}}"#),
                file: "d.json"
            )
        }
    }

    @Test func chippiPaysKeyCheckGuardsItsAPIButNotTheNodeBesideIt() async throws {
        let store = MockCredentials.chippiPayStore
        let sku = Cassette.Interaction(
            request: .init(method: "GET", path: "/v1/skus/s1"),
            response: .init(status: 200, json: ["id": "s1"]),
            times: 2,
            minTimes: 1
        )
        let nonce = Cassette.Interaction(
            request: .init(method: "POST", path: "/rpc", rpc: .init(method: "starknet_chainId")),
            response: .init(status: 200, json: ["result": "0x534e5f4d41494e"])
        )
        let credentials = MockCredentials(chippiPay: .init(apiKey: Secret("pk_dev_1"), secretKey: Secret("sk_dev_1")))
        try await MockStoreServer.withRunningServer(
            cassettes: [.script(store, [sku, nonce])],
            credentials: credentials
        ) { server in
            let refused = try await Loopback.send(
                .get,
                server,
                "/v1/skus/s1",
                headers: ["x-api-key": "pk_dev_2", "Authorization": "Bearer sk_dev_1"]
            )
            #expect(refused.status.code == 401)
            #expect(refused.json?["code"] == "INVALID_API_KEY")
            let noBearer = try await Loopback.send(.get, server, "/v1/skus/s1", headers: ["x-api-key": "pk_dev_1"])
            #expect(noBearer.status.code == 401)
            let accepted = try await Loopback.send(
                .get,
                server,
                "/v1/skus/s1",
                headers: ["x-api-key": "pk_dev_1", "Authorization": "Bearer sk_dev_1"]
            )
            #expect(accepted.status.code == 200)
            let chain = try await Loopback.send(.post, server, "/rpc", body: Self.call(7, "starknet_chainId", "[]"))
            #expect(chain.json?["result"] == "0x534e5f4d41494e")
            try server.verify()
        }
    }
}

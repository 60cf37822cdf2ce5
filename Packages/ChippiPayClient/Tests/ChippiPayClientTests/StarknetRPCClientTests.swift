import ChippiPayClient
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StarknetCrypto
import Testing

/// The JSON-RPC 0.8 client: request shapes, answers, node errors with their code and data.
struct StarknetRPCClientTests {
    func client(_ transport: ScriptedTransport) -> StarknetRPCClient {
        StarknetRPCClient(
            url: URL(string: "https://node.test/rpc/v0_8")!,
            http: HTTPClient(
                transport: transport,
                retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                clock: ManualClock(autoAdvance: true, holdsDuringExternalWork: true)
            )
        )
    }

    func sent(_ transport: ScriptedTransport, _ index: Int) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: transport.requests[index].body ?? Data()) as? [String: Any])
    }

    @Test func readsChainNonceCallAndStatus() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, "/rpc", times: 1, json: #"{"jsonrpc":"2.0","id":1,"result":"0x534e5f5345504f4c4941"}"#)
        transport.on(.post, "/rpc", times: 1, json: #"{"jsonrpc":"2.0","id":1,"result":"0x1c"}"#)
        transport.on(.post, "/rpc", times: 1, json: #"{"jsonrpc":"2.0","id":1,"result":["0x22b1c8c1227a0000","0x0"]}"#)
        transport.on(
            .post,
            "/rpc",
            times: 1,
            json:
                #"{"jsonrpc":"2.0","id":1,"result":{"finality_status":"ACCEPTED_ON_L2","execution_status":"REVERTED","failure_reason":"out of gas"}}"#
        )
        let rpc = client(transport)
        #expect(try await rpc.chainID() == .sepolia)
        #expect(try await rpc.nonce(of: 0xabc) == Felt(0x1c))
        let vault = VaultContract(address: 0x299)
        #expect(try await vault.balance(of: 0xabc, rpc: rpc).formatted == "2.5")
        let status = try await rpc.status(0x123)
        #expect(status.isAccepted && status.isReverted && status.failureReason == "out of gas")

        #expect(try sent(transport, 0)["method"] as? String == "starknet_chainId")
        let nonce = try sent(transport, 1)
        #expect(nonce["jsonrpc"] as? String == "2.0")
        #expect(nonce["params"] as? [String: String] == ["block_id": "pending", "contract_address": "0xabc"])
        let call = try #require(try sent(transport, 2)["params"] as? [String: Any])
        let request = try #require(call["request"] as? [String: Any])
        #expect(request["entry_point_selector"] as? String == StarknetKeccak.selector("balance_of").hexString)
        #expect(request["calldata"] as? [String] == ["0xabc"])
        #expect(call["block_id"] as? String == "latest")
    }

    @Test func nodeErrorsKeepTheirCodeAndData() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/rpc",
            json:
                #"{"jsonrpc":"2.0","id":1,"error":{"code":41,"message":"Transaction execution error","data":{"execution_error":"Insufficient vault balance","transaction_index":0}}}"#
        )
        do {
            _ = try await client(transport).call(FunctionCall(contractAddress: 1, entrypoint: "withdraw", calldata: []))
            Issue.record("a node error was not thrown")
        } catch {
            #expect(error.code == .rpcError)
            #expect(error.serverCode == "41")
            #expect(error.reason?.contains("Insufficient vault balance") == true)
        }
    }

    @Test func malformedAnswersAreTyped() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, "/rpc", times: 1, json: #"{"jsonrpc":"2.0","id":1}"#)
        transport.on(.post, "/rpc", times: 1, json: #"{"jsonrpc":"2.0","id":1,"result":"not a felt"}"#)
        let rpc = client(transport)
        await #expect(throws: ChippiPayError.self) { try await rpc.chainID() }
        let error = try await #require(throws: ChippiPayError.self) { try await rpc.nonce(of: 1) }
        #expect(error.code == .malformedResponse)
    }

    @Test func executeCalldataIsTheCairoOneLayout() {
        let calldata = StarknetAccount.executeCalldata([
            Call(to: 0x10, entrypoint: "transfer", calldata: [1, 2, 3]),
            Call(to: 0x20, entrypoint: "approve", calldata: []),
        ])
        #expect(
            calldata == [
                2, 0x10, StarknetKeccak.selector("transfer"), 3, 1, 2, 3, 0x20, StarknetKeccak.selector("approve"), 0,
            ]
        )
    }
}

import ChippiPayClient
import Crypto
import Foundation
import Logging
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import StarknetCrypto
import Testing

/// The vault purchase flow end to end over loopback (ChippiPay and a Starknet node served by MockStoresServer from
/// Fixtures/chippipay): a crash after any step resumes where it stopped with one withdrawal and one purchase, a
/// reverted withdrawal reports its reason, and no key reaches the logs, the errors or the cache file.
struct ChippiPayFlowTests {
    static let apiKey = "pk_dev_flowtests_0123456789"
    static let secretKey = "sk_dev_flowtests_9876543210"
    let clock = ManualClock(start: ConformanceSuite.clockStart, autoAdvance: true, holdsDuringExternalWork: true)
    let accountKey = StarkPrivateKey.generate()
    let cacheKey = SymmetricKey(size: .bits256)
    let logs = LogCapture()

    struct Crash: Error {}

    static func cassette(_ name: String) throws -> Cassette {
        try Cassette.load(
            from: ConformanceSuiteTests.fixtures.appendingPathComponent("chippipay/\(name).json"),
            variables: ["chippipay.apiKey": apiKey, "chippipay.secretKey": secretKey, "chippipay.wrongApiKey": "pk_x"]
        )
    }

    func flow(
        _ server: MockStoreServer,
        _ cassette: Cassette,
        cacheFile: URL,
        stopAfter step: VaultPurchaseRecord.Step? = nil
    ) throws -> VaultPurchaseFlow {
        func config(_ key: String) throws -> Felt { try Felt(hex: try #require(cassette.config[key]?.stringValue)) }
        let http = HTTPClient(
            transport: URLSessionTransport(),
            retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
            clock: clock,
            logger: logs.logger
        )
        let client = ChippiPayClient(
            configuration: ChippiPayConfiguration(
                baseURL: server.baseURL.appendingPathComponent("v1"),
                apiKey: Secret(Self.apiKey),
                bearerToken: Secret(Self.secretKey),
                logger: logs.logger
            ),
            http: http
        )
        let rpc = StarknetRPCClient(url: server.baseURL.appendingPathComponent("rpc"), http: http, logger: logs.logger)
        let account = StarknetAccount(address: try config("account"), key: accountKey, chainID: .mainnet, rpc: rpc)
        let cache = try EncryptedCache(
            fileURL: cacheFile,
            keyProvider: StaticKeyProvider(key: cacheKey),
            logger: logs.logger
        )
        return VaultPurchaseFlow(
            chippiPay: client,
            account: account,
            vault: VaultContract(address: try config("vault")),
            recipient: try config("recipient"),
            cache: cache,
            onStepStored: { record in if record.step == step { throw Crash() } }
        )
    }

    static let request = VaultPurchaseRequest(
        flowID: "flow-completed",
        skuId: "sku-tl-TEL050",
        reference: "5512345678",
        fiatAmount: 50,
        rate: 20
    )

    static func rpcMethods(_ server: MockStoreServer) -> [String] {
        server.receivedRequests.compactMap { request -> String? in
            guard case .object(let body)? = request.json, case .string(let method)? = body["method"] else { return nil }
            return method
        }
    }

    func assertNoSecrets(in cacheFile: URL, _ texts: [String]) throws {
        let key = String(accountKey.secretHex.revealed.dropFirst(2))
        let secrets = [key, Self.apiKey, Self.secretKey]
        let stored = try Data(contentsOf: cacheFile)
        for secret in secrets {
            #expect(stored.range(of: Data(secret.utf8)) == nil)
            #expect(!logs.text.contains(secret))
            for text in texts { #expect(!text.contains(secret)) }
        }
    }

    @Test(arguments: [
        VaultPurchaseRecord.Step.withdrawalSigned, .withdrawalConfirmed, .purchaseRequested, .purchaseCreated,
    ])
    func aCrashAfterAnyStepResumesWithOneWithdrawalAndOnePurchase(_ step: VaultPurchaseRecord.Step) async throws {
        let cassette = try Self.cassette("completed")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-chippipay-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("cache.sqlite")
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: MockCredentials(
                chippiPay: .init(apiKey: Secret(Self.apiKey), secretKey: Secret(Self.secretKey))
            ),
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            var errorText = ""
            do {
                _ = try await flow(server, cassette, cacheFile: cacheFile, stopAfter: step).run(Self.request)
                Issue.record("the flow did not stop after \(step)")
            } catch {
                errorText = "\(error)"
            }
            // A new process: a new cache over the same file, a new flow.
            let resumed = try flow(server, cassette, cacheFile: cacheFile)
            #expect(try resumed.record(flowID: Self.request.flowID)?.step == step)
            let purchase = try await resumed.resume(flowID: Self.request.flowID)
            #expect(purchase.status == .success)
            #expect(purchase.id == "sku-tx-2f1c8e6a-5b4d-4c3e-9a21-7d0e6f5a4b3c")
            #expect(try resumed.record(flowID: Self.request.flowID)?.step == .completed)
            // Running it again returns the stored result without a request.
            let before = server.receivedRequests.count
            #expect(try await resumed.run(Self.request).id == purchase.id)
            #expect(server.receivedRequests.count == before)

            #expect(Self.rpcMethods(server).filter { $0 == "starknet_addInvokeTransaction" }.count == 1)
            let creations = server.receivedRequests.filter { $0.method == "POST" && $0.path == "/v1/sku-transactions" }
            #expect(creations.count == 1)
            try server.verify()
            try assertNoSecrets(in: cacheFile, [errorText])
        }
    }

    @Test func aLostPurchaseAnswerIsFoundByTheWithdrawalHashNotSentAgain() async throws {
        var cassette = try Self.cassette("completed")
        let index = try #require(cassette.interactions.firstIndex { $0.request.path == "/v1/sku-transactions" })
        var lost = cassette.interactions[index]
        lost.fault = Cassette.Fault(kind: .timeout)
        cassette.interactions[index] = lost
        // ChippiPay made the purchase; the flow finds it under the withdrawal's hash.
        let hashes = cassette.interactions.compactMap { interaction -> String? in
            guard interaction.request.rpc?.method == "starknet_addInvokeTransaction",
                case .object(let body)? = interaction.response?.json, case .object(let result)? = body["result"],
                case .string(let hash)? = result["transaction_hash"]
            else { return nil }
            return hash
        }
        let hash = try #require(hashes.first)
        let answer = try #require(cassette.interactions[index].response)
        cassette.interactions.insert(
            Cassette.Interaction(
                request: .init(
                    method: "GET",
                    path: "/v1/transactions/\(hash)",
                    query: Cassette.NameValues(["__chipi_api_version": ["2025-12-30"]])
                ),
                response: answer
            ),
            at: index + 1
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-chippipay-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("cache.sqlite")
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: MockCredentials(
                chippiPay: .init(apiKey: Secret(Self.apiKey), secretKey: Secret(Self.secretKey))
            ),
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let flow = try flow(server, cassette, cacheFile: cacheFile)
            do {
                _ = try await flow.run(Self.request)
                Issue.record("a lost answer went unnoticed")
            } catch let error as ChippiPayError {
                #expect(error.code == .timeout)
            }
            #expect(try flow.record(flowID: Self.request.flowID)?.step == .purchaseRequested)
            let purchase = try await flow.resume(flowID: Self.request.flowID)
            #expect(purchase.status == .success)
            #expect(server.receivedRequests.filter { $0.path == "/v1/sku-transactions" }.count == 1)
            #expect(Self.rpcMethods(server).filter { $0 == "starknet_addInvokeTransaction" }.count == 1)
            try server.verify()
        }
    }

    @Test func aRevertedWithdrawalReportsItsReasonAndBuysNothing() async throws {
        let cassette = try Self.cassette("reverted-withdrawal")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-chippipay-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("cache.sqlite")
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: MockCredentials(
                chippiPay: .init(apiKey: Secret(Self.apiKey), secretKey: Secret(Self.secretKey))
            ),
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let flow = try flow(server, cassette, cacheFile: cacheFile)
            var request = Self.request
            request.flowID = "flow-reverted-withdrawal"
            do {
                _ = try await flow.run(request)
                Issue.record("a reverted withdrawal completed")
            } catch let error as ChippiPayError {
                #expect(error.code == .withdrawalReverted)
                #expect(error.reason?.contains("Insufficient vault balance") == true)
                try assertNoSecrets(in: cacheFile, ["\(error)", error.userMessage])
            }
            let record = try #require(try flow.record(flowID: request.flowID))
            #expect(record.step == .failed && record.failureCode == "withdrawalReverted")
            #expect(record.withdrawalHash != nil)
            #expect(!server.receivedRequests.contains { $0.path == "/v1/sku-transactions" })
            // Resuming a failed purchase sends nothing and reports the same failure.
            let before = server.receivedRequests.count
            await #expect(throws: ChippiPayError.self) { try await flow.resume(flowID: request.flowID) }
            #expect(server.receivedRequests.count == before)
            try server.verify()
        }
    }
}

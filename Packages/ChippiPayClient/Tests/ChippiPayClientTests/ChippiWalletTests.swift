import ChippiPayClient
import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenCat
import OpenCatCore
import OpenCatTesting
import StarknetCrypto
import Testing

/// Gasless wallets as ChipiPay creates them: the key generated here, the CHIPI address computed here, ChippiPay's
/// typed data signed here; only the PIN-sealed key and signatures leave; the cache never holds the key in clear.
struct ChippiWalletTests {
    static let typedData = """
        {"types":{"StarknetDomain":[{"name":"name","type":"shortstring"},{"name":"version","type":"shortstring"},
          {"name":"chainId","type":"shortstring"},{"name":"revision","type":"shortstring"}],
          "OutsideExecution":[{"name":"Caller","type":"ContractAddress"},{"name":"Nonce","type":"felt"},
          {"name":"Execute After","type":"u128"},{"name":"Execute Before","type":"u128"},{"name":"Calls","type":"Call*"}],
          "Call":[{"name":"To","type":"ContractAddress"},{"name":"Selector","type":"selector"},
          {"name":"Calldata","type":"felt*"}]},
         "primaryType":"OutsideExecution",
         "domain":{"name":"Account.execute_from_outside","version":"2","chainId":"SN_MAIN","revision":"1"},
         "message":{"Caller":"0x414e595f43414c4c4552","Nonce":"0x1","Execute After":"0x1","Execute Before":"0x67b5c6e0",
          "Calls":[{"To":"0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d","Selector":"transfer",
          "Calldata":["0x1","0x2","0x0"]}]}}
        """
    static let chipiClass = "0x53f4f8791ed5bed0fddaa553d180c664e32cfaf8316bb232ae77bb08f459f2a"

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-wallet-\(UUID())")
    let cacheKey = SymmetricKey(size: .bits256)

    func cache() throws -> EncryptedCache {
        try EncryptedCache(
            fileURL: folder.appendingPathComponent("cache.sqlite"),
            keyProvider: StaticKeyProvider(key: cacheKey),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    func body(_ recorded: ScriptedTransport.Recorded) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: recorded.body ?? Data()) as? [String: Any])
    }

    func verifySignature(_ signature: [String: Any], hash: Felt, publicKey: Felt) throws -> Bool {
        let rText = try #require(signature["r"] as? String)
        let sText = try #require(signature["s"] as? String)
        let r = try Felt(try #require(UInt256(rText)))
        let s = try Felt(try #require(UInt256(sText)))
        return StarkECDSA.verify(publicKey: publicKey, hash: hash, signature: StarkSignature(r: r, s: s))
    }

    @Test func createsAWalletAsChipiPayDoesAndResumesWithTheSameKey() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/v1/chipi-wallets/prepare-creation",
            json: #"{"typedData":\#(Self.typedData),"accountClassHash":"\#(Self.chipiClass)"}"#
        )
        // The first creation fails (ChippiPay down; a POST is not retried automatically), the second succeeds after
        // checking that ChippiPay has no wallet for the user yet: the same key must be used both times.
        transport.on(
            .get,
            "/v1/chipi-wallets/by-user",
            status: 404,
            json: #"{"message":"Wallet not found","code":"WALLET_NOT_FOUND"}"#
        )
        transport.on(.post, "/v1/chipi-wallets", exact: true, times: 1, status: 503, json: #"{"message":"down"}"#)
        transport.on(
            .post,
            "/v1/chipi-wallets",
            exact: true,
            json: #"{"id":"wallet_abc123","publicKey":"0x1","walletType":"CHIPI","chain":"STARKNET"}"#
        )
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache())
        let pin = Secret("2468")
        await #expect(throws: ChippiPayError.self) {
            try await manager.createWallet(externalUserId: "user_123", pin: pin)
        }
        let pending = try #require(try manager.storedWallet(externalUserId: "user_123"))
        #expect(!pending.isCreated)

        let wallet = try await ChippiWalletManager(client: makeClient(transport), cache: try cache())
            .createWallet(externalUserId: "user_123", pin: pin)
        #expect(wallet.isCreated && wallet.walletID == "wallet_abc123")
        #expect(wallet.address == pending.address && wallet.publicKey == pending.publicKey)
        #expect(
            wallet.address
                == ContractAddress.compute(
                    salt: wallet.publicKey,
                    classHash: try Felt(hex: Self.chipiClass),
                    constructorCalldata: [wallet.publicKey]
                )
        )

        let prepares = transport.requests(matching: "prepare-creation")
        #expect(prepares.count == 2)
        for prepare in prepares {
            let sent = try body(prepare)
            #expect(sent["publicKey"] as? String == wallet.address.hexString)
            #expect(sent["starkKeyPubAX"] as? String == wallet.publicKey.hexString)
            #expect(sent["walletType"] as? String == "CHIPI")
        }
        let created = try body(try #require(transport.requests.last))
        #expect(created["externalUserId"] as? String == "user_123")
        #expect(created["userId"] is NSNull)
        #expect(transport.requests(matching: "by-user").count == 1)
        let data = try JSONDecoder().decode(TypedData.self, from: Data(Self.typedData.utf8))
        let hash = try data.messageHash(account: wallet.address)
        #expect(
            try verifySignature(
                try #require(created["userSignature"] as? [String: Any]),
                hash: hash,
                publicKey: wallet.publicKey
            )
        )
        let deployment = try #require(created["deploymentData"] as? [String: Any])
        #expect(deployment["salt"] as? String == wallet.publicKey.hexString)
        #expect(deployment["calldata"] as? [String] == [wallet.publicKey.hexString])
        #expect(deployment["unique"] as? String == "0x0")
        // The key leaves only sealed with the PIN, and the seal opens to the wallet's key.
        let sealed = try #require(created["encryptedPrivateKey"] as? String)
        #expect(sealed.hasPrefix("U2FsdGVkX1"))
        let key = try StarkPrivateKey(hex: try PassphraseSeal.open(sealed, passphrase: pin))
        #expect(key.publicKey == wallet.publicKey)
        let keyHex = String(key.secretHex.revealed.dropFirst(2))
        for request in transport.requests {
            #expect(!(request.bodyText + (request.request.path ?? "")).contains(keyHex))
        }
        let stored = try Data(contentsOf: folder.appendingPathComponent("cache.sqlite"))
        #expect(stored.range(of: Data(keyHex.utf8)) == nil)
        #expect(stored.range(of: Data(sealed.utf8)) == nil)  // the cache seals its values too
    }

    @Test func executesSponsoredCallsSignedForTheWallet() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/v1/chipi-wallets/prepare-creation",
            json: #"{"typedData":\#(Self.typedData),"accountClassHash":"\#(Self.chipiClass)"}"#
        )
        transport.on(.post, "/v1/chipi-wallets", exact: true, json: #"{"id":"w1","publicKey":"0x1"}"#)
        transport.on(
            .post,
            "/v1/transactions/prepare-typed-data",
            json: #"{"typedData":\#(Self.typedData),"walletType":"READY"}"#
        )
        transport.on(.post, "/v1/transactions/execute-sponsored-transaction", json: #"{"transactionHash":"0x7ab"}"#)
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache())
        let wallet = try await manager.createWallet(externalUserId: "u9", pin: Secret("1357"))
        let strk = try Felt(hex: "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
        let amount = try TokenAmount(parsing: "2.5", decimals: 18)
        let hash = try await manager.executeSponsored(
            externalUserId: "u9",
            pin: Secret("1357"),
            calls: [ChippiCall(contractAddress: strk, entrypoint: "transfer", calldata: [0x1, 0x2, 0x0])],
            idempotencyKey: "transfer-1"
        )
        #expect(hash == Felt(0x7ab))
        let prepared = try body(try #require(transport.requests(matching: "prepare-typed-data").first))
        let calls = try #require(prepared["calls"] as? [[String: Any]])
        #expect(calls.first?["calldata"] as? [String] == ["0x1", "0x2", "0x0"])
        #expect(prepared["accountClassHash"] as? String == ChippiWalletManager.paymasterAccountClassHash.hexString)
        let executed = try body(try #require(transport.requests(matching: "execute-sponsored").first))
        #expect(executed["walletType"] as? String == "READY")
        #expect(executed["saveToDatabase"] as? Bool == true)
        let data = try JSONDecoder().decode(TypedData.self, from: Data(Self.typedData.utf8))
        #expect(
            try verifySignature(
                try #require(executed["userSignature"] as? [String: Any]),
                hash: try data.messageHash(account: wallet.address),
                publicKey: wallet.publicKey
            )
        )
        // Typed data for other calls than those asked for (another amount) is not signed, and nothing is executed.
        let executions = transport.requests(matching: "execute-sponsored").count
        await #expect(throws: ChippiPayError.self) {
            try await manager.executeSponsored(
                externalUserId: "u9",
                pin: Secret("1357"),
                calls: [ChippiCall(contractAddress: strk, entrypoint: "transfer", calldata: [0x1] + amount.u256)],
                idempotencyKey: "transfer-2"
            )
        }
        #expect(transport.requests(matching: "execute-sponsored").count == executions)
        // A wrong PIN opens nothing and sends nothing.
        let before = transport.requests.count
        await #expect(throws: ChippiPayError.self) {
            try await manager.executeSponsored(
                externalUserId: "u9",
                pin: Secret("0000"),
                calls: [],
                idempotencyKey: "x"
            )
        }
        #expect(transport.requests.count == before)
    }

    @Test func walletLookupsAndBalances() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/v1/chipi-wallets/by-user",
            times: 1,
            status: 404,
            json: #"{"message":"Wallet not found","code":"WALLET_NOT_FOUND"}"#
        )
        transport.on(
            .get,
            "/v1/chipi-wallets/by-user",
            json: #"{"id":"w1","externalUserId":"u1","publicKey":"0xabc","isDeployed":true}"#
        )
        transport.on(
            .get,
            "/v1/chipi-wallets/token-balance",
            json:
                #"{"chain":"STARKNET","chainToken":"STRK","decimals":18,"balance":"340282366920938463463374607431768211457"}"#
        )
        let client = makeClient(transport)
        #expect(try await client.wallet(externalUserId: "u1") == nil)
        #expect(try await client.wallet(externalUserId: "u1")?.id == "w1")
        let balance = try await client.tokenBalance(externalUserId: "u1")
        // 2^128 + 1 base units: beyond 128 bits, kept exactly.
        #expect(balance.amount?.u256.map(\.hexString) == ["0x1", "0x1"])
        let target = transport.requests.last?.request.path ?? ""
        #expect(target.contains("externalUserId=u1") && target.contains("chainToken=STRK"))
    }
}

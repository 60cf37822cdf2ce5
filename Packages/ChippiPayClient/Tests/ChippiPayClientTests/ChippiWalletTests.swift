import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import StarknetCrypto
import Testing

@testable import ChippiPayClient

/// Gasless wallets as ChipiPay creates them: the key generated here, the CHIPI address computed here, ChippiPay's
/// typed data checked and signed here; only the sealed key and signatures leave; the cache never holds the key in
/// clear.
struct ChippiWalletTests {
    /// What prepare-creation answers: an outside execution whose only call is ChipiPay's activation ping.
    static let creationTypedData = """
        {"types":{"StarknetDomain":[{"name":"name","type":"shortstring"},{"name":"version","type":"shortstring"},
          {"name":"chainId","type":"shortstring"},{"name":"revision","type":"shortstring"}],
          "OutsideExecution":[{"name":"Caller","type":"ContractAddress"},{"name":"Nonce","type":"felt"},
          {"name":"Execute After","type":"u128"},{"name":"Execute Before","type":"u128"},{"name":"Calls","type":"Call*"}],
          "Call":[{"name":"To","type":"ContractAddress"},{"name":"Selector","type":"selector"},
          {"name":"Calldata","type":"felt*"}]},
         "primaryType":"OutsideExecution",
         "domain":{"name":"Account.execute_from_outside","version":"2","chainId":"SN_MAIN","revision":"1"},
         "message":{"Caller":"0x414e595f43414c4c4552","Nonce":"0x2","Execute After":"0x1","Execute Before":"0x67b5c6e0",
          "Calls":[{"To":"0x425fe282af8a0fce7478e06d21295fe85e57447f4f5127f80a04ef2eb6291fd","Selector":"set_greeting",
          "Calldata":["0x1","0x48656c6c6f"]}]}}
        """
    /// What prepare-typed-data answers for a sponsored `transfer`.
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

    /// Cheap scrypt parameters: the tests check the sealing, not the cost.
    static let cheap = ScryptParameters(logN: 10, blockSize: 8, parallelism: 1)

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-wallet-\(UUID())")
    let cacheKey = SymmetricKey(size: .bits256)

    func cache() throws -> EncryptedCache {
        try EncryptedCache(
            fileURL: folder.appendingPathComponent("cache.sqlite"),
            keyProvider: StaticKeyProvider(key: cacheKey),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    /// Every file of the cache, byte for byte: unchanged means nothing was written.
    func cacheFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
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
            json: #"{"typedData":\#(Self.creationTypedData),"accountClassHash":"\#(Self.chipiClass)"}"#
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
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache(), sealParameters: Self.cheap)
        let pin = Secret("2468")
        await #expect(throws: ChippiPayError.self) {
            try await manager.createWallet(externalUserId: "user_123", pin: pin)
        }
        let pending = try #require(try manager.storedWallet(externalUserId: "user_123"))
        #expect(!pending.isCreated)

        let wallet = try await ChippiWalletManager(
            client: makeClient(transport),
            cache: try cache(),
            sealParameters: Self.cheap
        )
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
        let data = try JSONDecoder().decode(TypedData.self, from: Data(Self.creationTypedData.utf8))
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
        // The key leaves only sealed, in ChippiPay's `Salted__` format: not with the PIN, but with the passphrase
        // derived (scrypt) from the PIN and the device key, which never leaves the device.
        let sealed = try #require(created["encryptedPrivateKey"] as? String)
        #expect(sealed.hasPrefix("U2FsdGVkX1") && sealed == wallet.encryptedPrivateKey)
        let seal = try #require(wallet.seal)
        #expect(seal.version == 2 && seal.kdf == "scrypt" && seal.parameters == Self.cheap)
        let deviceKey = try manager.deviceKey(of: wallet, seal: seal)
        let encryptKey = try seal.encryptKey(pin: pin, deviceKey: deviceKey.symmetricKey)
        let key = try StarkPrivateKey(hex: try PassphraseSeal.open(sealed, passphrase: encryptKey))
        #expect(key.publicKey == wallet.publicKey)
        #expect((try? PassphraseSeal.open(sealed, passphrase: pin))?.revealed != key.secretHex.revealed)
        let keyHex = String(key.secretHex.revealed.dropFirst(2))
        let deviceHex = deviceKey.key.map { String(format: "%02x", $0) }.joined()
        for request in transport.requests {
            let text = request.bodyText + (request.request.path ?? "")
            #expect(!text.contains(keyHex) && !text.contains(encryptKey.revealed))
            #expect(!text.contains(deviceHex) && !text.contains(deviceKey.key.base64EncodedString()))
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
            json: #"{"typedData":\#(Self.creationTypedData),"accountClassHash":"\#(Self.chipiClass)"}"#
        )
        transport.on(.post, "/v1/chipi-wallets", exact: true, json: #"{"id":"w1","publicKey":"0x1"}"#)
        transport.on(
            .post,
            "/v1/transactions/prepare-typed-data",
            json: #"{"typedData":\#(Self.typedData),"walletType":"READY"}"#
        )
        transport.on(.post, "/v1/transactions/execute-sponsored-transaction", json: #"{"transactionHash":"0x7ab"}"#)
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache(), sealParameters: Self.cheap)
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
        let refused = await #expect(throws: ChippiPayError.self) {
            try await manager.executeSponsored(
                externalUserId: "u9",
                pin: Secret("1357"),
                calls: [ChippiCall(contractAddress: strk, entrypoint: "transfer", calldata: [0x1] + amount.u256)],
                idempotencyKey: "transfer-2"
            )
        }
        #expect(refused?.code == .unexpectedCalls)
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

    @Test func walletCreationRefusesToSignATransfer() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = ScriptedTransport()
        // A creation answer asking the new key to sign a transfer of the user's STRK.
        transport.on(
            .post,
            "/v1/chipi-wallets/prepare-creation",
            json: #"{"typedData":\#(Self.typedData),"accountClassHash":"\#(Self.chipiClass)"}"#
        )
        transport.on(.post, "/v1/chipi-wallets", exact: true, json: #"{"id":"w1","publicKey":"0x1"}"#)
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache(), sealParameters: Self.cheap)
        let before = try cacheFiles()
        let error = await #expect(throws: ChippiPayError.self) {
            try await manager.createWallet(externalUserId: "u7", pin: Secret("2468"))
        }
        #expect(error?.code == .unexpectedCalls)
        // Nothing was signed or sent after the prepared answer, and nothing was stored.
        #expect(transport.requests.count == 1 && transport.requests(matching: "prepare-creation").count == 1)
        #expect(try cacheFiles() == before)
        #expect(try manager.storedWallet(externalUserId: "u7") == nil)
    }

    @Test func creationTypedDataMayCarryOnlyTheActivation() throws {
        func typedData(_ json: String) throws -> TypedData {
            try JSONDecoder().decode(TypedData.self, from: Data(json.utf8))
        }
        let allowed = ChippiWalletManager.chipiActivationCalls
        // The activation ping, or no call at all, may be signed.
        try ChippiWalletManager.checkCreationCalls(in: try typedData(Self.creationTypedData), allowed: allowed)
        var empty = try typedData(Self.creationTypedData)
        empty.message["Calls"] = .array([])
        try ChippiWalletManager.checkCreationCalls(in: empty, allowed: allowed)
        // A transfer, an approval of the user's tokens, the activation entry point on another contract, several
        // calls with one bad one, or typed data that is not an outside execution: refused.
        let strk = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
        let ping = "0x425fe282af8a0fce7478e06d21295fe85e57447f4f5127f80a04ef2eb6291fd"
        func call(_ to: String, _ selector: String) -> TypedDataValue {
            .object(["To": .string(to), "Selector": .string(selector), "Calldata": .array([.string("0x1")])])
        }
        for calls in [
            [call(strk, "transfer")], [call(strk, "approve")], [call(strk, "set_greeting")],
            [call(ping, "set_greeting"), call(strk, "transfer")],
            [call(ping, StarknetKeccak.selector("transfer").hexString)],
        ] {
            var data = try typedData(Self.creationTypedData)
            data.message["Calls"] = .array(calls)
            let error = #expect(throws: ChippiPayError.self) {
                try ChippiWalletManager.checkCreationCalls(in: data, allowed: allowed)
            }
            #expect(error?.code == .unexpectedCalls)
        }
        var other = try typedData(Self.creationTypedData)
        other.primaryType = "Session"
        #expect(throws: ChippiPayError.self) { try ChippiWalletManager.checkCreationCalls(in: other, allowed: allowed) }
        other = try typedData(Self.creationTypedData)
        other.domain["name"] = .string("Account.session")
        #expect(throws: ChippiPayError.self) { try ChippiWalletManager.checkCreationCalls(in: other, allowed: allowed) }
        // An integrator whose ChippiPay answers another harmless activation adds it.
        var custom = try typedData(Self.creationTypedData)
        custom.message["Calls"] = .array([call("0x123", "ping")])
        #expect(throws: ChippiPayError.self) {
            try ChippiWalletManager.checkCreationCalls(in: custom, allowed: allowed)
        }
        try ChippiWalletManager.checkCreationCalls(
            in: custom,
            allowed: [AllowedCreationCall(contractAddress: 0x123, entrypoint: "ping")]
        )
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

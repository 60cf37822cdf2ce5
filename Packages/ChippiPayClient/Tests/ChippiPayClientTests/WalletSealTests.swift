import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import StarknetCrypto
import Testing
import _CryptoExtras

@testable import ChippiPayClient

/// The wallet seal (issue 23, item 7): the blob ChippiPay keeps cannot be opened by searching PINs without the
/// device key; the PIN and the device key open it; version-1 wallets still open and are re-sealed.
struct WalletSealTests {
    static let cheap = ScryptParameters(logN: 10, blockSize: 8, parallelism: 1)

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-seal-\(UUID())")
    let cacheKey = SymmetricKey(size: .bits256)

    func cache() throws -> EncryptedCache {
        try EncryptedCache(
            fileURL: folder.appendingPathComponent("cache.sqlite"),
            keyProvider: StaticKeyProvider(key: cacheKey),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    /// What anyone holding only the blob can do, at its cheapest: for each PIN, EVP_BytesToKey(MD5) gives the AES
    /// key (two MD5s: D1 = MD5(PIN ‖ salt), D2 = MD5(D1 ‖ PIN ‖ salt)), and the second ciphertext block, decrypted
    /// with the first as its IV, must be 16 hex digits of the `0x` + 64-hex-digit key (a wrong PIN passes with
    /// probability 2⁻⁶⁴). Returns the PINs that pass.
    static func pinsOpening(_ blob: String, _ pins: Range<Int>, digits: Int = 6) throws -> [Int] {
        let bytes = Array(try #require(Data(base64Encoded: blob)))
        try #require(bytes.count >= 48 && Array(bytes[0..<8]) == Array("Salted__".utf8))
        let iv = try AES._CBC.IV(ivBytes: bytes[16..<32])
        let second = bytes[32..<48]
        // D1 ‖ PIN ‖ salt, reused for every try; D1 is hashed from the PIN and the salt after it.
        var buffer = [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0x30, count: digits) + bytes[8..<16]
        var key = [UInt8](repeating: 0, count: 32)
        var found: [Int] = []
        for candidate in pins {
            var rest = candidate
            for index in stride(from: 16 + digits - 1, through: 16, by: -1) {
                buffer[index] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
            let d1 = buffer.withUnsafeBytes { Insecure.MD5.hash(data: UnsafeRawBufferPointer(rebasing: $0[16...])) }
            d1.withUnsafeBytes { digest in
                for index in 0..<16 {
                    buffer[index] = digest[index]
                    key[index] = digest[index]
                }
            }
            let d2 = buffer.withUnsafeBytes { Insecure.MD5.hash(data: $0) }
            d2.withUnsafeBytes { digest in for index in 0..<16 { key[16 + index] = digest[index] } }
            let plain = try AES._CBC.decrypt(second, using: SymmetricKey(data: key), iv: iv, noPadding: true)
            if plain.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                found.append(candidate)
            }
        }
        return found
    }

    /// Every 6-digit PIN, on two tasks.
    static func searchAllSixDigitPINs(_ blob: String) async throws -> [Int] {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for half in 0..<2 { group.addTask { try pinsOpening(blob, half * 500_000..<(half + 1) * 500_000) } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    func createdWallet(pin: Secret<String>, parameters: ScryptParameters = Self.cheap) async throws
        -> (manager: ChippiWalletManager, wallet: StoredChippiWallet, sent: String)
    {
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/v1/chipi-wallets/prepare-creation",
            json: #"{"typedData":\#(ChippiWalletTests.creationTypedData)}"#
        )
        transport.on(.post, "/v1/chipi-wallets", exact: true, json: #"{"id":"w1","publicKey":"0x1"}"#)
        let manager = ChippiWalletManager(client: makeClient(transport), cache: try cache(), sealParameters: parameters)
        let wallet = try await manager.createWallet(externalUserId: "u1", pin: pin)
        let created = try #require(transport.requests(matching: "chipi-wallets").last)
        let body = try #require(try JSONSerialization.jsonObject(with: created.body ?? Data()) as? [String: Any])
        return (manager, wallet, try #require(body["encryptedPrivateKey"] as? String))
    }

    @Test func aSixDigitPINSearchOverTheBlobSentToChippiPayOpensNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let pin = Secret("004711")
        let (_, wallet, sent) = try await createdWallet(pin: pin)
        #expect(sent.hasPrefix("U2FsdGVkX1") && wallet.seal != nil)
        // The search works: a version-1 blob sealed with the same PIN falls at once.
        let key = try StarkPrivateKey(hex: Secret("0x3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"))
        let legacy = try PassphraseSeal.seal(WalletKeySeal.paddedHex(key), passphrase: pin)
        #expect(try Self.pinsOpening(legacy, 0..<10_000) == [4711])
        // Over the blob ChippiPay receives, none of the 10⁶ PINs opens anything (about 5 s in a debug build).
        #expect(try await Self.searchAllSixDigitPINs(sent).isEmpty)
    }

    @Test func thePINAndTheDeviceKeyOpenTheWalletAndNeitherAlone() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let pin = Secret("135790")
        let (manager, wallet, sent) = try await createdWallet(pin: pin)
        let seal = try #require(wallet.seal)
        let deviceKey = try manager.deviceKey(of: wallet, seal: seal)
        #expect(deviceKey.key.count == 32)
        // The PIN and the device key open both copies, to the wallet's key.
        let (key, unlocked) = try manager.unlock(wallet, pin: pin)
        #expect(key.publicKey == wallet.publicKey && unlocked == wallet)
        let local = try seal.open(pin: pin, deviceKey: deviceKey.symmetricKey, address: wallet.address)
        let encryptKey = try seal.encryptKey(pin: pin, deviceKey: deviceKey.symmetricKey)
        #expect(encryptKey.revealed.count == 64)
        #expect(try PassphraseSeal.open(sent, passphrase: encryptKey).revealed == local.revealed)
        #expect(try StarkPrivateKey(hex: local).publicKey == wallet.publicKey)
        // A wrong PIN opens nothing, with the device key or without it.
        for wrong in ["135791", "000000", "1357900"] {
            #expect(throws: ChippiPayError.self) { try manager.unlock(wallet, pin: Secret(wrong)) }
            #expect(throws: ChippiPayError.self) {
                try seal.open(pin: Secret(wrong), deviceKey: deviceKey.symmetricKey, address: wallet.address)
            }
        }
        // The device key without the PIN, or the PIN with another device key, opens nothing either.
        let otherDevice = WalletDeviceKey.generate().symmetricKey
        #expect(throws: ChippiPayError.self) {
            try seal.open(pin: pin, deviceKey: otherDevice, address: wallet.address)
        }
        let otherKey = try seal.encryptKey(pin: pin, deviceKey: otherDevice)
        #expect((try? PassphraseSeal.open(sent, passphrase: otherKey))?.revealed != local.revealed)
        #expect((try? PassphraseSeal.open(sent, passphrase: pin))?.revealed != local.revealed)
        // The local copy is bound to its wallet's address.
        #expect(throws: ChippiPayError.self) {
            try seal.open(pin: pin, deviceKey: deviceKey.symmetricKey, address: wallet.publicKey)
        }
        // Without its device key, the wallet does not open on this device.
        try manager.cache.removeValue(forKey: ChippiWalletManager.deviceKeySlot("u1", seal: seal))
        let error = #expect(throws: ChippiPayError.self) { try manager.unlock(wallet, pin: pin) }
        #expect(error?.code == .storage)
    }

    /// A wallet record as version 1 stored it (no `seal`; the key sealed with the PIN).
    struct VersionOneRecord: Codable {
        var walletID: String?
        var externalUserId: String
        var address: Felt
        var publicKey: Felt
        var walletType: String
        var classHash: Felt
        var encryptedPrivateKey: String
        var isCreated: Bool
    }

    @Test func aVersionOneWalletStillOpensAndIsResealedOnItsNextUnlock() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try StarkPrivateKey(hex: Secret("0x3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"))
        let pin = Secret("2468")
        let address = ContractAddress.compute(
            salt: key.publicKey,
            classHash: ChippiWalletManager.chipiAccountClassHash,
            constructorCalldata: [key.publicKey]
        )
        let old = VersionOneRecord(
            walletID: "w-old",
            externalUserId: "u-old",
            address: address,
            publicKey: key.publicKey,
            walletType: "CHIPI",
            classHash: ChippiWalletManager.chipiAccountClassHash,
            encryptedPrivateKey: try PassphraseSeal.seal(WalletKeySeal.paddedHex(key), passphrase: pin),
            isCreated: true
        )
        let cache = try cache()
        try cache.setValue(old, forKey: ChippiWalletManager.key("u-old"))
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/v1/transactions/prepare-typed-data",
            json: #"{"typedData":\#(ChippiWalletTests.typedData)}"#
        )
        transport.on(.post, "/v1/transactions/execute-sponsored-transaction", json: #"{"transactionHash":"0x7ab"}"#)
        let manager = ChippiWalletManager(client: makeClient(transport), cache: cache, sealParameters: Self.cheap)
        let stored = try #require(try manager.storedWallet(externalUserId: "u-old"))
        #expect(stored.seal == nil && stored.isCreated)

        // A wrong PIN opens nothing and changes nothing.
        #expect(throws: ChippiPayError.self) { try manager.unlock(stored, pin: Secret("1357")) }
        #expect(try manager.storedWallet(externalUserId: "u-old") == stored)

        // The PIN opens it and it signs, as before.
        let strk = try Felt(hex: "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
        let calls = [ChippiCall(contractAddress: strk, entrypoint: "transfer", calldata: [0x1, 0x2, 0x0])]
        let hash = try await manager.executeSponsored(
            externalUserId: "u-old",
            pin: pin,
            calls: calls,
            idempotencyKey: "t1"
        )
        #expect(hash == Felt(0x7ab))
        let executed = try #require(transport.requests(matching: "execute-sponsored").first)
        let body = try #require(try JSONSerialization.jsonObject(with: executed.body ?? Data()) as? [String: Any])
        let signature = try #require(body["userSignature"] as? [String: Any])
        let data = try JSONDecoder().decode(TypedData.self, from: Data(ChippiWalletTests.typedData.utf8))
        let rText = try #require(signature["r"] as? String)
        let sText = try #require(signature["s"] as? String)
        let r = try Felt(try #require(UInt256(rText)))
        let s = try Felt(try #require(UInt256(sText)))
        #expect(
            StarkECDSA.verify(
                publicKey: key.publicKey,
                hash: try data.messageHash(account: address),
                signature: StarkSignature(r: r, s: s)
            )
        )

        // …and it is now sealed under version 2: the PIN alone no longer opens what the device holds.
        let resealed = try #require(try manager.storedWallet(externalUserId: "u-old"))
        let seal = try #require(resealed.seal)
        #expect(seal.version == WalletKeySeal.currentVersion && seal.parameters == Self.cheap)
        #expect(resealed.walletID == "w-old" && resealed.address == address && resealed.isCreated)
        #expect(resealed.encryptedPrivateKey != old.encryptedPrivateKey)
        #expect(try Self.pinsOpening(resealed.encryptedPrivateKey, 0..<10_000, digits: 4).isEmpty)
        #expect(try manager.unlock(resealed, pin: pin).key.publicKey == key.publicKey)
        _ = try await manager.executeSponsored(externalUserId: "u-old", pin: pin, calls: calls, idempotencyKey: "t2")
        #expect(try manager.storedWallet(externalUserId: "u-old") == resealed)
    }

    @Test func parametersAreStoredCheckedAndThePhoneDefaultWorks() throws {
        let key = StarkPrivateKey.generate()
        let deviceKey = WalletDeviceKey.generate().symmetricKey
        let pin = Secret("918273")
        let (seal, sent) = try WalletKeySeal.seal(
            key,
            pin: pin,
            deviceKey: deviceKey,
            address: 0x1234,
            parameters: .phone
        )
        #expect(seal.parameters == ScryptParameters(logN: 15, blockSize: 8, parallelism: 1))
        #expect(seal.parameters.memoryBytes == 32 << 20 && seal.salt.count == 16)
        #expect(
            try seal.open(pin: pin, deviceKey: deviceKey, address: 0x1234).revealed
                == WalletKeySeal.paddedHex(key).revealed
        )
        #expect(
            try PassphraseSeal.open(sent, passphrase: try seal.encryptKey(pin: pin, deviceKey: deviceKey)).revealed
                == WalletKeySeal.paddedHex(key).revealed
        )
        // The parameters travel with the record (JSON), so they can change for later wallets.
        let decoded = try JSONDecoder().decode(WalletKeySeal.self, from: try JSONEncoder().encode(seal))
        #expect(decoded == seal)
        // A record asking for absurd parameters, an unknown version, or an empty PIN is refused, not run.
        for bad in [
            ScryptParameters(logN: 30, blockSize: 8, parallelism: 1),
            ScryptParameters(logN: 20, blockSize: 32, parallelism: 16),
            ScryptParameters(logN: 0, blockSize: 8, parallelism: 1),
            ScryptParameters(logN: 10, blockSize: Int.max, parallelism: 2),
        ] {
            var hostile = seal
            hostile.parameters = bad
            #expect(throws: ChippiPayError.self) { try hostile.open(pin: pin, deviceKey: deviceKey, address: 0x1234) }
        }
        var future = seal
        future.version = 3
        #expect(throws: ChippiPayError.self) { try future.open(pin: pin, deviceKey: deviceKey, address: 0x1234) }
        #expect(throws: ChippiPayError.self) {
            try WalletKeySeal.seal(key, pin: Secret(""), deviceKey: deviceKey, address: 0x1234, parameters: Self.cheap)
        }
    }
}

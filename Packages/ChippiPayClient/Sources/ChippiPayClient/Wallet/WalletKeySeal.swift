import Crypto
import Foundation
import OpenCatCore
import StarknetCrypto
import _CryptoExtras

/// scrypt's cost parameters (RFC 7914): N = 2^`logN` (CPU and memory), r = `blockSize`, p = `parallelism`. One
/// derivation takes 128 · N · r · p bytes of memory.
public struct ScryptParameters: Sendable, Hashable, Codable {
    /// log₂ N.
    public var logN: Int
    /// r.
    public var blockSize: Int
    /// p.
    public var parallelism: Int

    /// Parameters. A seal accepts N from 2^1 to 2^20, r ≤ 32, p ≤ 16 and at most 256 MiB.
    public init(logN: Int, blockSize: Int, parallelism: Int) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// N = 2^15, r = 8, p = 1: 32 MiB and on the order of 0.1 s per derivation on a current phone (RFC 7914's
    /// interactive-login figure is N = 2^14). The default for new wallets.
    public static let phone = ScryptParameters(logN: 15, blockSize: 8, parallelism: 1)

    /// The memory one derivation takes (128 · N · r · p bytes), or `nil` beyond `Int`.
    public var memoryBytes: Int? {
        guard (0..<48).contains(logN), blockSize > 0, parallelism > 0 else { return nil }
        let (perBlock, overflow) = (128 << logN).multipliedReportingOverflow(by: blockSize)
        let (total, overflow2) = perBlock.multipliedReportingOverflow(by: parallelism)
        return overflow || overflow2 ? nil : total
    }

    /// The parameters a wallet may use: N from 2^1 to 2^20, r ≤ 32, p ≤ 16 and at most 256 MiB, so a damaged or
    /// hostile record cannot make an unlock allocate gigabytes.
    func checked() throws(ChippiPayError) -> ScryptParameters {
        guard (1...20).contains(logN), (1...32).contains(blockSize), (1...16).contains(parallelism),
            let bytes = memoryBytes, bytes <= 256 << 20
        else { throw ChippiPayError(.invalidInput, "the wallet's scrypt parameters are out of bounds") }
        return self
    }
}

/// How a wallet's key is sealed since seal version 2, stored with the wallet (``StoredChippiWallet/seal``) so the
/// parameters can change later. Nothing in it is in clear but the salt and the parameters, which are not secret.
///
/// A 256-bit key is derived with scrypt from the user's PIN **and** a random 256-bit device key that is generated
/// with the wallet and kept only in this device's encrypted cache (never sent): `scrypt(deviceKey ‖ PIN, salt)`,
/// then split with HKDF-SHA256 into
/// - the passphrase of the CryptoJS/OpenSSL `Salted__` blob ChippiPay stores as the wallet's `encryptedPrivateKey`
///   (64 hex digits instead of the PIN, so searching PINs over that blob finds nothing), and
/// - an AES-256-GCM key for the device's own copy (``localSealedKey``), bound to the account address, so a wrong
///   PIN or a damaged record is detected, not decrypted into garbage.
///
/// See the package README ("What the wallet seal protects") for what this does and does not protect against.
public struct WalletKeySeal: Sendable, Hashable, Codable {
    /// The seal version this package writes.
    public static let currentVersion = 2
    /// The key derivation function of version 2.
    public static let scryptKDF = "scrypt"

    /// The seal version (2).
    public var version: Int
    /// The key derivation function (`scrypt`).
    public var kdf: String
    /// scrypt's parameters for this wallet.
    public var parameters: ScryptParameters
    /// The scrypt salt (16 random bytes).
    public var salt: Data
    /// The private key (`0x` and 64 hex digits) sealed with AES-256-GCM (nonce ‖ ciphertext ‖ tag).
    public var localSealedKey: Data

    static let remoteInfo = Data("opencat.chippipay.wallet-seal.v2.encrypt-key".utf8)
    static let localInfo = Data("opencat.chippipay.wallet-seal.v2.local".utf8)

    /// Seals `key` for the wallet at `address`: the seal to store and the `Salted__` blob to send to ChippiPay.
    static func seal(
        _ key: StarkPrivateKey,
        pin: Secret<String>,
        deviceKey: SymmetricKey,
        address: Felt,
        parameters: ScryptParameters
    ) throws(ChippiPayError) -> (seal: WalletKeySeal, encryptedPrivateKey: String) {
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let (passphrase, localKey) = try derive(pin: pin, deviceKey: deviceKey, salt: salt, parameters: parameters)
        let plaintext = paddedHex(key)
        let remote = try PassphraseSeal.seal(plaintext, passphrase: passphrase)
        let local: Data
        do {
            let box = try AES.GCM.seal(
                Data(plaintext.revealed.utf8),
                using: localKey,
                authenticating: associatedData(address)
            )
            guard let combined = box.combined else { throw ChippiPayError(.invalidInput, "no combined form") }
            local = combined
        } catch {
            throw ChippiPayError(.invalidInput, "the key could not be sealed")
        }
        let seal = WalletKeySeal(
            version: currentVersion,
            kdf: scryptKDF,
            parameters: parameters,
            salt: salt,
            localSealedKey: local
        )
        return (seal, remote)
    }

    /// Opens the device's copy with the PIN and the device key.
    func open(pin: Secret<String>, deviceKey: SymmetricKey, address: Felt) throws(ChippiPayError) -> Secret<String> {
        let (_, localKey) = try derive(pin: pin, deviceKey: deviceKey)
        guard let box = try? AES.GCM.SealedBox(combined: localSealedKey),
            let plaintext = try? AES.GCM.open(box, using: localKey, authenticating: Self.associatedData(address)),
            let text = String(data: plaintext, encoding: .utf8)
        else { throw ChippiPayError(.invalidInput, "the PIN does not open the wallet's key") }
        return Secret(text)
    }

    /// The passphrase (ChipiPay's `encryptKey`) of the `Salted__` blob sent to ChippiPay: 64 hex digits.
    func encryptKey(pin: Secret<String>, deviceKey: SymmetricKey) throws(ChippiPayError) -> Secret<String> {
        try derive(pin: pin, deviceKey: deviceKey).encryptKey
    }

    func derive(pin: Secret<String>, deviceKey: SymmetricKey) throws(ChippiPayError)
        -> (encryptKey: Secret<String>, localKey: SymmetricKey)
    {
        guard version == Self.currentVersion, kdf == Self.scryptKDF else {
            throw ChippiPayError(.invalidInput, "the wallet is sealed with an unknown seal version")
        }
        return try Self.derive(pin: pin, deviceKey: deviceKey, salt: salt, parameters: parameters)
    }

    static func derive(pin: Secret<String>, deviceKey: SymmetricKey, salt: Data, parameters: ScryptParameters)
        throws(ChippiPayError) -> (encryptKey: Secret<String>, localKey: SymmetricKey)
    {
        let parameters = try parameters.checked()
        guard !pin.revealed.isEmpty else { throw ChippiPayError(.invalidInput, "a PIN is required") }
        guard deviceKey.bitCount >= 256, salt.count >= 16 else {
            throw ChippiPayError(.invalidInput, "the wallet's device key or salt is too short")
        }
        // The device key has a fixed length, so `deviceKey ‖ PIN` is unambiguous.
        var password = deviceKey.withUnsafeBytes { Data($0) }
        password.append(contentsOf: Array(pin.revealed.utf8))
        let master: SymmetricKey
        do {
            master = try KDF.Scrypt.deriveKey(
                from: password,
                salt: salt,
                outputByteCount: 32,
                rounds: 1 << parameters.logN,
                blockSize: parameters.blockSize,
                parallelism: parameters.parallelism
            )
        } catch {
            throw ChippiPayError(.invalidInput, "the wallet's key could not be derived")
        }
        password.resetBytes(in: 0..<password.count)
        let remote = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: remoteInfo, outputByteCount: 32)
        let local = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: localInfo, outputByteCount: 32)
        let hex = remote.withUnsafeBytes { bytes in Fingerprint.lowercaseHex(bytes) }
        return (Secret(hex), local)
    }

    static func associatedData(_ address: Felt) -> Data {
        Data("opencat.chippipay.wallet-seal.v2|\(address.hexString)".utf8)
    }

    /// `0x` and 64 hex digits, as ChipiPay's SDK seals keys.
    static func paddedHex(_ key: StarkPrivateKey) -> Secret<String> {
        let hex = key.secretHex.revealed
        let digits = hex.hasPrefix("0x") ? String(hex.dropFirst(2)) : hex
        return Secret("0x" + String(repeating: "0", count: max(0, 64 - digits.count)) + digits)
    }
}

/// The random device key of a version-2 wallet, kept in the device's encrypted cache beside the wallet record and
/// never sent anywhere.
struct WalletDeviceKey: Codable {
    var key: Data

    static func generate() -> WalletDeviceKey {
        WalletDeviceKey(key: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    var symmetricKey: SymmetricKey { SymmetricKey(data: key) }
}

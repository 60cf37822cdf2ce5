import Crypto
import Foundation
public import OpenCatCore
import _CryptoExtras

/// The sealing ChipiPay uses for a wallet's private key: CryptoJS `AES.encrypt(text, passphrase)`, i.e. OpenSSL's
/// `Salted__` format — EVP_BytesToKey with MD5 (one iteration) over the passphrase and an 8-byte salt gives a
/// 256-bit key and an IV, then AES-256-CBC with PKCS#7 padding, base64. (MD5 here is the format's key derivation,
/// not a choice.)
///
/// The format has no work factor and no MAC, and a sealed Stark key always starts with `0x` and hex digits, so one
/// AES block tells whether a guessed passphrase is right: with a PIN as the passphrase, every 6-digit PIN is tried
/// in seconds. It is therefore used only where its format is required — the `encryptedPrivateKey` field of
/// ChippiPay's API, sealed with a 256-bit passphrase ``WalletKeySeal`` derives from the PIN and a device key — and
/// to open version-1 wallets sealed with the PIN itself.
public enum PassphraseSeal {
    static let magic = Array("Salted__".utf8)

    /// Seals `plaintext` with `passphrase`; `salt` is random unless given (8 bytes).
    public static func seal(_ plaintext: Secret<String>, passphrase: Secret<String>, salt: [UInt8]? = nil)
        throws(ChippiPayError) -> String
    {
        let salt = salt ?? (0..<8).map { _ in UInt8.random(in: 0...255) }
        guard salt.count == 8, !passphrase.revealed.isEmpty else {
            throw ChippiPayError(.invalidInput, "a passphrase is required")
        }
        let (key, iv) = derive(passphrase: Array(passphrase.revealed.utf8), salt: salt)
        do {
            let ciphertext = try AES._CBC.encrypt(
                Array(plaintext.revealed.utf8),
                using: SymmetricKey(data: key),
                iv: try AES._CBC.IV(ivBytes: iv)
            )
            return Data(magic + salt + Array(ciphertext)).base64EncodedString()
        } catch {
            throw ChippiPayError(.invalidInput, "the key could not be sealed")
        }
    }

    /// Opens a sealed text; a wrong passphrase or damaged text is an error that reveals nothing.
    public static func open(_ sealed: String, passphrase: Secret<String>) throws(ChippiPayError) -> Secret<String> {
        guard let data = Data(base64Encoded: sealed), data.count >= 32, data.count % 16 == 0,
            Array(data.prefix(8)) == magic
        else { throw ChippiPayError(.invalidInput, "the sealed key is not in the Salted__ format") }
        let bytes = Array(data)
        let (key, iv) = derive(passphrase: Array(passphrase.revealed.utf8), salt: Array(bytes[8..<16]))
        guard
            let plaintext = try? AES._CBC.decrypt(
                bytes[16...],
                using: SymmetricKey(data: key),
                iv: try AES._CBC.IV(ivBytes: iv)
            ),
            !plaintext.isEmpty, let text = String(data: plaintext, encoding: .utf8)
        else { throw ChippiPayError(.invalidInput, "the passphrase does not open the sealed key") }
        return Secret(text)
    }

    /// EVP_BytesToKey(MD5, 1 iteration): D_i = MD5(D_{i−1} ‖ passphrase ‖ salt) until 48 bytes.
    static func derive(passphrase: [UInt8], salt: [UInt8]) -> (key: [UInt8], iv: [UInt8]) {
        var material: [UInt8] = []
        var previous: [UInt8] = []
        while material.count < 48 {
            previous = Array(Insecure.MD5.hash(data: previous + passphrase + salt))
            material += previous
        }
        return (Array(material[0..<32]), Array(material[32..<48]))
    }
}

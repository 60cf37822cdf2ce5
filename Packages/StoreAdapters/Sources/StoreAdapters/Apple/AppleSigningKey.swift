public import Crypto
import Foundation
public import OpenCatCore

/// Loads the App Store Connect key that signs StoreKit requests (an In-App Purchase key, the `.p8` file App Store
/// Connect lets you download once): PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) of a P-256 key. SEC1 PEM
/// (`BEGIN EC PRIVATE KEY`) is accepted too. The same parsing as ``AppleStoreAdapter/APICredentials``.
public enum AppleSigningKey {
    /// The largest key file read: a `.p8` is about 250 bytes; anything near this is not one.
    public static let maximumFileBytes = 16 * 1024

    /// The key in PEM text.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (store reason `invalidPrivateKey`) if the text is not a
    ///   P-256 private key. The message never contains the text.
    public static func privateKey(pem: Secret<String>) throws(StoreAdapterError) -> P256.Signing.PrivateKey {
        let text = pem.revealed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: text) else {
            throw StoreAdapterError(
                .misconfigured,
                store: .apple,
                "the signing key is not a P-256 private key in PEM (an App Store Connect .p8 file)",
                storeReason: "invalidPrivateKey"
            )
        }
        return key
    }

    /// The key in a PEM file (the `.p8` as downloaded).
    /// - Throws: ``StoreAdapterError`` `misconfigured`: store reason `keyFileUnreadable` when the file cannot be read
    ///   (or is larger than ``maximumFileBytes``), `invalidPrivateKey` when it holds no P-256 key.
    public static func privateKey(pemFile path: String) throws(StoreAdapterError) -> P256.Signing.PrivateKey {
        guard let data = FileManager.default.contents(atPath: path), data.count <= maximumFileBytes else {
            throw StoreAdapterError(
                .misconfigured,
                store: .apple,
                "cannot read the signing key file \(path)",
                storeReason: "keyFileUnreadable"
            )
        }
        return try privateKey(pem: Secret(String(decoding: data, as: UTF8.self)))
    }

    /// Signs `data` (ECDSA P-256 with SHA-256), mapping the library's untyped failure to a typed one.
    static func signature(
        for data: Data,
        with key: P256.Signing.PrivateKey
    ) throws(StoreAdapterError) -> P256.Signing.ECDSASignature {
        do {
            return try key.signature(for: data)
        } catch {
            throw signingFailed()
        }
    }

    static func signingFailed() -> StoreAdapterError {
        StoreAdapterError(.misconfigured, store: .apple, "signing with the key failed", storeReason: "signingFailed")
    }
}

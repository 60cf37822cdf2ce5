public import Crypto
public import Foundation
import OpenCatCore

/// Seals users' keys: AES-256-GCM under a per-user data key derived with HKDF-SHA256 from a master key, the user id
/// as associated data (a row copied to another user does not open). The ciphertext says which master key sealed it:
/// `v1:<keyId>:<base64url(nonce‖ciphertext‖tag)>`.
///
/// Rotation: add a new master key as ``primaryKeyId``; rows sealed under an older one still open and are re-sealed
/// under the primary one by ``UserKeyVault/rewrap(batchSize:)``.
public struct LLMKeyCipher: Sendable {
    /// Master keys by id (each 32 bytes).
    let masterKeys: [String: SymmetricKey]
    /// The key new rows are sealed with.
    public let primaryKeyId: String

    /// Creates a cipher.
    /// - Throws: ``LLMKeyError`` `.misconfigured` when the primary key is missing, a key is not 32 bytes, or an id
    ///   contains `:`.
    public init(masterKeys: [String: SymmetricKey], primaryKeyId: String) throws(LLMKeyError) {
        guard masterKeys[primaryKeyId] != nil else {
            throw LLMKeyError(.misconfigured, "the primary master key \(primaryKeyId) is not among the keys")
        }
        for (id, key) in masterKeys {
            guard key.bitCount == 256 else { throw LLMKeyError(.misconfigured, "master key \(id) is not 32 bytes") }
            guard !id.isEmpty, !id.contains(":") else {
                throw LLMKeyError(.misconfigured, "a master key id is empty or has ':'")
            }
        }
        self.masterKeys = masterKeys
        self.primaryKeyId = primaryKeyId
    }

    /// Reads master keys from text: `id=base64` pairs separated by commas, the first the primary (what
    /// `OPENCAT_LLM_MASTER_KEY` holds), or a single base64 key (id `k1`).
    public static func parse(_ text: String) throws(LLMKeyError) -> LLMKeyCipher {
        var keys: [String: SymmetricKey] = [:]
        var primary: String?
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            let (id, encoded) =
                pieces.count == 2 && Data(base64Encoded: part) == nil ? (pieces[0], pieces[1]) : ("k1", part)
            guard let bytes = Data(base64Encoded: encoded), bytes.count == 32 else {
                throw LLMKeyError(.misconfigured, "a master key is not base64 of 32 bytes")
            }
            guard keys[id] == nil else { throw LLMKeyError(.misconfigured, "master key id \(id) is given twice") }
            keys[id] = SymmetricKey(data: bytes)
            primary = primary ?? id
        }
        guard let primary else { throw LLMKeyError(.misconfigured, "no master key") }
        return try LLMKeyCipher(masterKeys: keys, primaryKeyId: primary)
    }

    /// The master keys from an environment: `OPENCAT_LLM_MASTER_KEY` (the keys themselves, as ``parse(_:)`` reads
    /// them), else the file `OPENCAT_LLM_MASTER_KEY_FILE` names (same format; keep it readable by the backend only).
    /// - Throws: ``LLMKeyError`` `.misconfigured` when neither is set, the file cannot be read, or a key is invalid.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(LLMKeyError)
        -> LLMKeyCipher
    {
        if let text = environment["OPENCAT_LLM_MASTER_KEY"], !text.isEmpty { return try parse(text) }
        if let path = environment["OPENCAT_LLM_MASTER_KEY_FILE"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw LLMKeyError(.misconfigured, "the master key file cannot be read")
            }
            return try parse(String(decoding: data, as: UTF8.self))
        }
        throw LLMKeyError(.misconfigured, "set OPENCAT_LLM_MASTER_KEY or OPENCAT_LLM_MASTER_KEY_FILE")
    }

    /// The id of the master key a ciphertext names (nil when it is not `v1:<id>:…`).
    public static func keyId(of ciphertext: String) -> String? {
        let parts = ciphertext.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "v1" ? String(parts[1]) : nil
    }

    /// Seals plaintext for a user under the primary key.
    public func seal(_ plaintext: Data, userId: String) throws(LLMKeyError) -> String {
        let key = dataKey(masterKeys[primaryKeyId]!, userId: userId)
        do {
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: Data(userId.utf8))
            guard let combined = box.combined else { throw LLMKeyError(.crypto, "AES-GCM gave no combined form") }
            return "v1:\(primaryKeyId):\(Base64URL.encode(combined))"
        } catch let error as LLMKeyError {
            throw error
        } catch {
            throw LLMKeyError(.crypto, "the keys could not be sealed")
        }
    }

    /// Opens a user's ciphertext.
    /// - Throws: ``LLMKeyError`` `.malformedCiphertext` (not `v1:…`, truncated), `.unknownMasterKey` (sealed under a
    ///   key this cipher does not have), `.decryptionFailed` (a wrong key, another user's row, altered bytes).
    public func open(_ ciphertext: String, userId: String) throws(LLMKeyError) -> Data {
        let parts = ciphertext.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1" else {
            throw LLMKeyError(.malformedCiphertext, "not a v1 ciphertext")
        }
        guard let master = masterKeys[String(parts[1])] else {
            throw LLMKeyError(.unknownMasterKey, "sealed under master key \(parts[1]), which is not configured")
        }
        // 12-byte nonce + 16-byte tag at the least.
        guard let combined = Base64URL.decode(parts[2]), combined.count >= 28 else {
            throw LLMKeyError(.malformedCiphertext, "the ciphertext is truncated or not base64url")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            return try AES.GCM.open(box, using: dataKey(master, userId: userId), authenticating: Data(userId.utf8))
        } catch {
            throw LLMKeyError(.decryptionFailed, "the keys do not open for this user with master key \(parts[1])")
        }
    }

    /// The per-user data key: HKDF-SHA256(master, salt: "opencat-llm-keys", info: "v1|" + userId).
    func dataKey(_ master: SymmetricKey, userId: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master,
            salt: Data("opencat-llm-keys".utf8),
            info: Data("v1|\(userId)".utf8),
            outputByteCount: 32
        )
    }
}

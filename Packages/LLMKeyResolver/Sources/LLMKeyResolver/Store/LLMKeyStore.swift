import Foundation
import OpenCatCore

/// Where users' keys live, sealed: one row per user holding `v1:<keyId>:<…>` of the JSON `{provider: key}`.
///
/// A store keeps ciphertext only; ``UserKeyVault`` seals and opens. Implementations: ``SQLiteLLMKeyStore`` (one
/// instance) and `PostgresLLMKeyStore` (several instances sharing a database).
public protocol LLMKeyStore: Sendable {
    /// The sealed row of a user, if any.
    func ciphertext(for userId: String) async throws(LLMKeyError) -> String?
    /// Writes a user's row (nil: deletes it), only if it still holds `expected` (nil: no row): compare-and-set, so
    /// concurrent writers and a re-wrap never lose an update. Returns whether it wrote.
    func replace(userId: String, expected: String?, with ciphertext: String?) async throws(LLMKeyError) -> Bool
    /// Up to `limit` rows sealed under another master key than `keyId`, after `userId` in user order.
    func rows(notSealedWith keyId: String, after userId: String?, limit: Int) async throws(LLMKeyError)
        -> [(userId: String, ciphertext: String)]
}

/// Seals and opens users' keys over a store.
public struct UserKeyVault: Sendable {
    /// Where the sealed rows live.
    public let store: any LLMKeyStore
    /// Seals and opens rows (AES-256-GCM, a key per user derived by HKDF from the master key).
    public let cipher: LLMKeyCipher

    /// A vault over a store and a cipher.
    public init(store: any LLMKeyStore, cipher: LLMKeyCipher) {
        self.store = store
        self.cipher = cipher
    }

    /// A user's stored keys (empty when none).
    /// - Throws: ``LLMKeyError`` when the row does not open (it is left as it is).
    public func keys(for userId: String) async throws(LLMKeyError) -> [LLMProvider: Secret<String>] {
        guard let sealed = try await store.ciphertext(for: userId) else { return [:] }
        return try Self.decode(try cipher.open(sealed, userId: userId))
    }

    /// Applies a partial update: a provider mapped to a key sets it, to nil deletes it, absent is unchanged.
    /// Validates formats first; retries on a concurrent write.
    /// - Returns: the keys after the update.
    @discardableResult
    public func update(userId: String, _ changes: [LLMProvider: String?]) async throws(LLMKeyError)
        -> [LLMProvider: Secret<String>]
    {
        for case (let provider, let key?) in changes { try KeyFormat.validate(key, for: provider) }
        for _ in 0..<16 {
            let current = try await store.ciphertext(for: userId)
            var keys =
                try current.map { sealed throws(LLMKeyError) in try Self.decode(try cipher.open(sealed, userId: userId))
                } ?? [:]
            for (provider, key) in changes { keys[provider] = key.map { Secret($0) } }
            let next = keys.isEmpty ? nil : try cipher.seal(Self.encode(keys), userId: userId)
            if try await store.replace(userId: userId, expected: current, with: next) { return keys }
        }
        throw LLMKeyError(.storage, "the keys kept changing under a concurrent writer")
    }

    /// Re-seals up to `batchSize` rows sealed under an older master key with the primary one (no plaintext is
    /// logged or returned). Rows that do not open are skipped and left as they are.
    /// - Returns: how many rows were re-sealed and how many could not be opened.
    public func rewrap(batchSize: Int = 100) async throws(LLMKeyError) -> (rewrapped: Int, failed: Int) {
        var rewrapped = 0
        var failed = 0
        var after: String?
        while true {
            let rows = try await store.rows(notSealedWith: cipher.primaryKeyId, after: after, limit: batchSize)
            guard !rows.isEmpty else { break }
            for (userId, sealed) in rows {
                after = userId
                guard let plaintext = try? cipher.open(sealed, userId: userId) else {
                    failed += 1
                    continue
                }
                if try await store.replace(
                    userId: userId,
                    expected: sealed,
                    with: try cipher.seal(plaintext, userId: userId)
                ) {
                    rewrapped += 1
                }
            }
        }
        return (rewrapped, failed)
    }

    static func decode(_ data: Data) throws(LLMKeyError) -> [LLMProvider: Secret<String>] {
        guard let object = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw LLMKeyError(.malformedCiphertext, "the opened keys are not a JSON object of strings")
        }
        return Dictionary(uniqueKeysWithValues: object.map { (LLMProvider(rawValue: $0.key), Secret($0.value)) })
    }

    static func encode(_ keys: [LLMProvider: Secret<String>]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return
            (try? encoder.encode(Dictionary(uniqueKeysWithValues: keys.map { ($0.key.rawValue, $0.value.revealed) })))
            ?? Data("{}".utf8)
    }
}

/// The providers' key formats, and the masked form shown back to users.
public enum KeyFormat {
    /// Checks a key's format: OpenAI `sk-` or `sk-proj-`, Anthropic `sk-ant-api03-`, Google `AIza` + 35 characters;
    /// other providers: printable ASCII, 8 to 512 characters.
    /// - Throws: ``LLMKeyError`` `.invalidKeyFormat` naming the provider, never the key.
    public static func validate(_ key: String, for provider: LLMProvider) throws(LLMKeyError) {
        let bytes = Array(key.utf8)
        let printable = bytes.allSatisfy { (0x21...0x7E).contains($0) }
        let safe = bytes.allSatisfy {
            $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                || (0x61...0x7A).contains($0)
        }
        let valid: Bool
        switch provider {
        case .openai:
            // `sk-` or `sk-proj-`, and never another provider's `sk-ant-` key pasted in the wrong field.
            valid =
                safe && !key.hasPrefix("sk-ant-") && bytes.count <= 256
                && (key.hasPrefix("sk-proj-") ? bytes.count >= 28 : key.hasPrefix("sk-") && bytes.count >= 20)
        case .anthropic: valid = safe && key.hasPrefix("sk-ant-api03-") && bytes.count >= 40 && bytes.count <= 256
        case .google: valid = safe && key.hasPrefix("AIza") && bytes.count == 39
        default: valid = printable && (8...512).contains(bytes.count)
        }
        guard valid else {
            throw LLMKeyError(
                .invalidKeyFormat,
                "the \(provider) key is not in \(provider)'s format",
                provider: provider
            )
        }
    }

    /// The masked form: `sk-...xyz123` (the prefix up to its first `-`, three dots, the last six characters).
    public static func mask(_ key: Secret<String>) -> String {
        let text = key.revealed
        // Only the providers' own public prefixes are shown; anything else shows no prefix at all.
        let prefix = ["sk-", "AIza"].first { text.hasPrefix($0) } ?? ""
        guard text.count > prefix.count + 6 else { return prefix + "..." }
        return prefix + "..." + String(text.suffix(6))
    }
}

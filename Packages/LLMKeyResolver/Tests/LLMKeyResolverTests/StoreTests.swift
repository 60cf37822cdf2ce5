import Crypto
import Foundation
import LLMKeyResolver
import LLMKeyResolverPostgres
import OpenCatCore
import PostgresNIO
import Testing

/// Which store a shared test runs on.
enum StoreKind: String, CaseIterable, Sendable {
    case sqlite, postgres
}

/// One store of a kind for one test: a fresh SQLite file, or a fresh table in the test PostgreSQL server.
struct StoreUnderTest: Sendable {
    let store: any LLMKeyStore
    /// Every byte the store holds (the SQLite file and its WAL; the PostgreSQL table's rows).
    let dump: @Sendable () async throws -> Data

    static func make(_ kind: StoreKind) async throws -> StoreUnderTest {
        switch kind {
        case .sqlite:
            let file = Keys.temporaryFile("keys.sqlite")
            return StoreUnderTest(store: try SQLiteLLMKeyStore(fileURL: file)) {
                var bytes = Data()
                for suffix in ["", "-wal", "-shm"] {
                    bytes += (try? Data(contentsOf: URL(fileURLWithPath: file.path + suffix))) ?? Data()
                }
                return bytes
            }
        case .postgres:
            let client = try TestPostgres.client()
            let table = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let store = try PostgresLLMKeyStore(client: client, table: table)
            try await store.migrate()
            return StoreUnderTest(store: store) {
                var bytes = Data()
                let rows = try await client.query("SELECT user_id, ciphertext, key_id FROM \(unescaped: table)")
                for try await (user, ciphertext, keyId) in rows.decode((String, String, String).self) {
                    bytes += Data("\(user)|\(ciphertext)|\(keyId)\n".utf8)
                }
                return bytes
            }
        }
    }
}

/// The tests' PostgreSQL: `OPENCAT_TEST_POSTGRES_URL`, which `bash Tools/test.sh` sets after installing PostgreSQL and
/// starting it on loopback. Without it the PostgreSQL cases fail at once, naming the command — never a wait.
enum TestPostgres {
    static let shared: Result<PostgresClient, any Error> = Result {
        guard let url = ProcessInfo.processInfo.environment["OPENCAT_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw LLMKeyError(
                .storage,
                "PostgreSQL for the tests: OPENCAT_TEST_POSTGRES_URL is not set. Run `bash Tools/test.sh` (it installs "
                    + "postgresql when missing, starts it on 127.0.0.1 and runs every test)."
            )
        }
        let client = try PostgresLLMKeyStore.client(url: url, logger: Logger(label: "tests.postgres"))
        Task.detached { await client.run() }
        return client
    }

    static func client() throws -> PostgresClient { try shared.get() }
}

/// The encrypted store on SQLite and on PostgreSQL, one suite: the v1 format, per-user keys, rotation, and clear
/// errors that lose no data.
@Suite(.serialized)
struct StoreTests {

    @Test(arguments: StoreKind.allCases)
    func aRoundTripStoresOnlyAV1CiphertextAndPartialUpdatesKeepTheRest(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest.make(kind).store
        let vault = UserKeyVault(store: store, cipher: try Keys.cipher())
        try await vault.update(userId: "u1", [.openai: Keys.openai, .google: Keys.google])
        try await vault.update(userId: "u1", [.anthropic: Keys.anthropic])
        try await vault.update(userId: "u1", [.google: String?.none])
        let keys = try await vault.keys(for: "u1")
        #expect(keys.mapValues(\.revealed) == [.openai: Keys.openai, .anthropic: Keys.anthropic])
        let sealed = try #require(try await vault.store.ciphertext(for: "u1"))
        #expect(sealed.hasPrefix("v1:k1:") && LLMKeyCipher.keyId(of: sealed) == "k1")
        try await vault.update(userId: "u1", [.openai: String?.none, .anthropic: String?.none])
        #expect(try await vault.store.ciphertext(for: "u1") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aRowMovedToAnotherUserATruncatedOneAndAWrongMasterKeyFailClearlyAndStay(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest.make(kind).store
        let vault = UserKeyVault(store: store, cipher: try Keys.cipher())
        try await vault.update(userId: "alice", [.openai: Keys.openai])
        let sealed = try #require(try await vault.store.ciphertext(for: "alice"))
        // Moved to bob.
        #expect(try await vault.store.replace(userId: "bob", expected: nil, with: sealed))
        await #expect { try await vault.keys(for: "bob") } throws: { ($0 as? LLMKeyError)?.code == .decryptionFailed }
        // Truncated.
        #expect(try await vault.store.replace(userId: "carol", expected: nil, with: String(sealed.prefix(30))))
        await #expect { try await vault.keys(for: "carol") } throws: {
            ($0 as? LLMKeyError)?.code == .malformedCiphertext
        }
        // A wrong master key under the same id, and an unknown id.
        let wrong = UserKeyVault(store: store, cipher: try Keys.cipher())
        await #expect { try await wrong.keys(for: "alice") } throws: { ($0 as? LLMKeyError)?.code == .decryptionFailed }
        let other = UserKeyVault(store: store, cipher: try Keys.cipher(["k9"], primary: "k9"))
        await #expect { try await other.keys(for: "alice") } throws: { ($0 as? LLMKeyError)?.code == .unknownMasterKey }
        // An update through a wrong key refuses to overwrite.
        await #expect(throws: LLMKeyError.self) { try await wrong.update(userId: "alice", [.google: Keys.google]) }
        // Nothing was lost: every row is as it was, and alice's keys still open with the right key.
        #expect(try await vault.store.ciphertext(for: "alice") == sealed)
        #expect(try await vault.keys(for: "alice")[.openai]?.revealed == Keys.openai)
        #expect(try await other.rewrap(batchSize: 10).failed == 3)
        #expect(try await vault.store.ciphertext(for: "alice") == sealed)
    }

    @Test(arguments: StoreKind.allCases)
    func rotationRewrapsInBatchesWhileReadsGoOn(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest.make(kind).store
        let k1 = SymmetricKey(size: .bits256)
        let old = UserKeyVault(store: store, cipher: try Keys.cipher(["k1"], primary: "k1", seed: ["k1": k1]))
        for index in 0..<60 { try await old.update(userId: "user\(index)", [.openai: Keys.openai]) }
        let rotated = UserKeyVault(
            store: store,
            cipher: try Keys.cipher(["k1", "k2"], primary: "k2", seed: ["k1": k1])
        )
        // Readers go on while the rows are re-sealed: every read opens, before, during and after.
        async let reads: Int = {
            var reads = 0
            for _ in 0..<40 {
                for index in stride(from: 0, to: 60, by: 7) {
                    let key = try await rotated.keys(for: "user\(index)")[.openai]?.revealed
                    #expect(key == Keys.openai)
                    reads += 1
                }
                await Task.yield()
            }
            return reads
        }()
        let result = try await rotated.rewrap(batchSize: 7)
        #expect(try await reads == 40 * 9)
        #expect(result.rewrapped == 60 && result.failed == 0)
        for index in 0..<60 {
            let sealed = try #require(try await rotated.store.ciphertext(for: "user\(index)"))
            #expect(LLMKeyCipher.keyId(of: sealed) == "k2")
        }
        #expect(try await rotated.rewrap().rewrapped == 0)
        // The old key alone no longer opens them: they were truly re-sealed.
        await #expect(throws: LLMKeyError.self) { try await old.keys(for: "user0") }
    }

    @Test(arguments: StoreKind.allCases)
    func noPlaintextKeyInTheStore(_ kind: StoreKind) async throws {
        let underTest = try await StoreUnderTest.make(kind)
        let vault = UserKeyVault(store: underTest.store, cipher: try Keys.cipher())
        try await vault.update(userId: "u1", [.openai: Keys.openai, .anthropic: Keys.anthropic, .google: Keys.google])
        let bytes = try await underTest.dump()
        #expect(!bytes.isEmpty)
        for key in [Keys.openai, Keys.anthropic, Keys.google] {
            #expect(bytes.range(of: Data(key.utf8)) == nil)
            #expect(bytes.range(of: Data(key.suffix(12).utf8)) == nil)
        }
    }

    @Test func masterKeysParseFromTheEnvironmentFormat() throws {
        let a = Data(repeating: 1, count: 32).base64EncodedString()
        let b = Data(repeating: 2, count: 32).base64EncodedString()
        #expect(try LLMKeyCipher.parse("k2=\(b),k1=\(a)").primaryKeyId == "k2")
        #expect(try LLMKeyCipher.parse(a).primaryKeyId == "k1")
        #expect(throws: LLMKeyError.self) { try LLMKeyCipher.parse("k1=short") }
        let file = Keys.temporaryFile("master.key")
        try Data("k7=\(a)\n".utf8).write(to: file)
        #expect(try LLMKeyCipher.load(environment: ["OPENCAT_LLM_MASTER_KEY_FILE": file.path]).primaryKeyId == "k7")
        #expect(
            try LLMKeyCipher.load(environment: ["OPENCAT_LLM_MASTER_KEY": b, "OPENCAT_LLM_MASTER_KEY_FILE": file.path])
                .primaryKeyId == "k1"
        )
        #expect(throws: LLMKeyError.self) { try LLMKeyCipher.load(environment: [:]) }
        #expect(throws: LLMKeyError.self) { try LLMKeyCipher.parse("") }
    }
}

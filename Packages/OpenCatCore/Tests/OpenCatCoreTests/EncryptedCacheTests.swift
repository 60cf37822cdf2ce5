import Crypto
import Foundation
import Logging
import OpenCat
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing

struct EncryptedCacheTests {
    /// The outbox the tests write to (one namespace, one owner).
    static func outbox(_ cache: EncryptedCache) -> DurableOutbox<Data> {
        DurableOutbox(cache: cache, namespace: "test", logger: LogCapture().logger)
    }

    let directory = Fixture.temporaryDirectory()
    var file: URL { directory.appendingPathComponent("cache.sqlite") }
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test func valuesSurviveReopening() throws {
        do {
            let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
            try cache.setValue(["a": 1], forKey: "numbers")
        }
        let reopened = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
        #expect(reopened.value([String: Int].self, forKey: "numbers") == ["a": 1])
        #expect(reopened.recovery == nil)
    }

    @Test func theFileHoldsNeitherKeysNorValuesInPlaintext() throws {
        let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
        try cache.setValue("user-4242-plaintext-value", forKey: "customer:user-4242")
        try Self.outbox(cache).enqueue(Data("eyJhbGciOiJFUzI1NiJ9.payload".utf8), id: "apple:2000000999", owner: "u")
        let raw = try Data(contentsOf: file)
        for needle in ["user-4242", "2000000999", "eyJhbGciOiJFUzI1NiJ9", "customer:"] {
            #expect(raw.range(of: Data(needle.utf8)) == nil, "found \(needle)")
        }
    }

    @Test func theOutboxDeliversEachIdAtMostOnceAndSurvivesReopening() throws {
        do {
            let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
            #expect(try Self.outbox(cache).enqueue(Data("one".utf8), id: "t1", owner: "u"))
            #expect(try !Self.outbox(cache).enqueue(Data("duplicate".utf8), id: "t1", owner: "u"))
            #expect(try Self.outbox(cache).enqueue(Data("two".utf8), id: "t2", owner: "u"))
        }
        let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
        #expect(Self.outbox(cache).pending(owner: "u")?.entries.map(\.id) == ["t1", "t2"])
        #expect(Self.outbox(cache).pending(owner: "u")?.entries.first?.payload == Data("one".utf8))
        Self.outbox(cache).complete("t1", as: .delivered)
        #expect(Self.outbox(cache).pending(owner: "u")?.entries.map(\.id) == ["t2"])
        #expect(try !Self.outbox(cache).enqueue(Data("again".utf8), id: "t1", owner: "u"))
        #expect(Self.outbox(cache).state(of: "t1")?.state == .delivered)
    }

    @Test func aGarbageFileIsQuarantinedAndRebuilt() throws {
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
        let recovery = try #require(cache.recovery)
        #expect(FileManager.default.fileExists(atPath: recovery.quarantinedFile.path))
        #expect(try Data(contentsOf: recovery.quarantinedFile) == Data(repeating: 0x5A, count: 8192))
        try cache.setValue(1, forKey: "works")
        #expect(cache.value(Int.self, forKey: "works") == 1)
    }

    @Test func aCacheSealedWithAnotherKeyIsQuarantinedAndItsOutboxReported() throws {
        do {
            let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
            try Self.outbox(cache).enqueue(Data("proof".utf8), id: "t1", owner: "u")
        }
        let other = StaticKeyProvider(key: SymmetricKey(size: .bits256))
        let cache = try EncryptedCache(fileURL: file, keyProvider: other, logger: logger)
        let recovery = try #require(cache.recovery)
        #expect(recovery.unrecoverableOutboxEntries == 1)
        #expect(recovery.salvagedOutboxEntries == 0)
        #expect(FileManager.default.fileExists(atPath: recovery.quarantinedFile.path))
        #expect(Self.outbox(cache).pending(owner: "u")?.entries.isEmpty == true)
        // The original key still opens the quarantined file: nothing was lost.
        let original = try EncryptedCache(fileURL: recovery.quarantinedFile, keyProvider: key, logger: logger)
        #expect(Self.outbox(original).pending(owner: "u")?.entries.map(\.id) == ["t1"])
    }

    @Test func theFileKeyProviderCreatesA32ByteOwnerOnlyKeyAndReusesIt() throws {
        let url = directory.appendingPathComponent("keys/cache.key")
        let provider = FileKeyProvider(fileURL: url)
        let first = try provider.cacheKey()
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: url).count == 32)
        #expect(try provider.cacheKey() == first)
    }

    @Test func aKeyFileOfTheWrongLengthIsSetAsideAndReplaced() throws {
        let url = directory.appendingPathComponent("short.key")
        try Data([1, 2, 3]).write(to: url)
        // Old enough not to be "being written": no waiting.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)],
            ofItemAtPath: url.path
        )
        let key = try FileKeyProvider(fileURL: url, pause: { _ in Issue.record("waited for an old file") }).cacheKey()
        #expect(try Data(contentsOf: url).count == 32)
        #expect(key.withUnsafeBytes { Data($0) } == (try Data(contentsOf: url)))
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("short.key.damaged-")
        }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: directory.appendingPathComponent(aside[0])) == Data([1, 2, 3]))
    }
}

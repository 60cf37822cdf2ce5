import Crypto
import Foundation
import GRDB
import OpenCat
import OpenCatCore
import OpenCatTesting
import Synchronization
import Testing

@testable import OpenCatStorage

/// The outbox is scoped by owner and namespace: after a user switch on one device, user A's offline purchase is
/// never delivered as user B's; it waits for A. Another component's entries in the same file are not unreadable.
struct OutboxOwnerTests {
    static let product = OpenCatServerModeTests.product

    let directory = Fixture.temporaryDirectory()
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: Fixture.epoch, autoAdvance: true, holdsDuringExternalWork: true)
    let store = TestStoreClient()
    let server = FakeOpenCatServer(apiKey: OpenCatServerModeTests.apiKey)
    let proof = Fixture.proof("jws-yearly", product: OutboxOwnerTests.product, transaction: "tx-a-1")

    init() { OpenCatServerModeTests.prepare(server) }

    func sdk(_ user: String) throws -> OpenCat {
        try OpenCat(
            mode: .server(
                serverURL: URL(string: "https://api.opencat.test")!,
                apiKey: Secret(OpenCatServerModeTests.apiKey)
            ),
            appUserId: user,
            storeClient: store,
            options: .init(
                cacheDirectory: directory,
                keyProvider: key,
                clock: clock,
                transport: server,
                retryPolicy: RetryPolicy(maxAttempts: 1, jitter: .none)
            )
        )
    }

    @Test func anOfflinePurchaseIsDeliveredAsItsBuyerNeverAsTheNextUser() async throws {
        server.setAvailability(.offline)
        let userA = try sdk("user-a")
        store.script(Self.product, .result(.success(proof)))
        #expect(try await userA.purchase(productID: Self.product).status == .awaitingSync)

        // The app switches to user B on the same device; the server is back.
        server.setAvailability(.online)
        let userB = try sdk("user-b")
        let report = await userB.syncPendingPurchases()
        #expect(report.delivered == 0 && report.stillPending == 0 && report.unreadable == 0)
        #expect(server.receiptPosts.isEmpty)
        #expect(server.transactionIds(of: "user-b").isEmpty)
        #expect(!userB.isEntitled("pro"))

        // User A returns: the purchase is delivered as A's.
        let userAAgain = try sdk("user-a")
        #expect(await userAAgain.syncPendingPurchases().delivered == 1)
        #expect(server.transactionIds(of: "user-a").count == 1)
        #expect(server.transactionIds(of: "user-b").isEmpty)
        #expect(userAAgain.isEntitled("pro"))
    }

    @Test func entriesWrittenBeforeScopesExistedAreAdoptedByTheirOwner() async throws {
        server.setAvailability(.offline)
        let userA = try sdk("user-a")
        store.script(Self.product, .result(.success(proof)))
        _ = try await userA.purchase(productID: Self.product)
        // As a file written by an earlier version: no scope on the entry.
        let file = directory.appendingPathComponent("opencat-cache.sqlite")
        let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: LogCapture().logger)
        try await cache.database.write { try $0.execute(sql: "UPDATE outbox SET namespace = NULL, owner = NULL") }

        server.setAvailability(.online)
        let userB = try sdk("user-b")  // opening the file adopts the entry for the user its id names
        let report = await userB.syncPendingPurchases()
        #expect(report.delivered == 0 && report.unreadable == 0)
        #expect(await (try sdk("user-a")).syncPendingPurchases().delivered == 1)
        #expect(server.transactionIds(of: "user-b").isEmpty)
    }

    @Test func anotherNamespaceInTheSameFileIsNotUnreadable() async throws {
        server.setAvailability(.offline)
        let sdk = try sdk("user-a")
        store.script(Self.product, .result(.success(proof)))
        _ = try await sdk.purchase(productID: Self.product)

        // Another component (here a stand-in with its own payload type) writes to the same file, for the same user.
        struct Spend: Codable, Sendable { var amount: Int }
        let cache = try EncryptedCache(
            fileURL: directory.appendingPathComponent("opencat-cache.sqlite"),
            keyProvider: key,
            logger: LogCapture().logger
        )
        let other = DurableOutbox<Spend>(cache: cache, namespace: "keyvault", logger: LogCapture().logger)
        #expect(try other.enqueue(Spend(amount: 3), id: "keyvault|user-a|spend|s1", owner: "user-a"))

        let report = await sdk.syncPendingPurchases()
        #expect(report.unreadable == 0 && report.stillPending == 1)
        let theirs = try #require(other.pending(owner: "user-a"))
        #expect(theirs.unreadable == 0)
        #expect(theirs.entries.map(\.payload?.amount) == [3])
        #expect(other.pending(owner: "user-b")?.entries.isEmpty == true)
    }

    @Test func concurrentCallersShareOneAttempt() async throws {
        let attempts = SharedAttempts()
        final class Runs: Sendable { let count = Mutex(0) }
        let runs = Runs()
        let (gate, open) = AsyncStream<Void>.makeStream()
        async let first = attempts.run(key: "file#entry") { () async -> Int in
            runs.count.withLock { $0 += 1 }
            for await _ in gate { break }
            return 42
        }
        try await waitUntil("the first attempt running") { attempts.isRunning("file#entry") }
        async let second = attempts.run(key: "file#entry") { () async -> Int in
            runs.count.withLock { $0 += 1 }
            return 7
        }
        try await waitUntil("the second caller sharing the attempt") { attempts.callers(of: "file#entry") >= 2 }
        let other = await attempts.run(key: "file#other") { () async -> Int in 1 }
        #expect(other.result == 1 && other.started)
        open.yield()
        let (a, b) = await (first, second)
        #expect(a.result == 42 && a.started)
        #expect(b.result == 42 && !b.started)
        #expect(runs.count.withLock { $0 } == 1)
        #expect(!attempts.isRunning("file#entry"))
    }
}

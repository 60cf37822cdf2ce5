import Crypto
import Foundation
import GRDB
import OpenCat
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Synchronization
import Testing

/// Regression tests of the device SDK's security review: environments, rejections, the outbox, clocks, the cache.
struct SecurityRegressionTests {
    static let monthly = "com.example.pro.monthly"
    static let map: EntitlementMap = [monthly: ["pro"]]

    let directory = Fixture.temporaryDirectory()
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let store = TestStoreClient()
    let verifier = TableVerifier()

    func makeSDK(
        clock: ManualClock,
        environments: Set<TransactionInfo.Environment> = [.production],
        busyTimeout: Duration = .seconds(5)
    ) throws -> OpenCat {
        try OpenCat(
            mode: .standalone(
                verifier: verifier,
                entitlements: Self.map,
                offerings: .init(currentOfferingId: nil, offerings: [])
            ),
            appUserId: "user-1",
            storeClient: store,
            options: .init(
                cacheDirectory: directory,
                keyProvider: key,
                clock: clock,
                acceptedEnvironments: environments,
                cacheBusyTimeout: busyTimeout
            )
        )
    }

    func subscription(
        _ id: String = "tx-1",
        expires: Date,
        environment: TransactionInfo.Environment = .production
    ) -> TransactionInfo {
        var transaction = Fixture.transaction(id, product: Self.monthly, purchased: Fixture.epoch, expires: expires)
        transaction.environment = environment
        return transaction
    }

    // MARK: Item 4: sandbox purchases

    @Test func aSandboxTransactionGrantsNothingUnlessTheAppAcceptsTheSandbox() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        verifier.set(
            "jws-sandbox",
            .success(
                VerifiedTransaction(
                    transaction: subscription(expires: Fixture.epoch + 86_400, environment: .sandbox)
                )
            )
        )
        store.setCurrent([Fixture.proof("jws-sandbox", product: Self.monthly, transaction: "tx-1")])

        let production = try makeSDK(clock: clock)
        let info = try await production.restorePurchases()
        #expect(info.allTransactions.first?.environment == .sandbox)
        #expect(!production.isEntitled("pro"))
        await production.shutdown()

        let testBuild = try makeSDK(clock: clock, environments: [.production, .sandbox])
        #expect(testBuild.isEntitled("pro"))
        await testBuild.shutdown()
    }

    // MARK: Item 6: a rejection is a rejection

    @Test func aRejectedPurchaseIsVerifiedAgainWhenBoughtAgain() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        let sdk = try makeSDK(clock: clock)
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .failure(TableVerifier.Forged()))
        await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.monthly) }
        #expect(verifier.callCount == 1)

        // The store fixed its side (or the first answer was wrong): buying again must ask again.
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .success(VerifiedTransaction(transaction: subscription(expires: Fixture.epoch + 86_400))))
        let result = try await sdk.purchase(productID: Self.monthly)
        #expect(verifier.callCount == 2)
        #expect(result.status == .completed)
        #expect(result.transaction?.transactionId == "tx-1")
        #expect(sdk.isEntitled("pro"))
        await sdk.shutdown()
    }

    // MARK: Items 9 and 10: clocks

    @Test func settingTheClockBackAfterARestartDoesNotReviveAnExpiredEntitlement() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        verifier.set("jws-1", .success(VerifiedTransaction(transaction: subscription(expires: Fixture.epoch + 3_600))))
        store.setCurrent([Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")])
        do {
            let sdk = try makeSDK(clock: clock)
            _ = try await sdk.restorePurchases()
            #expect(sdk.isEntitled("pro"))
            clock.advance(by: .seconds(7_200))  // the subscription ended an hour ago on this device
            #expect(await !sdk.customerInfo().isEntitled("pro"))
            await sdk.shutdown()
        }
        // The user sets the clock back to before the expiry and restarts, offline.
        let rolledBack = ManualClock(start: Fixture.epoch + 60)
        let restarted = try makeSDK(clock: rolledBack)
        #expect(!restarted.isEntitled("pro"))
        #expect(await !restarted.customerInfo().isEntitled("pro"))
        await restarted.shutdown()
    }

    @Test func aDeviceClockThatRanAheadDoesNotLockAPayingUserOut() async throws {
        // Real time is the epoch; the device believes it is 2030 while verifying. The store's own clock (its HTTP
        // Date) says the epoch; the subscription runs for 30 days from it.
        let real = Fixture.epoch
        let wrong = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        verifier.set(
            "jws-1",
            .success(
                VerifiedTransaction(
                    transaction: subscription(expires: real + 30 * 86_400),
                    confirmedAt: real,
                    currentTime: real
                )
            )
        )
        store.setCurrent([Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")])
        do {
            let sdk = try makeSDK(clock: wrong)
            _ = try await sdk.restorePurchases()
            await sdk.shutdown()
        }
        // The user fixes the clock and restores (or simply restarts): entitled.
        let fixed = ManualClock(start: real + 60)
        let restarted = try makeSDK(clock: fixed)
        #expect(restarted.isEntitled("pro"))
        #expect(try await restarted.restorePurchases().isEntitled("pro"))
        await restarted.shutdown()
    }

    @Test func aClockThatRanAheadWithOnlySignedDatesLocksNoOneOutForGood() async throws {
        // App Store offline proofs carry a signed date (a lower bound of real time) but no current time.
        let real = Fixture.epoch
        let wrong = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        verifier.set(
            "jws-1",
            .success(
                VerifiedTransaction(
                    transaction: subscription(expires: real + 60 * 86_400),
                    confirmedAt: real
                )
            )
        )
        store.setCurrent([Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")])
        do {
            let sdk = try makeSDK(clock: wrong)
            _ = try await sdk.restorePurchases()
            await sdk.shutdown()
        }
        let restarted = try makeSDK(clock: ManualClock(start: real + 60))
        #expect(restarted.isEntitled("pro"))
        await restarted.shutdown()
    }

    @Test func aConfirmedTimeFarAheadOfTheDeviceIsCapped() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        verifier.set(
            "jws-1",
            .success(
                VerifiedTransaction(
                    transaction: subscription(expires: Fixture.epoch + 86_400),
                    confirmedAt: Date(timeIntervalSince1970: 4_000_000_000)
                )
            )
        )
        store.setCurrent([Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")])
        let sdk = try makeSDK(clock: clock)
        #expect(try await sdk.restorePurchases().isEntitled("pro"))
        #expect(sdk.isEntitled("pro"))
        await sdk.shutdown()
    }

    // MARK: Item 11: bounded grace

    @Test func aGracePeriodWithoutAnEndIsBounded() {
        let start = Fixture.epoch
        func grace(expires: Date?) -> TransactionInfo {
            Fixture.transaction("tx", product: Self.monthly, purchased: start, expires: expires, status: .gracePeriod)
        }
        func active(_ transaction: TransactionInfo, at time: Date, confirmed: Date? = nil) -> Bool {
            EntitlementEngine.entitlements(for: [transaction], map: Self.map, at: time, confirmedAt: confirmed)["pro"]?
                .isActive == true
        }
        // The store's expiry bounds it.
        #expect(active(grace(expires: start + 86_400), at: start + 3_600))
        #expect(!active(grace(expires: start + 86_400), at: start + 2 * 86_400))
        // No date at all: a bounded grace from the confirmed time (else the purchase), never lifetime.
        #expect(active(grace(expires: nil), at: start + 86_400, confirmed: start))
        #expect(!active(grace(expires: nil), at: start + 17 * 86_400, confirmed: start))
        #expect(!active(grace(expires: nil), at: start + 400 * 86_400))
    }

    // MARK: Item 5: a busy database is not corruption

    @Test func aLockedCacheIsNotQuarantinedAndKeepsItsOutbox() async throws {
        let file = directory.appendingPathComponent("busy.sqlite")
        let logger = LogCapture().logger
        do {
            let cache = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
            #expect(try EncryptedCacheTests.outbox(cache).enqueue(Data("proof".utf8), id: "paid-1", owner: "u"))
        }
        let lock = try await ExclusiveLock(path: file.path)
        let error = #expect(throws: OpenCatError.self) {
            try EncryptedCache(fileURL: file, keyProvider: key, logger: logger, busyTimeout: .milliseconds(50))
        }
        #expect(error?.code == .cache)
        #expect(error?.message.contains("SQLite error 5") == true)
        await lock.release()

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.contains("corrupt") })
        let reopened = try EncryptedCache(fileURL: file, keyProvider: key, logger: logger)
        #expect(reopened.recovery == nil)
        #expect(EncryptedCacheTests.outbox(reopened).pending(owner: "u")?.entries.map(\.id) == ["paid-1"])
    }

    @Test func theCacheFileIsOwnerOnly() throws {
        let file = directory.appendingPathComponent("mode.sqlite")
        _ = try EncryptedCache(fileURL: file, keyProvider: key, logger: LogCapture().logger)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    // MARK: Items 16 and 17: the outbox

    @Test func aPurchaseThatCanNeitherBeDeliveredNorSavedIsAnError() async throws {
        let clock = ManualClock(start: Fixture.epoch)
        let sdk = try makeSDK(clock: clock, busyTimeout: .milliseconds(50))
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .failure(TableVerifier.TransientFailure()))
        // Another process holds the database: the outbox cannot be written.
        let lock = try await ExclusiveLock(path: directory.appendingPathComponent("opencat-cache.sqlite").path)
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.monthly) }
        #expect(error?.code == .cache)
        await lock.release()
        await sdk.shutdown()
    }

    @Test func undecodableOutboxEntriesAreCountedNotSkippedSilently() async throws {
        do {
            let cache = try EncryptedCache(
                fileURL: directory.appendingPathComponent("opencat-cache.sqlite"),
                keyProvider: key,
                logger: LogCapture().logger
            )
            try DurableOutbox<Data>(cache: cache, namespace: "opencat", logger: LogCapture().logger)
                .enqueue(Data("not an outbox payload".utf8), id: "user-1|apple:tx-9", owner: "user-1")
        }
        let sdk = try makeSDK(clock: ManualClock(start: Fixture.epoch))
        let report = await sdk.syncPendingPurchases()
        #expect(report.unreadable == 1)
        #expect(report.delivered == 0)
        await sdk.shutdown()
    }

    // MARK: Issue 9 item 6: key file damage

    @Test func aTruncatedKeyFileEndsInAWorkingSDKWithTheRecoveryReported() async throws {
        let keyFile = directory.appendingPathComponent("cache.key")
        let clock = ManualClock(start: Fixture.epoch)
        func makeFileKeyed() throws -> OpenCat {
            try OpenCat(
                mode: .standalone(
                    verifier: verifier,
                    entitlements: Self.map,
                    offerings: .init(currentOfferingId: nil, offerings: [])
                ),
                appUserId: "user-1",
                storeClient: store,
                options: .init(cacheDirectory: directory, clock: clock)
            )
        }
        do {
            let sdk = try makeFileKeyed()
            #expect(sdk.cacheRecovery == nil)
            await sdk.shutdown()
        }
        let original = try Data(contentsOf: keyFile)
        try original.prefix(7).write(to: keyFile)  // a crash or a disk error truncated it
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)],
            ofItemAtPath: keyFile.path
        )

        let sdk = try makeFileKeyed()
        #expect(sdk.cacheRecovery != nil)
        #expect(sdk.cacheRecovery?.reason.contains("different key") == true, "\(String(describing: sdk.cacheRecovery))")
        #expect(try Data(contentsOf: keyFile).count == 32)
        let damaged = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("cache.key.damaged-")
        }
        #expect(damaged.count == 1)
        #expect(try Data(contentsOf: directory.appendingPathComponent(damaged[0])) == original.prefix(7))
        // It works: a purchase is kept and survives a restart.
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .success(VerifiedTransaction(transaction: subscription(expires: Fixture.epoch + 86_400))))
        #expect(try await sdk.purchase(productID: Self.monthly).status == .completed)
        await sdk.shutdown()
        let again = try makeFileKeyed()
        #expect(again.cacheRecovery == nil)
        #expect(again.isEntitled("pro"))
        await again.shutdown()
    }

    @Test func aKeyFileBeingWrittenByAnotherProcessIsWaitedFor() async throws {
        let keyFile = directory.appendingPathComponent("concurrent.key")
        let theirs = Data((0..<32).map { UInt8($0) })
        // The other process has created the file and written 5 bytes so far.
        try theirs.prefix(5).write(to: keyFile)
        let waits = LockedCounter()
        let provider = FileKeyProvider(
            fileURL: keyFile,
            pause: { _ in
                // While this process waits, the other one finishes writing.
                if waits.increment() == 2 { try? theirs.write(to: keyFile) }
            }
        )
        // The SDK opens its cache with that key: nothing was damaged, so nothing is recovered, and it works.
        let sdk = try OpenCat(
            mode: .standalone(
                verifier: verifier,
                entitlements: Self.map,
                offerings: .init(currentOfferingId: nil, offerings: [])
            ),
            appUserId: "user-1",
            storeClient: store,
            options: .init(cacheDirectory: directory, keyProvider: provider, clock: ManualClock(start: Fixture.epoch))
        )
        #expect(sdk.cacheRecovery == nil)
        #expect(waits.value == 2)
        #expect(try provider.cacheKey().withUnsafeBytes { Data($0) } == theirs)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("damaged") }
                .isEmpty
        )
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .success(VerifiedTransaction(transaction: subscription(expires: Fixture.epoch + 86_400))))
        #expect(try await sdk.purchase(productID: Self.monthly).status == .completed)
        #expect(sdk.isEntitled("pro"))
        await sdk.shutdown()
    }

    @Test func aKeyFileReadableByOthersIsReportedWithItsMode() throws {
        let keyFile = directory.appendingPathComponent("open.key")
        try Data(repeating: 7, count: 32).write(to: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        let capture = LogCapture()
        _ = try FileKeyProvider(fileURL: keyFile, logger: capture.logger).cacheKey()
        let warning = capture.all.first { $0.hasPrefix("warning ") }
        #expect(warning?.contains("readable or writable by others") == true)
        #expect(warning?.contains("mode=644") == true)
    }
}

/// A thread-safe counter for closures the code under test calls.
final class LockedCounter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int {
        count.withLock {
            $0 += 1; return $0
        }
    }
    var value: Int { count.withLock { $0 } }
}

/// Another process's connection holding an exclusive lock on a SQLite file, on its own thread (not one of Swift
/// concurrency's), until released. Nothing here blocks a concurrency thread: the caller awaits the lock.
final class ExclusiveLock: Sendable {
    private let done = DispatchSemaphore(value: 0)  // blocking-ok: waited on by the lock thread only
    private let finished: Task<Void, Never>

    init(path: String) async throws {
        let queue = try DatabaseQueue(path: path)
        let done = done
        let (acquired, acquiredSignal) = AsyncStream.makeStream(of: Void.self)
        let (ended, endedSignal) = AsyncStream.makeStream(of: Void.self)
        Thread.detachNewThread {
            try? queue.inDatabase { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                acquiredSignal.yield()
                acquiredSignal.finish()
                done.wait()  // blocking-ok: its own thread, not a concurrency thread
                try db.execute(sql: "ROLLBACK")
            }
            endedSignal.finish()
        }
        finished = Task { for await _ in ended {} }
        for await _ in acquired { break }
    }

    func release() async {
        done.signal()
        await finished.value
    }
}

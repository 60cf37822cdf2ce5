import Crypto
import Foundation
import OpenCat
import OpenCatCore
import OpenCatTesting
import Testing

struct OpenCatStandaloneTests {
    static let monthly = "com.example.pro.monthly"
    static let lifetime = "com.example.pro.lifetime"
    static let map: EntitlementMap = [monthly: ["pro"], lifetime: ["pro"]]

    let directory = Fixture.temporaryDirectory()
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: Fixture.epoch)
    let store = TestStoreClient()
    let verifier = TableVerifier()

    func makeSDK(clock: ManualClock? = nil) throws -> OpenCat {
        try OpenCat(
            mode: .standalone(
                verifier: verifier,
                entitlements: Self.map,
                offerings: OfferingsLayout(
                    currentOfferingId: "default",
                    offerings: [
                        .init(identifier: "default", packages: [.init(identifier: "$monthly", productId: Self.monthly)])
                    ]
                )
            ),
            appUserId: "user-1",
            storeClient: store,
            options: .init(cacheDirectory: directory, keyProvider: key, clock: clock ?? self.clock)
        )
    }

    func scriptMonthlyPurchase(token: String = "jws-1", transaction: String = "tx-1", expires: TimeInterval = 3600) {
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof(token, product: Self.monthly, transaction: transaction)))
        )
        verifier.set(
            token,
            .success(
                VerifiedTransaction(
                    transaction: Fixture.transaction(
                        transaction,
                        product: Self.monthly,
                        purchased: clock.currentDate,
                        expires: clock.currentDate + expires,
                        willRenew: true
                    ),
                    confirmedAt: clock.currentDate
                )
            )
        )
    }

    @Test func aVerifiedPurchaseGrantsTheEntitlementAndFinishesTheTransaction() async throws {
        let sdk = try makeSDK()
        #expect(!sdk.isEntitled("pro"))
        scriptMonthlyPurchase()
        let result = try await sdk.purchase(productID: Self.monthly)
        #expect(result.status == .completed)
        #expect(result.transaction?.transactionId == "tx-1")
        #expect(result.customerInfo.activeEntitlements["pro"]?.productId == Self.monthly)
        #expect(sdk.isEntitled("pro"))
        #expect(store.finished == ["tx-1"])
    }

    @Test func isEntitledAnswersFromTheCacheImmediatelyAfterARestartWithNoNetwork() async throws {
        do {
            let sdk = try makeSDK()
            scriptMonthlyPurchase()
            _ = try await sdk.purchase(productID: Self.monthly)
            await sdk.shutdown()
        }
        // The verifier now fails everything (offline); the new instance must not need it.
        verifier.set("jws-1", .failure(TableVerifier.TransientFailure()))
        let restarted = try makeSDK()
        #expect(restarted.isEntitled("pro"))
        #expect(verifier.callCount == 1)
    }

    @Test func anUpdateIsEmittedAtTheMomentAnEntitlementExpires() async throws {
        let sdk = try makeSDK()
        scriptMonthlyPurchase(expires: 3600)
        _ = try await sdk.purchase(productID: Self.monthly)
        var updates = sdk.customerInfoUpdates.makeAsyncIterator()
        let first = await updates.next()
        #expect(first?.isEntitled("pro") == true)
        // The expiry timer is waiting on the test clock; move past the expiration date.
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(3600))
        let expired = await updates.next()
        #expect(expired?.isEntitled("pro") == false)
        #expect(expired?.entitlements["pro"]?.expirationDate == Fixture.epoch + 3600)
        #expect(!sdk.isEntitled("pro"))
    }

    @Test func isEntitledTurnsFalseAtTheExpirationEvenBeforeAnyTimerRuns() async throws {
        let sdk = try makeSDK()
        scriptMonthlyPurchase(expires: 60)
        _ = try await sdk.purchase(productID: Self.monthly)
        #expect(sdk.isEntitled("pro"))
        clock.advance(toDate: Fixture.epoch + 60)
        #expect(!sdk.isEntitled("pro"))
    }

    @Test func windingTheClockBackAfterARestartDoesNotReviveAnExpiredEntitlement() async throws {
        do {
            let sdk = try makeSDK()
            scriptMonthlyPurchase(expires: 60)
            _ = try await sdk.purchase(productID: Self.monthly)
            // A later store confirmation (a renewal check) saw a time after the expiry.
            verifier.set(
                "jws-late",
                .success(
                    VerifiedTransaction(
                        transaction: Fixture.transaction("tx-other", product: "unrelated"),
                        confirmedAt: Fixture.epoch + 7200
                    )
                )
            )
            var updates = sdk.customerInfoUpdates.makeAsyncIterator()
            store.emitUpdate(Fixture.proof("jws-late", product: "unrelated", transaction: "tx-other"))
            while let info = await updates.next(),
                !info.allTransactions.contains(where: { $0.transactionId == "tx-other" })
            {}
            #expect(verifier.callCount == 2)
            await sdk.shutdown()
        }
        // The device clock still says the purchase moment.
        let restarted = try makeSDK(clock: ManualClock(start: Fixture.epoch))
        #expect(!restarted.isEntitled("pro"))
    }

    @Test func aCancelledPurchaseThrowsPurchaseCancelled() async throws {
        let sdk = try makeSDK()
        store.script(Self.monthly, .result(.cancelled))
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.monthly) }
        #expect(error?.code == .purchaseCancelled)
    }

    @Test func aPendingPurchaseGrantsNothingYet() async throws {
        let sdk = try makeSDK()
        store.script(Self.monthly, .result(.pending))
        #expect(try await sdk.purchase(productID: Self.monthly).status == .pending)
        #expect(!sdk.isEntitled("pro"))
    }

    @Test func aForgedProofFailsWithTheVerifiersReason() async throws {
        let sdk = try makeSDK()
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("forged", product: Self.monthly, transaction: "tx-9")))
        )
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.monthly) }
        #expect(error?.code == .purchaseFailed)
        #expect(error?.underlying is TableVerifier.Forged)
        #expect(!sdk.isEntitled("pro"))
        #expect(store.finished.isEmpty)
    }

    @Test func aStoreFailureIsAStoreError() async throws {
        let sdk = try makeSDK()
        store.script(Self.monthly, .failure(OpenCatError(.store, "billing unavailable")))
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.monthly) }
        #expect(error?.code == .store)
    }

    @Test func aPurchaseThatCannotBeVerifiedOfflineIsKeptAndVerifiedOnSync() async throws {
        let sdk = try makeSDK()
        store.script(
            Self.monthly,
            .result(.success(Fixture.proof("jws-1", product: Self.monthly, transaction: "tx-1")))
        )
        verifier.set("jws-1", .failure(TableVerifier.TransientFailure()))
        #expect(try await sdk.purchase(productID: Self.monthly).status == .awaitingSync)
        #expect(!sdk.isEntitled("pro"))
        verifier.set(
            "jws-1",
            .success(
                VerifiedTransaction(
                    transaction: Fixture.transaction("tx-1", product: Self.monthly, expires: Fixture.epoch + 3600)
                )
            )
        )
        let report = await sdk.syncPendingPurchases()
        #expect(report.delivered == 1)
        #expect(sdk.isEntitled("pro"))
        #expect(await sdk.syncPendingPurchases().delivered == 0)
    }

    @Test func aRefundArrivingOnTheUpdatesStreamRevokesAccess() async throws {
        let sdk = try makeSDK()
        scriptMonthlyPurchase()
        _ = try await sdk.purchase(productID: Self.monthly)
        var updates = sdk.customerInfoUpdates.makeAsyncIterator()
        #expect(await updates.next()?.isEntitled("pro") == true)
        verifier.set(
            "jws-refund",
            .success(
                VerifiedTransaction(
                    transaction: Fixture.transaction(
                        "tx-1",
                        product: Self.monthly,
                        expires: Fixture.epoch + 3600,
                        status: .refunded
                    )
                )
            )
        )
        store.emitUpdate(Fixture.proof("jws-refund", product: Self.monthly, transaction: "tx-1"))
        #expect(await updates.next()?.isEntitled("pro") == false)
        #expect(!sdk.isEntitled("pro"))
    }

    @Test func restoreReverifiesEveryCurrentPurchase() async throws {
        let sdk = try makeSDK()
        verifier.set(
            "jws-life",
            .success(VerifiedTransaction(transaction: Fixture.transaction("tx-life", product: Self.lifetime)))
        )
        store.setCurrent([Fixture.proof("jws-life", product: Self.lifetime, transaction: "tx-life")])
        let info = try await sdk.restorePurchases()
        #expect(info.activeEntitlements["pro"]?.expirationDate == nil)
        #expect(sdk.isEntitled("pro"))
    }

    @Test func offeringsAreBuiltFromTheLayoutAndTheStoresProducts() async throws {
        let sdk = try makeSDK()
        store.setProducts([
            Product(
                id: Self.monthly,
                store: .apple,
                type: .autoRenewable,
                displayName: "Pro Monthly",
                price: Money(minorUnits: 499, currency: "USD"),
                subscriptionPeriod: "P1M"
            )
        ])
        let offerings = try await sdk.offerings()
        #expect(
            offerings.current?.package("$monthly")?.product.price
                == Money(amount: Decimal(string: "4.99")!, currency: "USD")
        )
    }

    @Test func theStaticAPIThrowsNotConfiguredBeforeConfiguration() async throws {
        OpenCat.reset()
        let error = #expect(throws: OpenCatError.self) { try OpenCat.isEntitled("pro") }
        #expect(error?.code == .notConfigured)
        let asyncError = await #expect(throws: OpenCatError.self) { try await OpenCat.offerings() }
        #expect(asyncError?.code == .notConfigured)
        _ = await #expect(throws: OpenCatError.self) { try await OpenCat.purchase(productID: "x") }
        _ = await #expect(throws: OpenCatError.self) { try await OpenCat.restorePurchases() }
        _ = await #expect(throws: OpenCatError.self) { try await OpenCat.customerInfo() }
        #expect(throws: OpenCatError.self) { try OpenCat.customerInfoUpdates() }
    }

    @Test func aCorruptCacheFileIsQuarantinedAndTheSDKKeepsWorking() async throws {
        try Data("this is not a database".utf8).write(to: directory.appendingPathComponent("opencat-cache.sqlite"))
        let sdk = try makeSDK()
        let recovery = try #require(sdk.cacheRecovery)
        #expect(FileManager.default.fileExists(atPath: recovery.quarantinedFile.path))
        scriptMonthlyPurchase()
        #expect(try await sdk.purchase(productID: Self.monthly).status == .completed)
        #expect(sdk.isEntitled("pro"))
    }
}

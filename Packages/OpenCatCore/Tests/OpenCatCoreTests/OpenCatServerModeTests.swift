import Crypto
import Foundation
import OpenCat
import OpenCatCore
import OpenCatTesting
import Testing

struct OpenCatServerModeTests {
    static let apiKey = "ocat_test_public_key_1234567890"
    static let product = "com.example.pro.yearly"

    let directory = Fixture.temporaryDirectory()
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: Fixture.epoch, autoAdvance: true)
    let store = TestStoreClient()
    let server = FakeOpenCatServer(apiKey: OpenCatServerModeTests.apiKey)

    init() { Self.prepare(server) }

    /// The server side of every server-mode test: `jws-yearly` proves `tx-100`, a yearly `pro` subscription.
    static func prepare(_ server: FakeOpenCatServer) {
        server.setEntitlementMap([product: ["pro"]])
        server.know(
            token: "jws-yearly",
            as: Fixture.transaction(
                "tx-100",
                product: product,
                expires: Fixture.epoch + 365 * 86_400,
                willRenew: true
            )
        )
    }

    func makeSDK(options: OpenCat.Options? = nil) throws -> OpenCat {
        try OpenCat(
            mode: .server(serverURL: URL(string: "https://api.opencat.test")!, apiKey: Secret(Self.apiKey)),
            appUserId: "user/with space",
            storeClient: store,
            options: options
                ?? .init(
                    cacheDirectory: directory,
                    keyProvider: key,
                    clock: clock,
                    transport: server,
                    retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none)
                )
        )
    }

    func scriptPurchase() {
        store.script(
            Self.product,
            .result(.success(Fixture.proof("jws-yearly", product: Self.product, transaction: "tx-100")))
        )
    }

    @Test func aPurchasePostsItsProofAndFlipsTheEntitlement() async throws {
        let sdk = try makeSDK()
        scriptPurchase()
        var updates = sdk.customerInfoUpdates.makeAsyncIterator()
        #expect(await updates.next()?.isEntitled("pro") == false)
        let result = try await sdk.purchase(productID: Self.product)
        #expect(result.status == .completed)
        #expect(result.transaction?.transactionId == "tx-100")
        #expect(sdk.isEntitled("pro"))
        #expect(await updates.next()?.isEntitled("pro") == true)
        #expect(server.receiptPosts.count == 1)
        #expect(store.finished == ["tx-100"])
        #expect(server.requestLog.contains("GET /v1/subscribers/user%2Fwith%20space") == false)
        _ = await sdk.customerInfo()
        #expect(server.requestLog.contains("GET /v1/subscribers/user%2Fwith%20space"))
    }

    @Test func anOfflinePurchaseIsPostedExactlyOnceAfterARestart() async throws {
        server.setAvailability(.offline)
        do {
            let sdk = try makeSDK()
            scriptPurchase()
            #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)
            #expect(!sdk.isEntitled("pro"))
            #expect(store.finished.isEmpty)  // not finished until the server has it
            await sdk.shutdown()
        }
        server.setAvailability(.online)
        let postsWhileOffline = server.requestLog.filter { $0 == "POST /v1/receipts" }.count
        let restarted = try makeSDK()
        let report = await restarted.syncPendingPurchases()
        #expect(report.delivered == 1)
        #expect(restarted.isEntitled("pro"))
        #expect(await restarted.syncPendingPurchases().delivered == 0)
        _ = await restarted.customerInfo()
        #expect(server.receiptPosts.count == 1)
        #expect(server.requestLog.filter { $0 == "POST /v1/receipts" }.count == postsWhileOffline + 1)
    }

    @Test func concurrentSyncsPostAnOutboxEntryOnlyOnce() async throws {
        server.setAvailability(.offline)
        let sdk = try makeSDK()
        scriptPurchase()
        #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)
        server.setAvailability(.online)
        let before = server.requestLog.filter { $0 == "POST /v1/receipts" }.count
        await withTaskGroup(of: SyncReport.self) { group in
            for _ in 0..<8 { group.addTask { await sdk.syncPendingPurchases() } }
            for await _ in group {}
        }
        let posts = server.requestLog.filter { $0 == "POST /v1/receipts" }.count - before
        #expect(posts == 1)
        #expect(sdk.isEntitled("pro"))
    }

    @Test func serverErrorsKeepCachedEntitlementsWorking() async throws {
        let sdk = try makeSDK()
        scriptPurchase()
        _ = try await sdk.purchase(productID: Self.product)
        server.setAvailability(.failing(503))
        let info = await sdk.customerInfo()
        #expect(info.isEntitled("pro"))
        #expect(sdk.isEntitled("pro"))
    }

    @Test func aProofTheServerRejectsFailsThePurchaseAndIsNotRetried() async throws {
        let sdk = try makeSDK()
        store.script(
            Self.product,
            .result(.success(Fixture.proof("forged", product: Self.product, transaction: "tx-bad")))
        )
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.product) }
        #expect(error?.code == .purchaseFailed)
        #expect((error?.underlying as? OpenCatServerError)?.status == 422)
        #expect(await sdk.syncPendingPurchases().delivered == 0)
        #expect(server.requestLog.filter { $0 == "POST /v1/receipts" }.count == 1)
    }

    @Test func staleOfferingsAreServedOfflineAndRefreshedOnline() async throws {
        let manual = ManualClock(start: Fixture.epoch)
        let sdk = try makeSDK(
            options: .init(
                cacheDirectory: directory,
                keyProvider: key,
                clock: manual,
                transport: server,
                retryPolicy: .never
            )
        )
        func offering(_ name: String) -> Offerings {
            Offerings(currentOfferingId: name, all: [name: Offering(identifier: name, packages: [])])
        }
        server.setOfferings(offering("launch"))
        #expect(try await sdk.offerings().currentOfferingId == "launch")
        server.setOfferings(offering("summer"))
        // Fresh (under 24 h): served from the cache, no request.
        manual.advance(by: .seconds(23 * 3600))
        #expect(try await sdk.offerings().currentOfferingId == "launch")
        // Stale and offline: the stale copy is served.
        manual.advance(by: .seconds(2 * 3600))
        server.setAvailability(.offline)
        #expect(try await sdk.offerings().currentOfferingId == "launch")
        // Stale and online: refreshed.
        server.setAvailability(.online)
        #expect(try await sdk.offerings().currentOfferingId == "summer")
        #expect(server.requestLog.filter { $0.hasPrefix("GET /v1/offerings") }.count == 3)
    }

    @Test func offeringsNeverFetchedWhileOfflineIsANetworkError() async throws {
        server.setAvailability(.offline)
        let sdk = try makeSDK()
        let error = await #expect(throws: OpenCatError.self) { try await sdk.offerings() }
        #expect(error?.code == .network)
    }

    @Test func aWrongAPIKeyIsReportedNotCrashed() async throws {
        let sdk = try OpenCat(
            mode: .server(serverURL: URL(string: "https://api.opencat.test")!, apiKey: "ocat_wrong"),
            appUserId: "u",
            storeClient: store,
            options: .init(cacheDirectory: directory, keyProvider: key, clock: clock, transport: server)
        )
        let error = await #expect(throws: OpenCatError.self) { try await sdk.offerings() }
        #expect(error?.code == .network)
        #expect((error?.underlying as? OpenCatServerError)?.status == 401)
    }

    // MARK: Security review (items 8 and 12)

    @Test(arguments: [401, 403, 404, 408, 409])
    func onlyAServerVerdictRemovesAPaidPurchaseFromTheOutbox(status: Int) async throws {
        server.setAvailability(.failing(status))
        let sdk = try makeSDK()
        scriptPurchase()
        #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)
        #expect(!sdk.isEntitled("pro"))
        server.setAvailability(.online)
        let report = await sdk.syncPendingPurchases()
        #expect(report.delivered == 1)
        #expect(sdk.isEntitled("pro"))
        #expect(server.receiptPosts.count == 1)
        #expect(await sdk.syncPendingPurchases().delivered == 0)
        await sdk.shutdown()
    }

    @Test func theServersVerdictOnAForgedProofIsFinal() async throws {
        let sdk = try makeSDK()
        store.script(
            Self.product,
            .result(.success(Fixture.proof("forged", product: Self.product, transaction: "tx-999")))
        )
        let error = await #expect(throws: OpenCatError.self) { try await sdk.purchase(productID: Self.product) }
        #expect(error?.code == .purchaseFailed)
        #expect(await sdk.syncPendingPurchases().stillPending == 0)
        await sdk.shutdown()
    }

    @Test func theIdempotencyKeyNamesTheUser() async throws {
        let sdk = try makeSDK()
        scriptPurchase()
        _ = try await sdk.purchase(productID: Self.product)
        // The key is the SHA-256 of the user-bound outbox id (no user id travels in a header).
        let expected = SHA256.hash(data: Data("user/with space|apple:tx-100".utf8)).map { String(format: "%02x", $0) }
            .joined()
        #expect(server.receiptPosts == [expected])
        await sdk.shutdown()
    }

    @Test func anAnswerAboutAnotherUserIsIgnored() async throws {
        let sdk = try makeSDK()
        scriptPurchase()
        server.answer(as: "someone-else")
        _ = try? await sdk.purchase(productID: Self.product)
        #expect(!sdk.isEntitled("pro"))
        #expect(await sdk.customerInfo().allTransactions.isEmpty)
        server.answer(as: nil)
        #expect(await sdk.customerInfo().isEntitled("pro"))
        await sdk.shutdown()
    }
}

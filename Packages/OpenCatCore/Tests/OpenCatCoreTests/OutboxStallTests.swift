import Crypto
import Foundation
import OpenCat
import OpenCatCore
import OpenCatTesting
import Testing

/// An outbox entry that fails for a reason waiting does not cure stalls after five counted attempts instead of
/// being retried forever; network failures never count; an explicit restore tries a stalled entry again.
struct OutboxStallTests {
    static let apiKey = OpenCatServerModeTests.apiKey
    static let product = OpenCatServerModeTests.product

    let directory = Fixture.temporaryDirectory()
    let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: Fixture.epoch, autoAdvance: true, holdsDuringExternalWork: true)
    let store = TestStoreClient()
    let server = FakeOpenCatServer(apiKey: OutboxStallTests.apiKey)
    let proof = Fixture.proof("jws-yearly", product: OutboxStallTests.product, transaction: "tx-100")

    init() { OpenCatServerModeTests.prepare(server) }

    func makeSDK() throws -> OpenCat {
        try OpenCat(
            mode: .server(serverURL: URL(string: "https://api.opencat.test")!, apiKey: Secret(Self.apiKey)),
            appUserId: "user-1",
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

    func posts() -> Int { server.requestLog.filter { $0 == "POST /v1/receipts" }.count }

    @Test(arguments: [FakeOpenCatServer.Availability.garbled, .failing(401)])
    func anAnswerThatWaitingDoesNotCureStallsTheEntryUntilARestore(_ failure: FakeOpenCatServer.Availability)
        async throws
    {
        server.setAvailability(failure)
        let sdk = try makeSDK()
        store.script(Self.product, .result(.success(proof)))
        #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)  // attempt 1
        for _ in 0..<4 { #expect(await sdk.syncPendingPurchases().stillPending == 1) }  // attempts 2…5
        #expect(posts() == 5)

        let stalled = await sdk.syncPendingPurchases()
        #expect(stalled.stalled == 1)
        #expect(stalled.stillPending == 0)
        #expect(posts() == 5)  // background sync no longer asks

        server.setAvailability(.online)
        #expect(await sdk.syncPendingPurchases().stalled == 1)
        #expect(!sdk.isEntitled("pro"))
        store.setCurrent([proof])
        _ = try await sdk.restorePurchases()  // an explicit attempt reopens it
        #expect(sdk.isEntitled("pro"))
        #expect(server.receiptPosts.count == 1)
        let after = await sdk.syncPendingPurchases()
        #expect(after.stalled == 0 && after.stillPending == 0)
    }

    @Test func networkFailuresNeverStallAPaidPurchase() async throws {
        server.setAvailability(.offline)
        let sdk = try makeSDK()
        store.script(Self.product, .result(.success(proof)))
        #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)
        for _ in 0..<12 {
            let report = await sdk.syncPendingPurchases()
            #expect(report.stillPending == 1 && report.stalled == 0)
        }
        server.setAvailability(.failing(503))
        for _ in 0..<6 { #expect(await sdk.syncPendingPurchases().stalled == 0) }
        server.setAvailability(.online)
        let report = await sdk.syncPendingPurchases()
        #expect(report.delivered == 1, "\(report) \(server.requestLog)")
        #expect(sdk.isEntitled("pro"))
        #expect(await sdk.syncPendingPurchases().storageFailures == 0)
    }
}

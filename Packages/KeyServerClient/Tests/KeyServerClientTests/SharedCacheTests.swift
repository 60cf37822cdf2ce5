import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import OpenCat
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing

/// The key vault and the device SDK in one cache file: each sees only its own outbox entries, none of the other's
/// is reported unreadable, and each delivers its own.
struct SharedCacheTests {
    let base = KeyVaultTests()

    @Test func aVaultAndTheSDKSharingOneCacheFileReportNoUnreadableEntries() async throws {
        let directory = base.directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The SDK's server cannot be reached: its purchase waits in the outbox.
        let store = TestStoreClient()
        let sdk = try OpenCat(
            mode: .server(serverURL: URL(string: "https://api.opencat.test")!, apiKey: Secret("ocat_pub_test")),
            appUserId: "u1",
            storeClient: store,
            options: .init(
                cacheDirectory: directory,
                keyProvider: base.keyProvider,
                clock: base.clock,
                transport: base.transport,
                retryPolicy: RetryPolicy(maxAttempts: 1, jitter: .none)
            )
        )
        base.transport.on(.post, "/v1/receipts", reply: .transportError(.connectionFailed))
        store.script(
            "pro_monthly",
            .result(
                .success(
                    PurchaseProof(
                        store: .apple,
                        kind: .appleSignedTransaction,
                        token: Secret("jws-1"),
                        productId: "pro_monthly",
                        transactionId: "tx-1"
                    )
                )
            )
        )
        #expect(try await sdk.purchase(productID: "pro_monthly").status == .awaitingSync)

        // The vault of the same user in the same file spends offline.
        base.transport.on(.post, "/api/v1/wallet/sync", json: base.wallet(10))
        base.transport.on(.post, "/api/v1/wallet/spend", reply: .transportError(.connectionFailed))
        let vault = try KeyVault(
            fileURL: directory.appendingPathComponent("opencat-cache.sqlite"),
            keyProvider: base.keyProvider,
            userId: "u1",
            verifier: base.verifier,
            client: base.client(),
            clock: base.clock
        )
        _ = await vault.sync()
        #expect(try await vault.spend(amount: 4, feature: "voice-pack", app: "voiceuwu") == .pending)

        let sdkReport = await sdk.syncPendingPurchases()
        #expect(sdkReport.unreadable == 0 && sdkReport.stillPending == 1 && sdkReport.storageFailures == 0)
        let vaultReport = await vault.sync()
        #expect(vaultReport.stillPending == 1 && vaultReport.storageFailures == 0)
        // Neither posted the other's entry.
        #expect(!base.transport.requests(matching: "/v1/receipts").contains { $0.bodyText.contains("voice-pack") })
        #expect(!base.transport.requests(matching: "/wallet/spend").contains { $0.bodyText.contains("jws-1") })
        await sdk.shutdown()
    }
}

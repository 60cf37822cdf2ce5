import AuraLogicExample
import Foundation
import OpenCat
import OpenCatCore
import Testing

/// The level gate alone, then through the OpenCat SDK in standalone mode: configured as an app configures it, with
/// the public API only (a store and a verifier of the test's own, the encrypted cache in a temporary folder).
struct AuraLogicExampleTests {
    typealias Difficulty = AuraLogicAccess.Difficulty

    @Test(arguments: Difficulty.allCases)
    func withoutTheUnlockOnlyTheFirstTenEasyAndMediumLevelsArePlayable(difficulty: Difficulty) {
        let free = AuraLogicAccess(hasFullAccess: false)
        let expectedFree = (difficulty == .easy || difficulty == .medium) ? 10 : 0
        for level in 1...50 {
            #expect(free.isUnlocked(level: level, difficulty: difficulty) == (level <= expectedFree), "level \(level)")
            #expect(free.needsPurchase(level: level, difficulty: difficulty) == (level > expectedFree))
        }
    }

    @Test(arguments: Difficulty.allCases)
    func theUnlockOpensEveryLevelIncludingFutureOnes(difficulty: Difficulty) {
        let unlocked = AuraLogicAccess(hasFullAccess: true)
        for level in [1, 10, 11, 200, 10_000] {
            #expect(unlocked.isUnlocked(level: level, difficulty: difficulty))
            #expect(!unlocked.needsPurchase(level: level, difficulty: difficulty))
        }
    }

    @Test func levelNumbersBelowOneAreNeverPlayable() {
        #expect(!AuraLogicAccess(hasFullAccess: true).isUnlocked(level: 0, difficulty: .easy))
        #expect(!AuraLogicAccess(hasFullAccess: false).isUnlocked(level: -3, difficulty: .medium))
    }

    /// The proof the store hands over when the full unlock is bought, and the transaction it proves.
    static let proof = PurchaseProof(
        store: .apple,
        kind: .appleSignedTransaction,
        token: Secret("signed-transaction-2000000001"),
        productId: AuraLogicAccess.fullUnlockProductId,
        transactionId: "2000000001"
    )
    static let transaction = TransactionInfo(
        transactionId: "2000000001",
        productId: AuraLogicAccess.fullUnlockProductId,
        store: .apple,
        purchaseDate: Date(timeIntervalSince1970: 1_700_000_000),
        status: .active
    )

    /// A fresh folder for the SDK's encrypted cache (its key file is made beside it).
    static func cacheFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aura-logic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The SDK configured for Aura Logic in standalone mode.
    static func openCat(
        store: FullUnlockStore = FullUnlockStore(proof: proof),
        verifier: SingleTransactionVerifier = SingleTransactionVerifier(
            genuineToken: "signed-transaction-2000000001",
            transaction: transaction
        ),
        cache: URL
    ) throws -> OpenCat {
        try OpenCat(
            mode: .standalone(
                verifier: verifier,
                entitlements: AuraLogicAccess.entitlements,
                offerings: AuraLogicAccess.offerings
            ),
            appUserId: "player-1",
            storeClient: store,
            options: .init(cacheDirectory: cache)
        )
    }

    @Test func buyingTheFullUnlockThroughOpenCatOpensHardLevels() async throws {
        let sdk = try Self.openCat(cache: Self.cacheFolder())
        #expect(!AuraLogicAccess(openCat: sdk).isUnlocked(level: 1, difficulty: .hard))
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 10, difficulty: .easy))

        let result = try await sdk.purchase(productID: AuraLogicAccess.fullUnlockProductId)

        #expect(result.status == .completed)
        #expect(result.transaction?.transactionId == "2000000001")
        #expect(sdk.isEntitled(AuraLogicAccess.fullAccessEntitlement))
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 1, difficulty: .hard))
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 999, difficulty: .insane))
        await sdk.shutdown()
    }

    @Test func theUnlockIsRememberedAcrossLaunches() async throws {
        let cache = try Self.cacheFolder()
        let first = try Self.openCat(cache: cache)
        _ = try await first.purchase(productID: AuraLogicAccess.fullUnlockProductId)
        await first.shutdown()

        // The next launch: nothing verifies any more (offline), yet the encrypted cache remembers the unlock.
        let offline = SingleTransactionVerifier(genuineToken: "nothing-verifies", transaction: Self.transaction)
        let relaunched = try Self.openCat(verifier: offline, cache: cache)
        #expect(AuraLogicAccess(openCat: relaunched).isUnlocked(level: 42, difficulty: .insane))
        await relaunched.shutdown()
    }

    @Test func restoringOnANewDeviceOpensEveryLevelAgain() async throws {
        var store = FullUnlockStore(proof: Self.proof)
        store.owned = [Self.proof]
        let sdk = try Self.openCat(store: store, cache: Self.cacheFolder())
        #expect(!AuraLogicAccess(openCat: sdk).hasFullAccess)

        let info = try await sdk.restorePurchases()

        #expect(info.isEntitled(AuraLogicAccess.fullAccessEntitlement))
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 11, difficulty: .medium))
        await sdk.shutdown()
    }

    @Test func aForgedPurchaseKeepsTheHardLevelsLocked() async throws {
        let forged = PurchaseProof(
            store: .apple,
            kind: .appleSignedTransaction,
            token: Secret("forged-transaction"),
            productId: AuraLogicAccess.fullUnlockProductId,
            transactionId: "2000000001"
        )
        let sdk = try Self.openCat(store: FullUnlockStore(proof: forged), cache: Self.cacheFolder())

        let error = await #expect(throws: OpenCatError.self) {
            try await sdk.purchase(productID: AuraLogicAccess.fullUnlockProductId)
        }

        #expect(error?.code == .purchaseFailed)
        #expect(error?.underlying is SingleTransactionVerifier.Forged)
        #expect(!AuraLogicAccess(openCat: sdk).isUnlocked(level: 1, difficulty: .hard))
        #expect(AuraLogicAccess(openCat: sdk).needsPurchase(level: 11, difficulty: .easy))
        await sdk.shutdown()
    }
}

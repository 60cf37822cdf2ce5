import AuraLogicExample
import Crypto
import Foundation
import OpenCat
import OpenCatCore
import OpenCatTesting
import Testing

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

    @Test func buyingTheFullUnlockThroughOpenCatOpensHardLevels() async throws {
        let store = TestStoreClient()
        let verifier = TableVerifier()
        let proof = Fixture.proof("jws-unlock", product: AuraLogicAccess.fullUnlockProductId, transaction: "2000000001")
        store.script(AuraLogicAccess.fullUnlockProductId, .result(.success(proof)))
        verifier.set(
            "jws-unlock",
            .success(
                VerifiedTransaction(
                    transaction: Fixture.transaction(
                        "2000000001",
                        product: AuraLogicAccess.fullUnlockProductId
                    )
                )
            )
        )
        let sdk = try OpenCat(
            mode: .standalone(
                verifier: verifier,
                entitlements: AuraLogicAccess.entitlements,
                offerings: AuraLogicAccess.offerings
            ),
            appUserId: "player-1",
            storeClient: store,
            options: .init(
                cacheDirectory: Fixture.temporaryDirectory(),
                keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
                clock: ManualClock()
            )
        )
        #expect(!AuraLogicAccess(openCat: sdk).isUnlocked(level: 1, difficulty: .hard))
        _ = try await sdk.purchase(productID: AuraLogicAccess.fullUnlockProductId)
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 1, difficulty: .hard))
        #expect(AuraLogicAccess(openCat: sdk).isUnlocked(level: 999, difficulty: .insane))
    }
}

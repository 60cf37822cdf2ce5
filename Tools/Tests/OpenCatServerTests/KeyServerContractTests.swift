import Foundation
import KeyServerClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// One wire contract for the key server: every operation of the bundled keyserver.openapi.yaml, client → server →
/// client. The real KeyServerClient encodes KeyServerAPI's request bodies, the in-process server decodes them and
/// answers KeyServerAPI's types, and the client decodes the answer. An operation the document gains without a case
/// here fails the test.
@Suite(.serialized)
struct KeyServerContractTests {
    let keys = ServerKeyServerTests()

    /// A store that accepts every proof as a purchase of the fixture's key pack, after checking the proof the server
    /// built from the client's body.
    struct AcceptingStore: StoreAdapter {
        let store: Store
        let kind: PurchaseProof.Kind

        func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
            guard proof.store == store, proof.kind == kind, proof.token.revealed == "\(store)-proof" else {
                throw StoreAdapterError(.invalidProof, store: store, "not the proof the client sent")
            }
            if store == .google, proof.productId != ServerFixture.packProduct {
                throw StoreAdapterError(.productMismatch, store: store, "the body lost the product id")
            }
            return VerifiedPurchase(
                store: store,
                transactionId: "\(store)-transaction",
                productId: ServerFixture.packProduct,
                purchaseDate: ServerFixture.signedDate.addingTimeInterval(-60),
                state: .active,
                environment: .production
            )
        }
    }

    /// The operations of an OpenAPI document (`POST /api/v1/wallet/spend`, …), read from its `paths`.
    static func operations(in document: String) -> Set<String> {
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") {
                inPaths = line.hasPrefix("paths:")
                path = nil
            } else if inPaths, line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if inPaths, let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let name = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch"].contains(name), line.hasSuffix(":") {
                    operations.insert(name.uppercased() + " " + path)
                }
            }
        }
        return operations
    }

    @Test func everyOperationOfTheDocumentRoundTripsBetweenTheClientAndTheServer() async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let stores: [any StoreAdapter] = [
            AcceptingStore(store: .google, kind: .googleProductPurchaseToken),
            AcceptingStore(store: .stripe, kind: .stripePaymentIntent),
            AcceptingStore(store: .paypal, kind: .paypalOrder),
            AcceptingStore(store: .steam, kind: .steamTransaction),
        ]
        try await keys.withServer(
            .sqlite,
            clock: clock,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, stores: stores) }
        ) { fixture, urls in
            // The document the server bundles and serves.
            let (status, body, _) = try await ServerProcessTests.get(urls[0].absoluteString + "/openapi.yaml")
            try #require(status == 200)
            let documented = Self.operations(in: body)
            try #require(!documented.isEmpty)

            let context = Context(
                fixture: fixture,
                clock: clock,
                ada: keys.client(urls[0], user: 1),
                steamId: ServerFixture.users[1].steamId!
            )
            // In order: each case reads the state the ones before it left (5 packs of 12 keys, 1 to the pool each).
            let cases = Self.purchaseCases(context) + Self.walletCases(context)

            let covered = Set(cases.map(\.operation))
            #expect(documented.subtracting(covered).sorted() == [], "operations without a round-trip case")
            #expect(covered.subtracting(documented).sorted() == [], "cases for operations the document lacks")
            for (operation, run) in cases {
                let failure = await Self.failure(of: run)
                #expect(failure == nil, "\(operation)")
            }

            // The error answer, too: the server's envelope is what the client reads its code from.
            let refused = await keys.keyServerError {
                try await context.ada.spendKeys(
                    amount: 1_000,
                    feature: "echo",
                    app: "voiceuwu",
                    userId: "user-1",
                    idempotencyKey: "contract-overspend"
                )
            }
            #expect(refused?.status == 402)
            #expect(refused?.code == .insufficientBalance)
            #expect(refused?.serverCode == "insufficient_balance")
        }
    }

    /// What the cases share: the server's fixture and clock, the client of user 1 and that user's Steam id.
    struct Context {
        let fixture: ServerFixture
        let clock: TestClock
        let ada: KeyServerClient
        let steamId: String

        /// Checks a purchase answer: the fixture's pack (10 keys, 2 bonus, 1 to the pool, 2 licences that verify).
        func expectPurchase(_ result: KeyPurchaseResult, _ transactionId: String) throws {
            let verifier = LicenseVerifier(keys: ["2026-11": fixture.keyring.issuers["2026-11"]!.publicKey])
            #expect(result.keysAdded == 10)
            #expect(result.bonusKeys == 2)
            #expect(result.communityDonated == 1)
            #expect(result.transactionId == transactionId)
            #expect(result.licenses.count == 2)
            for key in result.licenses {
                let verified = try verifier.verify(key.license, at: ServerFixture.signedDate)
                #expect(verified.payload.key == key.keyValue)
                #expect(key.planType.description == "L2")
            }
        }

        /// A proof ``AcceptingStore`` accepts.
        func proof(_ store: Store, _ kind: PurchaseProof.Kind, productId: String? = nil) -> PurchaseProof {
            PurchaseProof(store: store, kind: kind, token: Secret("\(store)-proof"), productId: productId)
        }
    }

    typealias Case = (operation: String, run: () async throws -> Void)

    /// A purchase on each of the five platforms.
    static func purchaseCases(_ context: Context) -> [Case] {
        let ada = context.ada
        let fixture = context.fixture
        func expectPurchase(_ result: KeyPurchaseResult, _ transactionId: String) throws {
            try context.expectPurchase(result, transactionId)
        }
        func proof(_ store: Store, _ kind: PurchaseProof.Kind, productId: String? = nil) -> PurchaseProof {
            context.proof(store, kind, productId: productId)
        }
        let steamId = context.steamId
        return [
            (
                "POST /api/v1/keys/purchase/apple",
                {
                    let jws = fixture.appleTransaction(id: "4000000000000700")
                    let bought = try await ada.purchaseKeyPack(
                        PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws)),
                        email: "user1@example.com"
                    )
                    try expectPurchase(bought, "4000000000000700")
                }
            ),
            (
                "POST /api/v1/keys/purchase/google",
                {
                    let google = proof(.google, .googleProductPurchaseToken, productId: ServerFixture.packProduct)
                    try expectPurchase(
                        try await ada.purchaseKeyPack(google, email: "user1@example.com"),
                        "google-transaction"
                    )
                }
            ),
            (
                "POST /api/v1/keys/purchase/stripe",
                {
                    let stripe = proof(.stripe, .stripePaymentIntent)
                    try expectPurchase(
                        try await ada.purchaseKeyPack(stripe, email: "user1@example.com"),
                        "stripe-transaction"
                    )
                }
            ),
            (
                "POST /api/v1/keys/purchase/paypal",
                {
                    try expectPurchase(
                        try await ada.purchaseKeyPack(proof(.paypal, .paypalOrder), email: "user1@example.com"),
                        "paypal-transaction"
                    )
                }
            ),
            (
                "POST /api/v1/keys/purchase/steam",
                {
                    try expectPurchase(
                        try await ada.purchaseKeyPack(proof(.steam, .steamTransaction), steamId: steamId),
                        "steam-transaction"
                    )
                }
            ),
        ]
    }

    /// The wallet, apps, the community and key sync, after the purchases.
    static func walletCases(_ context: Context) -> [Case] {
        let ada = context.ada
        let fixture = context.fixture
        let clock = context.clock
        let steamId = context.steamId
        return [
            (
                "GET /api/v1/wallet/{userId}",
                {
                    let wallet = try await ada.walletBalance(userId: "user-1")
                    #expect(wallet.userId == "user-1")
                    #expect(wallet.balance == 60)
                    #expect(wallet.debt == 0)
                    #expect(wallet.unlockedFeatures.isEmpty)
                    #expect(wallet.updatedAt == clock.now)
                }
            ),
            (
                "POST /api/v1/wallet/spend",
                {
                    let spent = try await ada.spendKeys(
                        amount: 3,
                        feature: "echo",
                        app: "voiceuwu",
                        userId: "user-1",
                        idempotencyKey: "contract-spend"
                    )
                    #expect(spent.remainingBalance == 57)
                    // A spend pays for a use and unlocks nothing: echo is not unlocked until the unlock below.
                    #expect(!spent.featureUnlocked)
                    #expect(!spent.transactionId.isEmpty)
                }
            ),
            (
                "POST /api/v1/wallet/sync",
                {
                    let wallet = try await ada.syncWallet(userId: "user-1")
                    #expect(wallet.userId == "user-1")
                    #expect(wallet.balance == 57)
                }
            ),
            (
                "GET /api/v1/wallet/history/{userId}",
                {
                    let history = try await ada.walletHistory(userId: "user-1")
                    #expect(history.filter { $0.kind == "purchase" }.count == 5)
                    let spend = try #require(history.first { $0.kind == "spend" })
                    #expect(spend.amount == -3)
                    #expect(spend.feature == "echo")
                    #expect(spend.app == "voiceuwu")
                    #expect(spend.date == clock.now)
                }
            ),
            (
                "GET /api/v1/apps/{appId}/features",
                {
                    let features = try await ada.appFeatures(appId: "voiceuwu")
                    #expect(features == [AppFeature(id: "echo", appId: "voiceuwu", name: "Echo", cost: 3)])
                }
            ),
            (
                "POST /api/v1/apps/{appId}/unlock",
                {
                    let unlocked = try await ada.unlockFeature(
                        featureId: "echo",
                        appId: "voiceuwu",
                        userId: "user-1",
                        idempotencyKey: "contract-unlock"
                    )
                    #expect(unlocked.featureId == "echo")
                    #expect(unlocked.unlocked)
                    #expect(unlocked.remainingBalance == 54)
                    #expect(!unlocked.transactionId.isEmpty)
                }
            ),
            (
                "GET /api/v1/apps/{appId}/unlocked/{userId}",
                {
                    let unlocked = try await ada.unlockedFeatures(appId: "voiceuwu", userId: "user-1")
                    #expect(unlocked == ["echo"])
                }
            ),
            (
                "POST /api/v1/community/donate",
                {
                    let donation = try await ada.donateKeys(
                        amount: 2,
                        userId: "user-1",
                        idempotencyKey: "contract-donate"
                    )
                    #expect(donation == DonationResult(donated: 2, remainingBalance: 52, poolTotal: 7))
                }
            ),
            (
                "POST /api/v1/community/share",
                {
                    let share = try await ada.shareKeys(
                        amount: 1,
                        recipientEmail: "user2@example.com",
                        userId: "user-1",
                        idempotencyKey: "contract-share"
                    )
                    #expect(share.shared == 1)
                    #expect(share.recipientEmail == "user2@example.com")
                    #expect(share.remainingBalance == 51)
                    #expect(!share.transactionId.isEmpty)
                }
            ),
            (
                "GET /api/v1/community/pool",
                {
                    let pool = try await ada.communityPool()
                    #expect(pool.totalKeys == 7)
                    #expect(pool.contributors >= 1)
                    #expect(pool.updatedAt == clock.now)
                }
            ),
            (
                "GET /api/v1/keys/email/{email}",
                {
                    let synced = try await ada.keys(email: "user1@example.com")
                    #expect(synced.userEmail == "user1@example.com")
                    #expect(synced.availableKeys.count == 10)
                    #expect(synced.syncTimestamp == clock.now)
                    let list = try LicenseRevocationList(
                        try #require(synced.revocations),
                        keys: ["2026-11": fixture.keyring.issuers["2026-11"]!.publicKey]
                    )
                    #expect(list.revokedIDs.isEmpty)
                }
            ),
            (
                "GET /api/v1/keys/steam/{steamId}",
                {
                    let synced = try await ada.keys(steamId: steamId)
                    #expect(synced.userEmail == "user1@example.com")
                    #expect(synced.availableKeys.count == 10)
                }
            ),
        ]
    }

    /// What a case threw, described (nil when it ran through): the caller expects it nil, naming the operation.
    static func failure(of run: () async throws -> Void) async -> String? {
        do {
            try await run()
            return nil
        } catch {
            return String(describing: error)
        }
    }
}

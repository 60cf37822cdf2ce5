import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KeyServerClient
import Logging
import NIOCore
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Testing

/// The key server API end to end, on SQLite and on PostgreSQL: KeyServerClient against the reference server on
/// loopback, its App Store proofs verified by StoreAdapters.
@Suite(.serialized)
struct ServerKeyServerTests {
    static let transport = AsyncHTTPClientTransport()

    /// Runs `body` with a fixture on a fresh database and a live server on an ephemeral loopback port.
    func withServer(
        _ backend: Backend,
        instances: Int = 1,
        syncLimit: RateLimit? = nil,
        clock: TestClock = TestClock(ServerFixture.signedDate),
        configure: ((any LedgerStore, TestClock) throws -> ServerFixture)? = nil,
        _ body: (ServerFixture, [URL]) async throws -> Void
    ) async throws {
        try await backend.withStores(instances, now: { clock.now }) { stores in
            let fixtures = try stores.map { ledger in
                try configure?(ledger, clock) ?? ServerFixture(ledger: ledger, clock: clock, syncLimit: syncLimit)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                var urls: [URL] = []
                for fixture in fixtures {
                    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                    let app = fixture.server.application(port: 0) { continuation.yield($0) }
                    group.addTask { try await app.runService() }
                    for await port in stream {
                        urls.append(URL(string: "http://127.0.0.1:\(port)")!)
                        break
                    }
                }
                defer { group.cancelAll() }
                try await body(fixtures[0], urls)
            }
        }
    }

    func client(_ url: URL, user: Int) -> KeyServerClient {
        KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: url,
                token: Secret(ServerFixture.token(user)),
                // Generous: pinned to one core, the whole suite shares it with the server under test.
                timeout: .seconds(120),
                retryAttempts: 0,
                transport: Self.transport
            )
        )
    }

    func keyServerError(_ body: () async throws -> some Any) async -> KeyServerError? {
        do {
            _ = try await body()
            return nil
        } catch let error as KeyServerError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: Backend.allCases)
    func anAppleKeyPackMintsSignedLicensesOnceAndTheBuyerCanReplayIt(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let ada = client(urls[0], user: 1)
            let jws = fixture.appleTransaction(id: "4000000000000001")
            let proof = PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws))
            let result = try await ada.purchaseKeyPack(proof, email: "user1@example.com")
            #expect(result.keysAdded == 10)
            #expect(result.bonusKeys == 2)
            #expect(result.communityDonated == 1)
            #expect(result.transactionId == "4000000000000001")
            #expect(result.licenses.count == 2)
            let verifier = LicenseVerifier(keys: ["2026-11": fixture.keyring.issuers["2026-11"]!.publicKey])
            for key in result.licenses {
                let verified = try verifier.verify(key.license, at: ServerFixture.signedDate)
                #expect(verified.payload.plan.description == "L2")
                #expect(verified.payload.owner == "user1@example.com")
                #expect(verified.payload.key == key.keyValue)
            }
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
            #expect(try await ada.communityPool().totalKeys == 1)

            // The buyer retrying gets the same keys back; nobody else can redeem the transaction.
            let again = try await ada.purchaseKeyPack(proof, email: "user1@example.com")
            #expect(
                again.licenses.map(\.keyValue)
                    == result.licenses.map(\.keyValue).sorted { $0.description < $1.description }
            )
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
            let bob = client(urls[0], user: 2)
            let stolen = await keyServerError { try await bob.purchaseKeyPack(proof, email: "user2@example.com") }
            #expect(stolen?.serverCode == "already_redeemed")
            #expect(try await bob.walletBalance(userId: "user-2").balance == 0)

            // Key sync lists the account's licenses, for the token's own account only.
            let synced = try await ada.keys(email: "user1@example.com")
            #expect(Set(synced.availableKeys.map(\.keyValue)) == Set(result.licenses.map(\.keyValue)))
            let snooping = await keyServerError { try await bob.keys(email: "user1@example.com") }
            #expect(snooping?.status == 403)
        }
    }

    @Test(arguments: Backend.allCases)
    func forgedCrossAppAndUnpaidProofsAreRefusedWithTheSharedCodes(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let ada = client(urls[0], user: 1)
            func refusal(_ jws: String) async -> KeyServerError? {
                await keyServerError {
                    try await ada.purchaseKeyPack(
                        PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws)),
                        email: "user1@example.com"
                    )
                }
            }
            let forged = await refusal(fixture.appleTransaction(id: "4000000000000002", signer: fixture.otherCA))
            #expect(forged?.code == .purchaseRejected)
            #expect(forged?.status == 422)
            let tampered = fixture.appleTransaction(id: "4000000000000003").split(separator: ".")
            let swapped = fixture.appleTransaction(id: "4000000000000099").split(separator: ".")
            let spliced = await refusal([tampered[0], swapped[1], tampered[2]].joined(separator: "."))
            #expect(spliced?.code == .purchaseRejected)
            let otherApp = await refusal(fixture.appleTransaction(id: "4000000000000004", bundleId: "com.other.app"))
            #expect(otherApp?.code == .purchaseRejected)
            let refunded = await refusal(
                fixture.appleTransaction(
                    id: "4000000000000005",
                    revoked: ServerFixture.signedDate.addingTimeInterval(-5)
                )
            )
            #expect(refunded?.code == .purchaseRejected)
            let notAPack = await refusal(fixture.appleTransaction(id: "4000000000000006", productId: "dev.other"))
            #expect(notAPack?.code == .purchaseRejected)
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            let licenses = try await fixture.ledger.licenses(of: "user-1")
            #expect(licenses.isEmpty)
            // A purchase cannot be credited to somebody else's email.
            let elsewhere = await keyServerError {
                try await ada.purchaseKeyPack(
                    PurchaseProof(
                        store: .apple,
                        kind: .appleSignedTransaction,
                        token: Secret(fixture.appleTransaction(id: "4000000000000007"))
                    ),
                    email: "user2@example.com"
                )
            }
            #expect(elsewhere?.status == 403)
        }
    }

    @Test(arguments: Backend.allCases)
    func oneAppleTransactionRedeemedAHundredTimesConcurrentlyMintsOnce(_ backend: Backend) async throws {
        try await withServer(backend, instances: backend == .postgresql ? 2 : 1) { fixture, urls in
            let jws = fixture.appleTransaction(id: "4000000000000100")
            let successes = try await withThrowingTaskGroup(of: Int.self) { group in
                for user in 0..<100 {
                    group.addTask {
                        let proof = PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws))
                        do {
                            _ = try await client(urls[user % urls.count], user: user)
                                .purchaseKeyPack(proof, email: "user\(user)@example.com")
                            return 1
                        } catch let error as KeyServerError where error.serverCode == "already_redeemed" {
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(successes == 1)
            var minted = 0
            var credited: Int64 = 0
            for user in 0..<100 {
                minted += try await fixture.ledger.licenses(of: "user-\(user)").count
                credited += try await fixture.ledger.balance(of: "user-\(user)")
            }
            #expect(minted == 2)
            #expect(credited == 12)
        }
    }

    @Test(arguments: Backend.allCases)
    func aUserMovesOnlyTheirOwnKeysAndEveryMoveIsInTheLedger(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let ada = client(urls[0], user: 1)
            let bob = client(urls[0], user: 2)
            _ = try await ada.purchaseKeyPack(
                PurchaseProof(
                    store: .apple,
                    kind: .appleSignedTransaction,
                    token: Secret(fixture.appleTransaction(id: "4000000000000200"))
                ),
                email: "user1@example.com"
            )
            // Bob cannot read, spend, unlock, give or sync Ada's keys.
            #expect(await keyServerError { try await bob.walletBalance(userId: "user-1") }?.status == 403)
            #expect(await keyServerError { try await bob.walletHistory(userId: "user-1") }?.status == 403)
            #expect(
                await keyServerError {
                    try await bob.spendKeys(
                        amount: 1,
                        feature: "echo",
                        app: "voiceuwu",
                        userId: "user-1",
                        idempotencyKey: "b1"
                    )
                }?.status == 403
            )
            #expect(
                await keyServerError {
                    try await bob.unlockFeature(
                        featureId: "echo",
                        appId: "voiceuwu",
                        userId: "user-1",
                        idempotencyKey: "b2"
                    )
                }?.status == 403
            )
            #expect(
                await keyServerError { try await bob.donateKeys(amount: 1, userId: "user-1", idempotencyKey: "b3") }?
                    .status == 403
            )
            #expect(
                await keyServerError {
                    try await bob.shareKeys(
                        amount: 1,
                        recipientEmail: "user2@example.com",
                        userId: "user-1",
                        idempotencyKey: "b4"
                    )
                }?.status == 403
            )
            #expect(await keyServerError { try await bob.keys(steamId: "76561198000000001") }?.status == 403)
            #expect(
                await keyServerError { try await bob.unlockedFeatures(appId: "voiceuwu", userId: "user-1") }?.status
                    == 403
            )
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)

            // Ada's own moves: unlock (once), spend, share, donate — each applied once per idempotency key.
            let unlocked = try await ada.unlockFeature(
                featureId: "echo",
                appId: "voiceuwu",
                userId: "user-1",
                idempotencyKey: "u1"
            )
            #expect(unlocked.remainingBalance == 9)
            let again = try await ada.unlockFeature(
                featureId: "echo",
                appId: "voiceuwu",
                userId: "user-1",
                idempotencyKey: "u2"
            )
            #expect(again.remainingBalance == 9)
            #expect(try await ada.unlockedFeatures(appId: "voiceuwu", userId: "user-1") == ["echo"])
            #expect(try await ada.walletBalance(userId: "user-1").unlockedFeatures == ["voiceuwu": ["echo"]])
            let spent = try await ada.spendKeys(
                amount: 2,
                feature: "tts",
                app: "voiceuwu",
                userId: "user-1",
                idempotencyKey: "s1"
            )
            #expect(spent.remainingBalance == 7)
            let replayed = try await ada.spendKeys(
                amount: 2,
                feature: "tts",
                app: "voiceuwu",
                userId: "user-1",
                idempotencyKey: "s1"
            )
            #expect(replayed.transactionId == spent.transactionId)
            #expect(replayed.remainingBalance == 7)
            let shared = try await ada.shareKeys(
                amount: 3,
                recipientEmail: "user2@example.com",
                userId: "user-1",
                idempotencyKey: "sh1"
            )
            #expect(shared.remainingBalance == 4)
            _ = try await ada.shareKeys(
                amount: 3,
                recipientEmail: "user2@example.com",
                userId: "user-1",
                idempotencyKey: "sh1"
            )
            #expect(try await bob.walletBalance(userId: "user-2").balance == 3)
            // An email without an account gets the same answer as one with (nobody learns who is a customer).
            let toNobody = await keyServerError {
                try await ada.shareKeys(
                    amount: 5,
                    recipientEmail: "nobody@example.com",
                    userId: "user-1",
                    idempotencyKey: "sh2"
                )
            }
            let toBob = await keyServerError {
                try await ada.shareKeys(
                    amount: 5,
                    recipientEmail: "user2@example.com",
                    userId: "user-1",
                    idempotencyKey: "sh3"
                )
            }
            #expect(toNobody?.status == 402 && toBob?.status == 402 && toNobody?.code == toBob?.code)
            let donated = try await ada.donateKeys(amount: 4, userId: "user-1", idempotencyKey: "d1")
            #expect(donated.remainingBalance == 0)
            #expect(donated.poolTotal == 5)
            let broke = await keyServerError {
                try await ada.spendKeys(
                    amount: 1,
                    feature: "tts",
                    app: "voiceuwu",
                    userId: "user-1",
                    idempotencyKey: "s2"
                )
            }
            #expect(broke?.code == .insufficientBalance)
            let pool = try await ada.communityPool()
            #expect(pool.totalKeys == 5)
            #expect(pool.contributors == 1)
            let history = try await ada.walletHistory(userId: "user-1")
            #expect(history.map(\.kind) == ["purchase", "unlock", "spend", "share", "donation"])
            #expect(history.reduce(0) { $0 + $1.amount } == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func anAppleRefundNotificationRevokesTheLicensesAndClawsTheKeysBackOnce(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let ada = client(urls[0], user: 1)
            let jws = fixture.appleTransaction(id: "4000000000000300")
            _ = try await ada.purchaseKeyPack(
                PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws)),
                email: "user1@example.com"
            )
            _ = try await ada.spendKeys(
                amount: 5,
                feature: "tts",
                app: "voiceuwu",
                userId: "user-1",
                idempotencyKey: "s"
            )
            let refunded = fixture.appleTransaction(
                id: "4000000000000300",
                revoked: ServerFixture.signedDate.addingTimeInterval(-1)
            )
            let body = try fixture.appleNotification(
                type: "REFUND",
                uuid: "a1b2c3d4-0000-0000-0000-000000000001",
                transaction: refunded
            )
            for expected in [true, false] {
                var request = HTTPRequest(
                    method: .post,
                    scheme: "http",
                    authority: urls[0].host! + ":\(urls[0].port!)",
                    path: "/v1/notifications/apple"
                )
                request.headerFields[.contentType] = "application/json"
                let response = try await Self.transport.send(request, body: body)
                #expect(response.head.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self).contains("\"applied\":\(expected)"))
            }
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
            #expect(try await ada.keys(email: "user1@example.com").availableKeys.isEmpty)
            let history = try await ada.walletHistory(userId: "user-1")
            #expect(history.last?.kind == "refund")
            // The whole pack (12) is taken back: 7 held, 5 already spent, which is now debt.
            #expect(history.last?.amount == -12)

            // A forged notification is refused and changes nothing.
            var forged = HTTPRequest(
                method: .post,
                scheme: "http",
                authority: urls[0].host! + ":\(urls[0].port!)",
                path: "/v1/notifications/apple"
            )
            forged.headerFields[.contentType] = "application/json"
            let payload = try JSONSerialization.data(withJSONObject: [
                "signedPayload": fixture.otherCA.signJWS(payload: Data("{}".utf8))
            ])
            let answer = try await Self.transport.send(forged, body: payload)
            #expect(answer.head.status == .badRequest)
        }
    }

    @Test func keySyncIsRateLimitedWithRetryAfter() async throws {
        try await withServer(.sqlite, syncLimit: RateLimit(requests: 2, seconds: 60)) { fixture, urls in
            let ada = client(urls[0], user: 1)
            _ = try await ada.keys(email: "user1@example.com")
            _ = try await ada.keys(steamId: "76561198000000001")
            let limited = await keyServerError { try await ada.keys(email: "user1@example.com") }
            #expect(limited?.code == .rateLimited)
            #expect(limited?.status == 429)
            fixture.clock.advance(31)
            _ = try await ada.keys(email: "user1@example.com")
        }
    }

    @Test func licensesSignedBeforeARotationStillVerify() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-keys-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = try LicenseKeyring.generate(kid: "2026-01", in: folder)
        let clock = TestClock(ServerFixture.signedDate)
        try await Backend.sqlite.withStores(now: { clock.now }) { stores in
            let before = try ServerFixture(
                ledger: stores[0],
                clock: clock,
                keyring: try LicenseKeyring(folder: folder, activeKid: "2026-01")
            )
            _ = try await before.ledger.redeem(
                store: "apple",
                transactionId: "t-old",
                userId: "user-1",
                grant: KeyGrant(
                    keys: 1,
                    licenses: try before.keyring.mint(
                        count: 1,
                        plan: PlanLevel("L1")!,
                        owner: "o",
                        purchasedAt: clock.now
                    )
                    .map {
                        LicenseRecord(
                            keyValue: $0.keyValue.description,
                            userId: "user-1",
                            plan: "L1",
                            license: $0.license.rawValue,
                            store: "apple",
                            transactionId: "t-old",
                            createdAt: clock.now
                        )
                    }
                )
            )
            let new = try LicenseKeyring.generate(kid: "2026-11", in: folder)
            #expect(throws: ServerConfigurationError.self) { try LicenseKeyring.generate(kid: "2026-11", in: folder) }
            let rotated = try LicenseKeyring(folder: folder, activeKid: "2026-11")
            #expect(rotated.publicKeys.count == 2)
            let minted = try rotated.mint(count: 1, plan: PlanLevel("L1")!, owner: "o", purchasedAt: clock.now)
            #expect(try minted[0].license.unverifiedPayload().kid == "2026-11")
            let verifier = LicenseVerifier(keys: [old.kid: old.publicKey, new.kid: new.publicKey])
            for record in try await stores[0].licenses(of: "user-1") {
                #expect(try verifier.verify(record.license, at: clock.now).payload.kid == "2026-01")
            }
            _ = try verifier.verify(minted[0].license, at: clock.now)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundBeforeAnyRedemptionMeansTheOldProofNeverRedeems(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let ada = client(urls[0], user: 1)
            // The pre-refund JWS still verifies offline as paid; the refund notification arrives first.
            let paid = fixture.appleTransaction(id: "4000000000000400")
            let refunded = fixture.appleTransaction(
                id: "4000000000000400",
                revoked: ServerFixture.signedDate.addingTimeInterval(-1)
            )
            let body = try fixture.appleNotification(type: "REFUND", uuid: "uuid-refund-400", transaction: refunded)
            var request = HTTPRequest(
                method: .post,
                scheme: "http",
                authority: "127.0.0.1:\(urls[0].port!)",
                path: "/v1/notifications/apple"
            )
            request.headerFields[.contentType] = "application/json"
            #expect(try await Self.transport.send(request, body: body).head.status == .ok)
            let refusal = await keyServerError {
                try await ada.purchaseKeyPack(
                    PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(paid)),
                    email: "user1@example.com"
                )
            }
            #expect(refusal?.serverCode == "refunded")
            #expect(try await ada.walletBalance(userId: "user-1").balance == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func idsWithReservedCharactersArePercentDecoded(_ backend: Backend) async throws {
        try await withServer(backend) { fixture, urls in
            let odd = client(urls[0], user: 119)
            let user = ServerFixture.users[119].userId
            #expect(user.contains("@") && user.contains(":"))
            let wallet = try await odd.walletBalance(userId: user)
            let history = try await odd.walletHistory(userId: user)
            let unlocked = try await odd.unlockedFeatures(appId: "voiceuwu", userId: user)
            #expect(wallet.balance == 0 && wallet.userId == user)
            #expect(history.isEmpty && unlocked.isEmpty)
        }
    }

    @Test func anIdempotencyKeyReusedForAnotherAppIsAConflictNotAFreeUnlock() async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await Backend.sqlite.withStores(now: { clock.now }) { stores in
            let ledger = stores[0]
            _ = try await ledger.redeem(store: "apple", transactionId: "t", userId: "u", amount: 10)
            _ = try await ledger.unlock(userId: "u", app: "a", feature: "pro", cost: 3, idempotencyKey: "k")
            await #expect(throws: LedgerError.self) {
                try await ledger.unlock(userId: "u", app: "b", feature: "pro", cost: 3, idempotencyKey: "k")
            }
            #expect(try await ledger.unlockedFeatures(of: "u") == ["a": ["pro"]])
            #expect(try await ledger.balance(of: "u") == 7)
        }
    }

    @Test func noSecretReachesTheLogs() async throws {
        let capture = LogCapture()
        var logger = capture.logger("tests.server")
        logger.logLevel = .trace
        try await withServer(
            .sqlite,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, logger: logger) }
        ) { fixture, urls in
            let ada = client(urls[0], user: 1)
            let transaction = fixture.appleTransaction(id: "4000000000000500")
            let bought = try await ada.purchaseKeyPack(
                PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(transaction)),
                email: "user1@example.com"
            )
            _ = await keyServerError {
                try await ada.purchaseKeyPack(
                    PurchaseProof(
                        store: .apple,
                        kind: .appleSignedTransaction,
                        token: Secret(fixture.appleTransaction(id: "4000000000000501", signer: fixture.otherCA))
                    ),
                    email: "user1@example.com"
                )
            }
            _ = await keyServerError { try await client(urls[0], user: 2).walletBalance(userId: "user-1") }
            #expect(capture.contains("key pack redeemed"))
            let secrets =
                [transaction, ServerFixture.token(1), ServerFixture.token(2)]
                + bought.licenses.flatMap { [$0.license.rawValue, $0.keyValue.description] }
            for secret in secrets {
                #expect(!capture.text.contains(secret))
                #expect(!capture.text.contains(String(secret.prefix(24))))
            }
        }
    }
}

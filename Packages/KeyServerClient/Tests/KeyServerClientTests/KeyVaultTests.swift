import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing

/// The vault offline and through a sync: licenses verify with no server, offline spends are confirmed once or
/// reverted, across restarts; the cache file holds no key or license in clear.
struct KeyVaultTests {
    static let start = Date(timeIntervalSince1970: 1_795_348_800)
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyvault-\(UUID().uuidString)")
    let keyProvider = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: start, autoAdvance: true, holdsDuringExternalWork: true)
    let transport = ScriptedTransport()

    var verifier: LicenseVerifier { LicenseVerifier(keys: [issuer.kid: issuer.publicKey]) }

    func client() -> KeyServerClient {
        KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: URL(string: "https://keys.example.test")!,
                token: "tok_live_secret_123",
                transport: transport,
                clock: clock
            )
        )
    }

    func vault(online: Bool = true) throws -> KeyVault {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try KeyVault(
            fileURL: directory.appendingPathComponent("vault.sqlite"),
            keyProvider: keyProvider,
            userId: "u1",
            verifier: verifier,
            client: online ? client() : nil,
            clock: clock
        )
    }

    func key(_ seed: Int, plan: Int = 2) throws -> VULicenseKey {
        let level = PlanLevel(level: plan)!
        let human = HumanKey(dataValues: HumanKeyTests.values(seed), plan: level)
        let license = try issuer.sign(
            LicensePayload(key: human, plan: level, owner: "ada@example.com", purchasedAt: Self.start, kid: "")
        )
        return VULicenseKey(keyValue: human, planType: level, purchaseDate: Self.start, license: license)
    }

    func wallet(_ balance: Int, unlocked: [String: [String]] = [:]) -> String {
        let features = unlocked.map { "\"\($0.key)\":[\($0.value.map { "\"\($0)\"" }.joined(separator: ","))]" }
        return
            #"{"userId":"u1","balance":\#(balance),"unlockedFeatures":{\#(features.joined(separator: ","))},"updatedAt":"2026-11-22T12:00:00Z"}"#
    }

    @Test func storedLicensesValidateAndUnlockWithNoServerAcrossARestart() async throws {
        do {
            let vault = try vault(online: false)
            let added = try await vault.store([try key(1), try key(2, plan: 5)])
            #expect(added.count == 2)
            #expect(try await vault.store([try key(1)]).isEmpty)  // merged, not duplicated
        }
        let reopened = try vault(online: false)
        #expect(reopened.licenses.count == 2)
        #expect(reopened.validLicenses().count == 2)
        #expect(reopened.highestPlan()?.level == 5)
        #expect(transport.requests.isEmpty)
    }

    @Test func aForgedLicenseIsNotStored() async throws {
        let vault = try vault(online: false)
        var forged = try key(3)
        forged.license = try LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
            .sign(try forged.license.unverifiedPayload())
        await #expect(throws: KeyVaultError.self) { try await vault.store([try key(4), forged]) }
        // The license that verifies is kept; the forged one is not.
        #expect(vault.licenses.map(\.keyValue) == [try key(4).keyValue])
    }

    @Test func anOfflineSpendIsConfirmedExactlyOnceAfterARestart() async throws {
        transport.on(.post, "/api/v1/wallet/sync", times: 1, json: wallet(10))
        do {
            let vault = try vault()
            _ = await vault.sync()
            #expect(vault.balance == 10)
        }
        // Offline: the spend applies here and waits.
        transport.on(.post, "/api/v1/wallet/spend", times: 3, reply: .transportError(.connectionFailed))
        do {
            let vault = try vault()
            #expect(try await vault.spend(amount: 4, feature: "voice-pack", app: "voiceuwu") == .pending)
            #expect(vault.balance == 6 && vault.isUnlocked("voice-pack", app: "voiceuwu"))
            #expect(vault.history.map(\.amount) == [-4])
            await #expect(throws: KeyVaultError.self) {
                try await vault.spend(amount: 7, feature: "x", app: "voiceuwu")
            }
            #expect(vault.balance == 6)
        }
        // Back online after a restart: confirmed once, however many syncs run.
        transport.on(
            .post,
            "/api/v1/wallet/spend",
            times: 1,
            json: #"{"remainingBalance":6,"featureUnlocked":true,"transactionId":"sp_1"}"#
        )
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(6, unlocked: ["voiceuwu": ["voice-pack"]]))
        transport.on(
            .get,
            "/api/v1/wallet/history/u1",
            json:
                #"{"transactions":[{"kind":"purchase","id":"kp_1","amount":10,"date":"2026-11-22T11:00:00Z"},{"kind":"spend","id":"sp_1","amount":-4,"feature":"voice-pack","app":"voiceuwu","date":"2026-11-22T12:00:00Z"}]}"#
        )
        let vault = try vault()
        #expect(vault.history.map(\.amount) == [-4])  // the offline spend's entry survived the restart
        #expect(vault.pendingSpendCount == 1 && vault.isUnlocked("voice-pack", app: "voiceuwu"))
        async let first = vault.sync()
        async let second = vault.sync()
        let reports = await [first, second]
        #expect(reports.map(\.confirmed).reduce(0, +) == 1)
        #expect(vault.pendingSpendCount == 0 && vault.balance == 6)
        #expect(vault.isUnlocked("voice-pack", app: "voiceuwu"))
        #expect(vault.history.map(\.id) == ["kp_1", "sp_1"])  // the server's history replaces the local entry
        let spends = transport.requests(matching: "/wallet/spend")
        #expect(Set(spends.map { $0.request.headerFields[.init("Idempotency-Key")!] }).count == 1)
    }

    @Test func aSpendTheServerRefusesIsRevertedAndTheFeatureLockedAgain() async throws {
        transport.on(.post, "/api/v1/wallet/sync", times: 1, json: wallet(5))
        let vault = try vault()
        _ = await vault.sync()
        transport.on(.post, "/api/v1/wallet/spend", times: 3, reply: .transportError(.connectionFailed))
        #expect(try await vault.spend(amount: 5, feature: "echo", app: "voiceuwu") == .pending)
        #expect(vault.isUnlocked("echo", app: "voiceuwu") && vault.balance == 0)
        transport.on(
            .post,
            "/api/v1/wallet/spend",
            status: 402,
            json: #"{"error":{"code":"insufficient_balance","message":"not enough keys"}}"#
        )
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(0))
        let report = await vault.sync()
        #expect(report.reverted.map(\.reason) == [.insufficientBalance])
        #expect(report.reverted.first?.feature == "echo")
        #expect(!vault.isUnlocked("echo", app: "voiceuwu"))
        #expect(vault.pendingSpendCount == 0)
    }

    @Test func theCacheFileHoldsNoKeyNoLicenseAndNoTokenInClear() async throws {
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(3))
        let vault = try vault()
        let stored = try key(7)
        try await vault.store([stored])
        _ = await vault.sync()
        let bytes = try Data(contentsOf: directory.appendingPathComponent("vault.sqlite"))
        let needles = [
            stored.keyValue.description, String(stored.license.rawValue.prefix(40)), "tok_live_secret_123",
            "ada@example.com",
        ]
        for needle in needles {
            #expect(bytes.range(of: Data(needle.utf8)) == nil)
        }
    }

    @Test func aKeyPackBoughtThroughTheVaultIsStoredVerifiedAndTheWalletRefreshed() async throws {
        let keys = try [key(11), key(12)]
        let json = keys.map {
            #"{"keyValue":"\#($0.keyValue)","planType":"L2","purchaseDate":"2026-11-22T12:00:00Z","license":"\#($0.license.rawValue)"}"#
        }
        transport.on(
            .post,
            "/api/v1/keys/purchase/stripe",
            times: 1,
            json:
                #"{"keysAdded":1,"bonusKeys":1,"communityDonated":0,"transactionId":"kp_9","licenses":[\#(json.joined(separator: ","))]}"#
        )
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(2))
        let vault = try vault()
        let result = try await vault.purchaseKeyPack(
            PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: "pi_9"),
            email: "ada@example.com"
        )
        #expect(result.transactionId == "kp_9")
        #expect(vault.licenseCount == 2 && vault.balance == 2)
        #expect(vault.validLicenses().count == 2)
        let body = try #require(transport.requests(matching: "/keys/purchase/stripe").first?.bodyText)
        #expect(body.contains(#""paymentIntentId":"pi_9""#) && body.contains(#""userEmail":"ada@example.com""#))
        await #expect(throws: KeyVaultError.self) {
            try await self.vault(online: false).purchaseKeyPack(
                PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: "pi_9"),
                email: "ada@example.com"
            )
        }
    }

    @Test func anAnswerThatMayHideACompletedSpendKeepsItPendingInsteadOfReverting() async throws {
        transport.on(.post, "/api/v1/wallet/sync", times: 1, json: wallet(5))
        let vault = try vault()
        _ = await vault.sync()
        // 200 with a truncated body, then 409: the server may have taken the keys; nothing is undone.
        transport.on(.post, "/api/v1/wallet/spend", times: 1, json: #"{"remainingBalance":"#)
        #expect(try await vault.spend(amount: 2, feature: "echo", app: "voiceuwu") == .pending)
        transport.on(.post, "/api/v1/wallet/spend", times: 1, status: 409, json: #"{"error":{"code":"conflict"}}"#)
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(3, unlocked: ["voiceuwu": ["echo"]]))
        let report = await vault.sync()
        #expect(report.reverted.isEmpty && report.stillPending == 1)
        #expect(vault.isUnlocked("echo", app: "voiceuwu") && vault.balance == 1)  // 3 from the server, 2 pending
        transport.on(
            .post,
            "/api/v1/wallet/spend",
            times: 1,
            json: #"{"remainingBalance":3,"featureUnlocked":true,"transactionId":"sp"}"#
        )
        #expect(await vault.sync().confirmed == 1)
        #expect(vault.balance == 3 && vault.pendingSpendCount == 0)
    }

    @Test func aStateThatCannotBeReadIsNeverReplacedByAnEmptyVault() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = try EncryptedCache(
            fileURL: directory.appendingPathComponent("vault.sqlite"),
            keyProvider: keyProvider,
            logger: LogCapture().logger
        )
        try cache.setValue(["balance": "not a number"], forKey: "keyvault:u1")
        #expect(throws: KeyVaultError.self) {
            try KeyVault(cache: cache, userId: "u1", verifier: verifier, clock: clock)
        }
        #expect(cache.value([String: String].self, forKey: "keyvault:u1") == ["balance": "not a number"])
    }

    @Test func aHostileBalanceCannotCrashTheVault() async throws {
        transport.on(.post, "/api/v1/wallet/sync", times: 1, json: wallet(3))
        let vault = try vault()
        _ = await vault.sync()
        transport.on(.post, "/api/v1/wallet/spend", times: 3, reply: .transportError(.connectionFailed))
        _ = try await vault.spend(amount: 1, feature: "f", app: "a")
        transport.on(.post, "/api/v1/wallet/spend", times: 3, reply: .transportError(.connectionFailed))
        transport.on(.post, "/api/v1/wallet/sync", json: wallet(Int.min))
        _ = await vault.sync()
        #expect(vault.balance == 0)
    }
}

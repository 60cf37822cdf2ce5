import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing

/// Keys for All: the cooldown on the test clock, merging without loss or duplicates, and secrets kept out of every
/// log line and error description during a whole flow.
struct KeysForAllSyncTests {
    static let start = Date(timeIntervalSince1970: 1_795_348_800)
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keysforall-\(UUID().uuidString)")
    let keyProvider = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: start, autoAdvance: true, holdsDuringExternalWork: true)
    let transport = ScriptedTransport()
    let logs = LogCapture()
    static let token = "tok_secret_sync_0001"

    func client(autoSync: Bool = true) -> KeyServerClient {
        KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: URL(string: "https://keys.example.test")!,
                token: Secret(Self.token),
                autoSyncOnOpen: autoSync,
                transport: transport,
                clock: clock,
                logger: logs.logger
            )
        )
    }

    func sync(email: String? = "ada@example.com", autoSync: Bool = true) throws -> KeysForAllSync {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let vault = try KeyVault(
            fileURL: directory.appendingPathComponent("vault.sqlite"),
            keyProvider: keyProvider,
            userId: "u1",
            verifier: LicenseVerifier(keys: [issuer.kid: issuer.publicKey]),
            client: client(autoSync: autoSync),
            clock: clock,
            logger: logs.logger
        )
        return KeysForAllSync(vault: vault, client: client(autoSync: autoSync), email: email)
    }

    func keyJSON(_ seed: Int) throws -> (String, HumanKey, SignedLicense) {
        let plan = PlanLevel(level: 2)!
        let key = HumanKey(dataValues: HumanKeyTests.values(seed), plan: plan)
        let license = try issuer.sign(
            LicensePayload(key: key, plan: plan, owner: "ada@example.com", purchasedAt: Self.start, kid: "")
        )
        let json =
            #"{"keyValue":"\#(key)","planType":"L2","purchaseDate":"2026-11-22T12:00:00Z","license":"\#(license.rawValue)"}"#
        return (json, key, license)
    }

    func answer(_ seeds: [Int]) throws -> String {
        let keys = try seeds.map { try keyJSON($0).0 }.joined(separator: ",")
        return #"{"userEmail":"ada@example.com","syncTimestamp":"2026-11-22T12:00:00Z","availableKeys":[\#(keys)]}"#
    }

    var syncRequests: Int { transport.requests(matching: "/keys/email/").count }

    @Test func autoSyncRespectsTheCooldownOnTheClockAndManualSyncIgnoresIt() async throws {
        transport.on(.get, "/api/v1/keys/email/", json: try answer([1, 2]))
        let sync = try sync()
        #expect(sync.canSync())
        #expect(try await sync.autoSyncOnOpen().count == 2)
        #expect(try await sync.autoSyncOnOpen().isEmpty)
        #expect(syncRequests == 1)
        clock.advance(by: .seconds(299))
        #expect(try await sync.autoSyncOnOpen().isEmpty)
        #expect(syncRequests == 1)
        #expect(try await sync.manualSync().isEmpty)  // ignores the cooldown; nothing new
        #expect(syncRequests == 2)
        clock.advance(by: .seconds(300))
        _ = try await sync.autoSyncOnOpen()
        #expect(syncRequests == 3)
        // The cooldown survives a restart: the vault remembers the last sync.
        let reopened = try self.sync()
        #expect(try await reopened.autoSyncOnOpen().isEmpty)
        #expect(syncRequests == 3)
    }

    @Test func withoutAnAccountOrWithAutoSyncOffNothingIsAsked() async throws {
        #expect(try sync(email: nil).canSync() == false)
        #expect(try await sync(email: "not-an-email").autoSyncOnOpen().isEmpty)
        #expect(try await sync(autoSync: false).autoSyncOnOpen().isEmpty)
        #expect(transport.requests.isEmpty)
    }

    @Test func mergeKeepsLocalKeysAndAddsOnlyNewOnesAcrossARestart() async throws {
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: try answer([1, 2]))
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: try answer([2, 3]))
        let first = try sync()
        #expect(try await first.manualSync().count == 2)
        let second = try sync()  // a restart
        let added = try await second.manualSync()
        #expect(added.map(\.keyValue) == [try keyJSON(3).1])
        #expect(Set(second.vault.licenses.map(\.keyValue)) == Set(try [1, 2, 3].map { try keyJSON($0).1 }))
    }

    @Test func aFailedSyncLeavesEveryStoredKeyWorkingAndSaysWhy() async throws {
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: try answer([4]))
        let sync = try sync()
        _ = try await sync.manualSync()
        transport.on(.get, "/api/v1/keys/email/", times: 3, reply: .transportError(.connectionFailed))
        await #expect { try await sync.manualSync() } throws: { ($0 as? KeyServerError)?.code == .network }
        transport.on(.get, "/api/v1/keys/email/", times: 1, status: 503, json: "{}")
        transport.on(.get, "/api/v1/keys/email/", times: 2, status: 503, json: "{}")
        await #expect { try await sync.manualSync() } throws: { ($0 as? KeyServerError)?.code == .serverUnavailable }
        transport.on(.get, "/api/v1/keys/email/", times: 1, status: 401, json: #"{"error":{"code":"unauthorized"}}"#)
        await #expect { try await sync.manualSync() } throws: { ($0 as? KeyServerError)?.code == .unauthorized }
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: #"{"userEmail":"ada@example.com""#)
        await #expect { try await sync.manualSync() } throws: {
            ($0 as? KeyServerError)?.code == .malformedResponse
        }
        #expect(sync.vault.validLicenses().count == 1)
    }

    @Test func noTokenKeyOrLicenseAppearsInAnyLogLineOrErrorDescription() async throws {
        let (json, key, license) = try keyJSON(9)
        transport.on(
            .get,
            "/api/v1/keys/email/",
            times: 1,
            json: #"{"userEmail":"ada@example.com","syncTimestamp":"2026-11-22T12:00:00Z","availableKeys":[\#(json)]}"#
        )
        transport.on(
            .post,
            "/api/v1/wallet/sync",
            times: 1,
            json: #"{"userId":"u1","balance":5,"unlockedFeatures":{},"updatedAt":"2026-11-22T12:00:00Z"}"#
        )
        transport.on(
            .post,
            "/api/v1/wallet/spend",
            times: 1,
            status: 402,
            json: #"{"error":{"code":"insufficient_balance"}}"#
        )
        transport.on(.get, "/api/v1/keys/email/", status: 500, json: #"{"error":{"message":"\#(license.rawValue)"}}"#)
        let sync = try sync()
        var errors: [String] = []
        _ = try await sync.manualSync()
        _ = await sync.vault.sync()
        do { _ = try await sync.vault.spend(amount: 2, feature: "echo", app: "voiceuwu") } catch {
            errors.append(String(describing: error))
            errors.append(String(reflecting: error))
        }
        do { _ = try await sync.manualSync() } catch {
            errors.append(String(describing: error))
        }
        do { _ = try HumanKey("VUUW-0000-0000-0001-L2") } catch { errors.append(String(describing: error)) }
        do { _ = try LicenseVerifier(keys: [:]).verify(license, at: Self.start) } catch {
            errors.append(String(describing: error))
        }
        #expect(errors.count >= 5)
        let secrets = [Self.token, key.description, license.rawValue, String(license.rawValue.dropFirst(4).prefix(24))]
        for text in logs.all + errors {
            for secret in secrets { #expect(!text.contains(secret), "leaked in: \(text)") }
        }
        #expect(!logs.all.isEmpty)
    }

    @Test func keysBoughtJustNowAreStoredOnADeviceWhoseClockRunsSlow() async throws {
        // The server minted the key at 12:00 and answers at 12:00; the device thinks it is 11:00.
        clock.advance(by: .seconds(0))
        let slow = ManualClock(start: Self.start.addingTimeInterval(-3600))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let vault = try KeyVault(
            fileURL: directory.appendingPathComponent("slow.sqlite"),
            keyProvider: keyProvider,
            userId: "u1",
            verifier: LicenseVerifier(keys: [issuer.kid: issuer.publicKey]),
            clock: slow
        )
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: try answer([21]))
        let added = try await KeysForAllSync(vault: vault, client: client(), email: "ada@example.com").manualSync()
        #expect(added.count == 1 && vault.validLicenses().count == 1)
    }
}

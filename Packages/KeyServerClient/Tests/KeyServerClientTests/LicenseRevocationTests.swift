import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing

/// Signed revocation lists and subscription expiry: a refunded license stops verifying offline once the app has the
/// list, a list cannot be forged, tampered or rolled back, and the vault drops what a synced list revokes.
struct LicenseRevocationTests {
    static let purchased = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22T12:00:00Z
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    var verifier: LicenseVerifier { LicenseVerifier(keys: [issuer.kid: issuer.publicKey]) }
    var keys: [String: Curve25519.Signing.PublicKey] { [issuer.kid: issuer.publicKey] }

    func human(_ seed: Int, plan: Int = 2) -> HumanKey {
        HumanKey(dataValues: HumanKeyTests.values(seed), plan: PlanLevel(level: plan)!)
    }

    func license(_ seed: Int, plan: Int = 2, expires: Date? = nil) throws -> SignedLicense {
        let key = human(seed, plan: plan)
        return try issuer.sign(
            LicensePayload(
                key: key,
                plan: key.plan,
                owner: "ada@example.com",
                purchasedAt: Self.purchased,
                expiresAt: expires,
                kid: ""
            )
        )
    }

    func list(_ serial: UInt64, _ seeds: [Int], by issuer: LicenseIssuer? = nil) throws -> LicenseRevocationList {
        try (issuer ?? self.issuer).signRevocations(
            serial: serial,
            revoking: seeds.map { human($0) },
            issuedAt: Self.purchased.addingTimeInterval(Double(serial % 1000) * 3600)
        )
    }

    // MARK: The list

    @Test func aSignedListRoundTripsAndNamesLicensesByIDNeverByKey() throws {
        let signed = try list(7, [1, 2, 2])
        #expect(signed.rawValue.hasPrefix("rev/") && !signed.rawValue.contains("="))
        let parsed = try LicenseRevocationList(signed.rawValue + "\n", keys: keys)
        #expect(parsed == signed)
        #expect(parsed.kid == "2026-a" && parsed.serial == 7)
        #expect(parsed.issuedAt == Self.purchased.addingTimeInterval(7 * 3600))
        #expect(parsed.revokedIDs.count == 2)
        #expect(parsed.revokes(human(1)) && parsed.revokes(human(2)) && !parsed.revokes(human(3)))
        // The wire payload: sorted members, the IDs sorted, no human key.
        let payloadPart = signed.rawValue.dropFirst(4).split(separator: ".")[0]
        let payload = try #require(Array(payloadPart.utf8).withUnsafeBufferPointer(Base64URL.decode))
        let json = String(decoding: payload, as: UTF8.self)
        let ids = parsed.revokedIDs.sorted()
        #expect(
            json
                == #"{"issuedAt":"2026-11-22T19:00:00.000Z","kid":"2026-a","revoked":["\#(ids[0])","\#(ids[1])"],"serial":7}"#
        )
        #expect(!json.contains(human(1).description) && !json.contains("VUUW"))
        // The ID: base64url of the first 16 bytes of SHA-256 over the canonical spelling (a fixed vector).
        let zero = HumanKey(dataValues: Array(repeating: 0, count: 11), plan: PlanLevel(level: 2)!)
        #expect(zero.description == "VUUW-0000-0000-0000-L2")
        #expect(LicenseRevocationList.licenseID(of: zero) == "plfEm0qoydMrji6L3lr6zQ")
        // Carried as a string member (a key-sync answer's `revocations`).
        struct Answer: Encodable { var revocations: LicenseRevocationList }
        let encoded = try JSONEncoder().encode(Answer(revocations: signed))
        let decoded = try JSONDecoder().decode([String: String].self, from: encoded)
        #expect(try LicenseRevocationList(#require(decoded["revocations"]), keys: keys) == signed)
    }

    @Test func aTamperedForgedOrForeignListIsRefusedWithItsCode() throws {
        let genuine = try list(3, [1]).rawValue
        let signature = genuine.split(separator: ".")[1]
        // Tampered: one more revoked ID, the signature kept.
        let forgedPayload =
            #"{"issuedAt":"2026-11-22T15:00:00.000Z","kid":"2026-a","revoked":["\#(LicenseRevocationList.licenseID(of: human(1)))","\#(LicenseRevocationList.licenseID(of: human(4)))"],"serial":3}"#
        let tampered = "rev/" + Base64URL.encode(Data(forgedPayload.utf8)) + "." + signature
        func code(_ text: String, keys: [String: Curve25519.Signing.PublicKey]? = nil) -> LicenseRevocationError.Code? {
            do {
                _ = try LicenseRevocationList(text, keys: keys ?? self.keys)
                return nil
            } catch { return error.code }
        }
        #expect(code(tampered) == .invalidSignature)
        // Forged: another key under the same kid.
        let forger = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
        #expect(code(try list(3, [1], by: forger).rawValue) == .invalidSignature)
        // Unknown kid: another issuer, or a verifier that lacks the key.
        let foreign = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "elsewhere")
        #expect(code(try list(3, [1], by: foreign).rawValue) == .unknownKey)
        #expect(code(genuine, keys: [:]) == .unknownKey)
        // A license's signature never serves as a list's (the prefix is signed), nor the other way round.
        let license = try license(1).rawValue
        #expect(code("rev/" + license.dropFirst(4)) != nil)
        #expect(code(license) == .malformed)
        #expect(throws: LicenseError.self) { try verifier.verify("key/" + genuine.dropFirst(4), at: Self.purchased) }
        // Malformed shapes and IDs.
        for text in ["", "rev/", "rev/abc", "rev/a.b.c", genuine + "="] {
            #expect(code(text) == .malformed, "\(text)")
        }
        let badID =
            #"{"issuedAt":"2026-11-22T15:00:00Z","kid":"2026-a","revoked":["VUUW-0000-0000-0000-L2"],"serial":3}"#
        let signedBadID =
            "rev/" + Base64URL.encode(Data(badID.utf8)) + "."
            + Base64URL.encode(
                try issuer.privateKey.signature(for: Data(("rev/" + Base64URL.encode(Data(badID.utf8))).utf8))
            )
        #expect(code(signedBadID) == .malformed)
        let error = LicenseRevocationError(.malformed, "x")
        #expect(!String(describing: error).contains("VUUW"))
    }

    // MARK: The verifier

    @Test func aRevokedLicenseFailsWithItsOwnCodeAndOthersStillVerify() throws {
        let now = Self.purchased.addingTimeInterval(60)
        let revoked = try license(1)
        let kept = try license(2)
        #expect(try verifier.verify(revoked, at: now).payload.key == human(1))  // before the list
        let list = try list(1, [1])
        #expect(throws: LicenseError.revoked) { try verifier.verify(revoked, at: now, revocations: list) }
        #expect(throws: LicenseError.revoked) { try verifier.verify(revoked.rawValue, at: now, revocations: list) }
        #expect(try verifier.verify(kept, at: now, revocations: list).payload.key == human(2))
        // A configured list.
        let configured = LicenseVerifier(keys: keys, revocations: list)
        #expect(throws: LicenseError.revoked) { try configured.verify(revoked, at: now) }
        #expect(try configured.verify(kept, at: now).payload.key == human(2))
        // A forgery of a revoked key is still reported as a forgery.
        let forger = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
        let forged = try forger.sign(try revoked.unverifiedPayload())
        #expect(throws: LicenseError.invalidSignature) { try configured.verify(forged, at: now) }
        #expect(!LicenseError.revoked.reason.contains(human(1).description))
    }

    @Test func aListOlderThanTheOneAcceptedIsRefused() throws {
        var verifier = self.verifier
        #expect(verifier.revocations == nil)
        try verifier.accept(try list(5, [1]))
        func code(_ list: LicenseRevocationList) -> LicenseRevocationError.Code? {
            do {
                try verifier.accept(list)
                return nil
            } catch { return error.code }
        }
        #expect(code(try list(4, [1, 2])) == .rollback)
        #expect(code(try list(0, [])) == .rollback)
        #expect(code(try list(5, [1, 2])) == .rollback)  // the same serial with other contents
        #expect(verifier.revocations?.serial == 5)
        #expect(code(try list(5, [1])) == nil)  // the same list again: nothing changes
        #expect(code(try list(6, [2])) == nil)  // newer: replaces (lists are cumulative)
        #expect(verifier.revocations?.serial == 6)
        #expect(try verifier.verify(try license(1), at: Self.purchased).payload.key == human(1))
        #expect(throws: LicenseError.revoked) { try verifier.verify(try license(2), at: Self.purchased) }
        #expect(code(try list(UInt64.max, [])) == nil)
        // A list signed by a key this verifier does not hold.
        let other = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2027-a")
        let foreign = try LicenseRevocationList(
            try list(UInt64.max, [], by: other).rawValue,
            keys: [other.kid: other.publicKey]
        )
        #expect(code(foreign) == .unknownKey)
    }

    @Test func aSubscriptionLicenseExpiresAndALicenseWithoutExpiryNeverDoes() throws {
        let ends = Self.purchased.addingTimeInterval(30 * 86_400)
        let subscription = try license(1, expires: ends)
        #expect(try verifier.verify(subscription, at: ends.addingTimeInterval(-1)).payload.expiresAt == ends)
        #expect(throws: LicenseError.expired) { try verifier.verify(subscription, at: ends) }
        #expect(throws: LicenseError.expired) { try verifier.verify(subscription, at: ends.addingTimeInterval(1)) }
        // A clock set back does not revive it once a later time was confirmed.
        #expect(throws: LicenseError.expired) {
            try verifier.verify(subscription, at: Self.purchased, lastConfirmed: ends.addingTimeInterval(60))
        }
        // A license minted before expiry existed: no `expiresAt` member at all.
        let key = human(2)
        let old = try issuer.sign(
            payloadJSON: Data(
                #"{"key":"\#(key)","kid":"2026-a","owner":"ada@example.com","plan":"L2","purchasedAt":"2026-11-22T12:00:00Z"}"#
                    .utf8
            )
        )
        let verified = try verifier.verify(old, at: Self.purchased.addingTimeInterval(100 * 365 * 86_400))
        #expect(verified.payload.expiresAt == nil)
        // The issuer writes `expiresAt` only when there is one.
        #expect(String(decoding: try license(3).payloadJSON, as: UTF8.self).contains("expiresAt") == false)
        let written = String(decoding: subscription.payloadJSON, as: UTF8.self)
        #expect(written.contains(#""expiresAt":"2026-12-22T12:00:00.000Z""#))
    }
}

/// The vault and Keys for All with a revocation list: what a sync revokes stops counting offline, across restarts.
struct VaultRevocationTests {
    static let start = Date(timeIntervalSince1970: 1_795_348_800)
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("revocation-\(UUID().uuidString)")
    let keyProvider = StaticKeyProvider(key: SymmetricKey(size: .bits256))
    let clock = ManualClock(start: start, autoAdvance: true, holdsDuringExternalWork: true)
    let transport = ScriptedTransport()
    let logs = LogCapture()

    var verifier: LicenseVerifier { LicenseVerifier(keys: [issuer.kid: issuer.publicKey]) }

    func sync() throws -> KeysForAllSync {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let client = KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: URL(string: "https://keys.example.test")!,
                token: "tok_revocation_0001",
                transport: transport,
                clock: clock
            )
        )
        let vault = try KeyVault(
            fileURL: directory.appendingPathComponent("vault.sqlite"),
            keyProvider: keyProvider,
            userId: "u1",
            verifier: verifier,
            client: client,
            clock: clock,
            logger: logs.logger
        )
        return KeysForAllSync(vault: vault, client: client, email: "ada@example.com")
    }

    func key(_ seed: Int, plan: Int) throws -> VULicenseKey {
        let level = PlanLevel(level: plan)!
        let human = HumanKey(dataValues: HumanKeyTests.values(seed), plan: level)
        let license = try issuer.sign(
            LicensePayload(key: human, plan: level, owner: "ada@example.com", purchasedAt: Self.start, kid: "")
        )
        return VULicenseKey(keyValue: human, planType: level, purchaseDate: Self.start, license: license)
    }

    func answer(_ keys: [VULicenseKey], revocations: String? = nil) -> String {
        let json = keys.map {
            #"{"keyValue":"\#($0.keyValue)","planType":"\#($0.planType)","purchaseDate":"2026-11-22T12:00:00Z","license":"\#($0.license.rawValue)"}"#
        }
        let list = revocations.map { #","revocations":"\#($0)""# } ?? ""
        return
            #"{"userEmail":"ada@example.com","syncTimestamp":"2026-11-22T12:00:00Z","availableKeys":[\#(json.joined(separator: ","))]\#(list)}"#
    }

    func revoking(_ serial: UInt64, _ keys: [VULicenseKey]) throws -> String {
        try issuer.signRevocations(serial: serial, revoking: keys.map(\.keyValue), issuedAt: Self.start).rawValue
    }

    @Test func aLicenseRevokedByASyncFailsOfflineAndThePlanDropsAcrossARestart() async throws {
        let basic = try key(1, plan: 2)
        let premium = try key(2, plan: 5)
        transport.on(.get, "/api/v1/keys/email/", times: 1, json: answer([basic, premium]))
        do {
            let sync = try sync()
            #expect(try await sync.manualSync().count == 2)
            #expect(sync.vault.highestPlan()?.level == 5 && sync.vault.validLicenses().count == 2)
            #expect(try verifier.verify(premium.license, at: Self.start).payload.plan.level == 5)  // offline
            #expect(sync.vault.revocationSerial == nil)
            // The premium pack is refunded: the next sync carries a list revoking it (and the server may still
            // list the key).
            transport.on(
                .get,
                "/api/v1/keys/email/",
                times: 1,
                json: answer([basic, premium], revocations: try revoking(1, [premium]))
            )
            #expect(try await sync.manualSync().isEmpty)
            #expect(sync.vault.revocationSerial == 1)
            #expect(sync.vault.licenses.map(\.keyValue) == [basic.keyValue])
            #expect(sync.vault.highestPlan()?.level == 2)
            #expect(sync.vault.validLicenses().map(\.payload.key) == [basic.keyValue])
        }
        // After a restart, offline: the list is remembered, the revoked key stays out and cannot be stored again.
        let reopened = try sync()
        #expect(reopened.vault.revocationSerial == 1 && reopened.vault.highestPlan()?.level == 2)
        #expect(try await reopened.vault.store([premium]).isEmpty)
        #expect(!reopened.vault.contains(premium.keyValue))
        #expect(reopened.vault.validLicenses().count == 1)
        // The list never shows a key in the logs.
        for line in logs.all {
            #expect(!line.contains(premium.keyValue.description) && !line.contains(basic.keyValue.description))
        }
    }

    @Test func aRolledBackTamperedOrForeignListIsRefusedAndChangesNothing() async throws {
        let basic = try key(3, plan: 2)
        let premium = try key(4, plan: 4)
        let sync = try sync()
        try await sync.vault.store([basic, premium])
        #expect(try await sync.vault.applyRevocations(try revoking(5, [])) == 0)
        // The same list again is fine; an older one is a rollback.
        #expect(try await sync.vault.applyRevocations(try revoking(5, [])) == 0)
        transport.on(
            .get,
            "/api/v1/keys/email/",
            times: 1,
            json: answer([basic, premium], revocations: try revoking(4, [premium]))
        )
        await #expect { try await sync.manualSync() } throws: {
            ($0 as? KeyVaultError)?.code == .staleRevocations
                && (($0 as? KeyVaultError)?.underlying as? LicenseRevocationError)?.code == .rollback
        }
        // Tampered (the payload swapped under the signature) and foreign lists.
        let genuine = try revoking(6, [])
        let other = try revoking(6, [premium])
        let tampered = String(other.split(separator: ".")[0]) + "." + String(genuine.split(separator: ".")[1])
        await #expect { try await sync.vault.applyRevocations(tampered) } throws: {
            ($0 as? KeyVaultError)?.code == .invalidRevocations
                && (($0 as? KeyVaultError)?.underlying as? LicenseRevocationError)?.code == .invalidSignature
        }
        let foreign = try LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "elsewhere")
            .signRevocations(serial: 9, revoking: [premium.keyValue], issuedAt: Self.start)
        await #expect { try await sync.vault.applyRevocations(foreign.rawValue) } throws: {
            (($0 as? KeyVaultError)?.underlying as? LicenseRevocationError)?.code == .unknownKey
        }
        #expect(sync.vault.revocationSerial == 5)
        #expect(sync.vault.highestPlan()?.level == 4 && sync.vault.licenseCount == 2)
    }
}

import Crypto
import Foundation
import KeyServerClient
import OpenCatCore
import Testing

struct LicenseVerifierTests {
    static let purchased = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22T12:00:00Z
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    var verifier: LicenseVerifier { LicenseVerifier(keys: [issuer.kid: issuer.publicKey]) }

    func payload(plan: Int = 2, expires: Date? = nil, purchased: Date = Self.purchased) -> LicensePayload {
        let level = PlanLevel(level: plan)!
        return LicensePayload(
            key: HumanKey(dataValues: HumanKeyTests.values(plan), plan: level),
            plan: level,
            owner: "ada@example.com",
            purchasedAt: purchased,
            expiresAt: expires,
            kid: ""
        )
    }

    @Test func aSignedLicenseVerifiesOfflineAndRoundTrips() throws {
        let license = try issuer.sign(payload())
        #expect(license.rawValue.hasPrefix("key/") && !license.rawValue.contains("="))
        let verified = try verifier.verify(license.rawValue, at: Self.purchased.addingTimeInterval(60))
        #expect(verified.payload.owner == "ada@example.com" && verified.payload.kid == "2026-a")
        #expect(verified.payload.plan.level == 2 && !verified.clockRolledBack)
    }

    @Test func rotationVerifiesWithTheKeyTheKidNames() throws {
        let next = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2027-a")
        let both = LicenseVerifier(keys: [issuer.kid: issuer.publicKey, next.kid: next.publicKey])
        let now = Self.purchased.addingTimeInterval(60)
        #expect(try both.verify(try issuer.sign(payload()), at: now).payload.kid == "2026-a")
        #expect(try both.verify(try next.sign(payload()), at: now).payload.kid == "2027-a")
    }

    @Test func forgedTamperedForeignExpiredAndFutureLicensesAreRefusedWithTheirReason() throws {
        let now = Self.purchased.addingTimeInterval(3600)
        let genuine = try issuer.sign(payload()).rawValue
        // Tampered: the payload re-encoded with another plan, the signature kept.
        let parts = genuine.dropFirst(4).split(separator: ".")
        var altered = payload(plan: 9)
        altered.kid = "2026-a"
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let tampered = "key/" + Base64URL.encode(try encoder.encode(altered)) + "." + parts[1]
        #expect(throws: LicenseError.invalidSignature) { try verifier.verify(tampered, at: now) }
        // Forged: a signature by another key under the same kid.
        let forger = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
        #expect(throws: LicenseError.invalidSignature) { try verifier.verify(try forger.sign(payload()), at: now) }
        // Foreign: another issuer's kid.
        let foreign = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "elsewhere")
        #expect(throws: LicenseError.unknownKey) { try verifier.verify(try foreign.sign(payload()), at: now) }
        // Expired, and not valid yet.
        let expired = try issuer.sign(payload(expires: Self.purchased.addingTimeInterval(1800)))
        #expect(throws: LicenseError.expired) { try verifier.verify(expired, at: now) }
        let future = try issuer.sign(payload(purchased: now.addingTimeInterval(86_400)))
        #expect(throws: LicenseError.notYetValid) { try verifier.verify(future, at: now) }
        // Malformed shapes.
        for text in ["", "key/", "key/abc", "key/a.b.c", "lic/" + genuine.dropFirst(4), genuine + "="] {
            #expect(throws: LicenseError.self) { try verifier.verify(text, at: now) }
        }
    }

    @Test func aClockSetBackCannotReviveAnExpiredLicenseAndIsFlagged() throws {
        let confirmed = Self.purchased.addingTimeInterval(10 * 86_400)
        let rolledBack = Self.purchased.addingTimeInterval(-86_400)
        let expiring = try issuer.sign(payload(expires: Self.purchased.addingTimeInterval(5 * 86_400)))
        #expect(throws: LicenseError.expired) {
            try verifier.verify(expiring, at: rolledBack, lastConfirmed: confirmed)
        }
        let lifetime = try verifier.verify(try issuer.sign(payload()), at: rolledBack, lastConfirmed: confirmed)
        #expect(lifetime.clockRolledBack)
    }

    /// A key-pack license carries an offline window the server renews at every sync: a device that never syncs
    /// stops trusting it after the window (and so cannot miss a revocation for good); a renewed one verifies again.
    @Test func aLicensePastItsOfflineWindowIsRefusedUntilASyncRenewsIt() throws {
        let window = Self.purchased.addingTimeInterval(30 * 86_400)
        var offline = payload()
        offline.offlineUntil = window
        let minted = try issuer.sign(offline)
        #expect(try verifier.verify(minted, at: window.addingTimeInterval(-60)).payload.offlineUntil == window)
        #expect(throws: LicenseError.expired) { try verifier.verify(minted, at: window.addingTimeInterval(60)) }
        // A clock set back cannot reopen the window once a later time was confirmed.
        #expect(throws: LicenseError.expired) {
            try verifier.verify(minted, at: Self.purchased, lastConfirmed: window.addingTimeInterval(60))
        }
        let renewed = try issuer.renew(minted, offlineUntil: window.addingTimeInterval(30 * 86_400))
        let verified = try verifier.verify(renewed, at: window.addingTimeInterval(60))
        #expect(verified.payload.key == offline.key && verified.payload.purchasedAt == offline.purchasedAt)
    }

    @Test func publicKeysParseFromPEMAndRawBase64() throws {
        let raw = issuer.publicKey.rawRepresentation
        let pem =
            "-----BEGIN PUBLIC KEY-----\n"
            + (Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]) + raw)
            .base64EncodedString()
            + "\n-----END PUBLIC KEY-----\n"
        #expect(try LicenseVerifier.publicKey(parsing: pem).rawRepresentation == raw)
        #expect(try LicenseVerifier.publicKey(parsing: raw.base64EncodedString()).rawRepresentation == raw)
        #expect(throws: LicenseError.self) { try LicenseVerifier.publicKey(parsing: "not a key") }
    }

    @Test func rfc3339OffsetsFractionsAndExtraMembersAreAccepted() throws {
        let key = HumanKey(dataValues: HumanKeyTests.values(4), plan: PlanLevel(level: 4)!)
        let json =
            #"{"key":"\#(key)","plan":"L4","owner":"76561197960287930","purchasedAt":"2026-11-22T13:00:00.123456+01:00","expiresAt":"2027-11-22t12:00:00z","kid":"2026-a","seats":3}"#
        let license = try issuer.sign(payloadJSON: Data(json.utf8))
        let verified = try verifier.verify(license, at: Self.purchased.addingTimeInterval(60))
        #expect(abs(verified.payload.purchasedAt.timeIntervalSince(Self.purchased) - 0.123456) < 1e-6)
        #expect(verified.payload.expiresAt == Self.purchased.addingTimeInterval(365 * 86_400))
        #expect(license.payloadJSON == Data(json.utf8))
        let bad = json.replacingOccurrences(of: "2026-11-22T13:00:00.123456+01:00", with: "22/11/2026")
        #expect(throws: LicenseError.self) {
            try verifier.verify(try issuer.sign(payloadJSON: Data(bad.utf8)), at: Self.purchased)
        }
    }
}

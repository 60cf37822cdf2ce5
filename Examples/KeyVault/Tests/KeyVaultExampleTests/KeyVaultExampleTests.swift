import Crypto
import Foundation
import KeyServerClient
import KeyVaultExample
import Testing

/// Keys and licenses on the device with no network: the key server's side is played by `LicenseIssuer` with a fresh
/// Ed25519 key, the app embeds its public key.
struct KeyVaultExampleTests {
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
    let now = Date()

    /// The license check the app builds from the public key it embeds (base64 of the raw 32 bytes).
    func licenseCheck() throws -> OfflineLicenseCheck {
        try OfflineLicenseCheck(publicKeys: [issuer.kid: issuer.publicKey.rawRepresentation.base64EncodedString()])
    }

    /// A key for a plan: eleven data symbols and its check symbol.
    func makeKey(plan level: Int) throws -> HumanKey {
        let plan = try #require(PlanLevel(level: level))
        return HumanKey(dataValues: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], plan: plan)
    }

    /// A license the key server signs for a key, bought yesterday.
    func signedLicense(for key: HumanKey, owner: String = "ada@example.com", expiresAt: Date? = nil) throws -> String {
        let payload = LicensePayload(
            key: key,
            plan: key.plan,
            owner: owner,
            purchasedAt: now.addingTimeInterval(-86_400),
            expiresAt: expiresAt,
            kid: issuer.kid
        )
        return try issuer.sign(payload).rawValue
    }

    /// The same license with its owner changed and its signature kept: what an attacker would try.
    func altered(_ license: String) throws -> String {
        let signed = try SignedLicense(license)
        let json = String(decoding: signed.payloadJSON, as: UTF8.self)
        let changed = json.replacingOccurrences(of: "ada@example.com", with: "eve@example.com")
        try #require(changed != json)
        let signature = try #require(license.split(separator: ".").last)
        return SignedLicense.prefix + Self.base64URL(Data(changed.utf8)) + "." + String(signature)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("key-vault-example-\(UUID().uuidString)")
    }

    // MARK: Human keys

    @Test func aTypedKeyIsReadAsCrockfordMeansItToBe() throws {
        let key = try makeKey(plan: 2)
        #expect(KeyEntry(typed: key.description) == .valid(key))
        #expect(KeyEntry(typed: key.description.lowercased().replacingOccurrences(of: "-", with: " ")) == .valid(key))
        // `I` and `L` read as `1`: the first data symbol of this key is a 1.
        let typedWithAnI = "VUUW-I" + String(key.description.dropFirst("VUUW-1".count))
        #expect(KeyEntry(typed: typedWithAnI).key == key)
        #expect(key.plan == PlanLevel(level: 2))
    }

    @Test func aMistypedSymbolIsCaughtByTheCheckSymbol() throws {
        let key = try makeKey(plan: 2)
        let typo = "VUUW-2" + String(key.description.dropFirst("VUUW-1".count))
        let entry = KeyEntry(typed: typo)
        #expect(entry == .invalid(.checkSymbolMismatch))
        #expect(entry.key == nil)
        #expect(entry.message.contains("typo"))
    }

    @Test func somethingThatIsNotAKeyIsRefusedWithTheReason() throws {
        let key = try makeKey(plan: 2)
        #expect(KeyEntry(typed: "VUUW-1234") == .invalid(.wrongLength))
        #expect(KeyEntry(typed: "ABCD" + String(key.description.dropFirst(4))) == .invalid(.wrongPrefix))
        #expect(KeyEntry(typed: key.description.replacingOccurrences(of: "-L2", with: "-L0")) == .invalid(.invalidPlan))
    }

    // MARK: Signed licenses

    @Test func aLicenseSignedByTheServerVerifiesOffline() throws {
        let key = try makeKey(plan: 2)
        let status = try licenseCheck().check(signedLicense(for: key), at: now)
        #expect(status == .valid(plan: key.plan, owner: "ada@example.com", key: key, clockRolledBack: false))
    }

    @Test func anAlteredLicenseIsRefused() throws {
        let tampered = try altered(signedLicense(for: makeKey(plan: 2)))
        #expect(try licenseCheck().check(tampered, at: now) == .refused(.invalidSignature))
    }

    @Test func aLicenseFromAnotherIssuerIsRefused() throws {
        let key = try makeKey(plan: 3)
        let impostor = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: issuer.kid)
        let forged = try impostor.sign(
            LicensePayload(key: key, plan: key.plan, owner: "eve@example.com", purchasedAt: now, kid: issuer.kid)
        )
        #expect(try licenseCheck().check(forged.rawValue, at: now) == .refused(.invalidSignature))
        let unknown = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "someone-else")
        let foreign = try unknown.sign(
            LicensePayload(key: key, plan: key.plan, owner: "eve@example.com", purchasedAt: now, kid: "someone-else")
        )
        #expect(try licenseCheck().check(foreign.rawValue, at: now) == .refused(.unknownKey))
    }

    @Test func anExpiredLicenseIsRefusedEvenWithTheClockSetBack() throws {
        let key = try makeKey(plan: 2)
        let license = try signedLicense(for: key, expiresAt: now.addingTimeInterval(-3_600))
        let check = try licenseCheck()
        #expect(check.check(license, at: now) == .refused(.expired))
        // The device clock says two hours ago, but the server confirmed "now" earlier: still expired.
        #expect(check.check(license, at: now.addingTimeInterval(-7_200), lastConfirmed: now) == .refused(.expired))
    }

    // MARK: The vault

    @Test func theVaultKeepsVerifiedLicensesAcrossLaunchesAndUnlocksTheirFeatures() async throws {
        let folder = Self.temporaryFolder()
        let features: [Int: Set<String>] = [1: ["basic-voices"], 2: ["voice-pack"], 3: ["studio"]]
        let keys = try OfflineKeyVault(folder: folder, userId: "ada", licenses: licenseCheck(), features: features)
        #expect(keys.unlockedFeatures().isEmpty)
        #expect(keys.plan() == nil)

        let key = try makeKey(plan: 2)
        let stored = try await keys.add(license: signedLicense(for: key))

        #expect(stored == key)
        #expect(keys.plan() == key.plan)
        #expect(keys.unlockedFeatures() == ["basic-voices", "voice-pack"])

        // The next launch opens the same sealed file, with no network.
        let relaunched = try OfflineKeyVault(
            folder: folder,
            userId: "ada",
            licenses: licenseCheck(),
            features: features
        )
        #expect(relaunched.vault.contains(key))
        #expect(relaunched.vault.licenseCount == 1)
        #expect(relaunched.unlockedFeatures() == ["basic-voices", "voice-pack"])
    }

    @Test func anAlteredLicenseIsNeverStored() async throws {
        let keys = try OfflineKeyVault(
            folder: Self.temporaryFolder(),
            userId: "ada",
            licenses: licenseCheck(),
            features: [2: ["voice-pack"]]
        )
        let tampered = try altered(signedLicense(for: makeKey(plan: 2)))

        let error = await #expect(throws: KeyVaultError.self) { try await keys.add(license: tampered) }

        #expect(error?.code == .invalidLicense)
        #expect(keys.vault.licenseCount == 0)
        #expect(keys.unlockedFeatures().isEmpty)
        let garbage = await #expect(throws: KeyVaultError.self) { try await keys.add(license: "not a license") }
        #expect(garbage?.code == .invalidLicense)
    }
}

import Crypto
import Foundation
import KeyServerClient
import Testing

/// `opencat keys verify --revocations FILE`, run as a user runs it: a revoked license exits 2 with a clear reason and
/// no secret; a list that does not verify is refused.
struct KeysRevocationCLITests {
    static let purchased = Date(timeIntervalSince1970: 1_795_348_800)
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")

    func key(_ seed: Int) -> HumanKey {
        HumanKey(dataValues: (0..<11).map { UInt8(($0 * 11 + seed) % 32) }, plan: PlanLevel(level: 4)!)
    }

    func license(_ seed: Int) throws -> String {
        try issuer.sign(
            LicensePayload(
                key: key(seed),
                plan: PlanLevel(level: 4)!,
                owner: "ada@example.com",
                purchasedAt: Self.purchased,
                kid: ""
            )
        ).rawValue
    }

    func verify(_ license: String, revocations: String, in scratch: ScratchFolder) async throws -> OpenCatCLI.Result {
        let licenseFile = try scratch.write("license.txt", Data((license + "\n").utf8))
        let keyFile = try scratch.write("key.txt", Data(issuer.publicKey.rawRepresentation.base64EncodedString().utf8))
        let listFile = try scratch.write("revocations.txt", Data((revocations + "\n").utf8))
        return try await OpenCatCLI.run([
            "keys", "verify", "--license", licenseFile, "--public-key", keyFile, "--at", "2026-11-23T00:00:00Z",
            "--revocations", listFile,
        ])
    }

    @Test func aRevokedLicenseExitsTwoWithAClearReasonAndNoSecret() async throws {
        let scratch = try ScratchFolder()
        let license = try license(3)
        let list = try issuer.signRevocations(serial: 12, revoking: [key(3), key(5)], issuedAt: Self.purchased)
        let result = try await verify(license, revocations: list.rawValue, in: scratch)
        #expect(result.status == 2 && !result.trapped, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("not valid: ") && result.standardError.contains("revoked"))
        #expect(result.standardError.contains("serial 12"))
        #expect(result.standardError.split(separator: "\n").count == 1 && result.standardOutput.isEmpty)
        for secret in [String(license.prefix(24)), key(3).description, String(list.rawValue.prefix(24))] {
            #expect(!result.standardError.contains(secret) && !result.standardOutput.contains(secret))
        }
    }

    @Test func aLicenseTheListDoesNotRevokeStillVerifies() async throws {
        let scratch = try ScratchFolder()
        let list = try issuer.signRevocations(serial: 12, revoking: [key(5)], issuedAt: Self.purchased)
        let result = try await verify(try license(3), revocations: list.rawValue, in: scratch)
        #expect(result.status == 0, "\(result.standardError)")
        let payload = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(payload?["key"] as? String == key(3).description)
    }

    @Test func aListThatDoesNotVerifyIsRefusedAndAMissingFileIsAUsageError() async throws {
        let scratch = try ScratchFolder()
        let license = try license(3)
        let other = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
        let forged = try other.signRevocations(serial: 99, revoking: [], issuedAt: Self.purchased).rawValue
        let foreign = try LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "elsewhere")
            .signRevocations(serial: 99, revoking: [], issuedAt: Self.purchased).rawValue
        for text in [forged, foreign, "rev/not-a-list", license] {
            let result = try await verify(license, revocations: text, in: scratch)
            #expect(result.status == 2 && !result.trapped, "\(result.standardError)")
            #expect(result.standardError.hasPrefix("revocation list refused: "), "\(result.standardError)")
            #expect(!result.standardError.contains(String(license.prefix(24))))
        }
        let licenseFile = try scratch.write("license.txt", Data(license.utf8))
        let keyFile = try scratch.write("key.txt", Data(issuer.publicKey.rawRepresentation.base64EncodedString().utf8))
        let missing = try await OpenCatCLI.run([
            "keys", "verify", "--license", licenseFile, "--public-key", keyFile,
            "--revocations", scratch.url.appendingPathComponent("absent.txt").path,
        ])
        #expect(missing.status == 64 && !missing.trapped, "\(missing.standardError)")
    }
}

import Crypto
import Foundation
import KeyServerClient
import Testing

/// `opencat keys check` and `opencat keys verify`, run as a user runs them.
struct KeysCLITests {
    static let purchased = Date(timeIntervalSince1970: 1_795_348_800)
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")

    func key(plan: Int = 4) -> HumanKey {
        HumanKey(dataValues: (0..<11).map { UInt8(($0 * 11 + 3) % 32) }, plan: PlanLevel(level: plan)!)
    }

    func license(expires: Date? = nil) throws -> String {
        try issuer.sign(
            LicensePayload(
                key: key(),
                plan: PlanLevel(level: 4)!,
                owner: "ada@example.com",
                purchasedAt: Self.purchased,
                expiresAt: expires,
                kid: ""
            )
        ).rawValue
    }

    var pem: String {
        let spki =
            Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00])
            + issuer.publicKey.rawRepresentation
        return "-----BEGIN PUBLIC KEY-----\n\(spki.base64EncodedString())\n-----END PUBLIC KEY-----\n"
    }

    @Test func checkAcceptsAValidKeyInAnySpellingAndRefusesATypo() async throws {
        let text = key().description
        let valid = try await OpenCatCLI.run([
            "keys", "check", text.lowercased().replacingOccurrences(of: "-", with: ""),
        ])
        #expect(valid.status == 0 && valid.standardOutput.contains(text) && valid.standardOutput.contains("L4"))
        var typo = Array(text)
        typo[6] = typo[6] == "A" ? "B" : "A"
        let invalid = try await OpenCatCLI.run(["keys", "check", String(typo)])
        #expect(invalid.status == 2 && !invalid.trapped)
        #expect(invalid.standardError.contains("check symbol"))
        #expect(try await OpenCatCLI.run(["keys", "check", "hello"]).status == 2)
    }

    @Test func verifyPrintsThePayloadOfAValidLicense() async throws {
        let scratch = try ScratchFolder()
        let licenseFile = try scratch.write("license.txt", Data((try license() + "\n").utf8))
        for keyText in [pem, issuer.publicKey.rawRepresentation.base64EncodedString()] {
            let keyFile = try scratch.write("key.pem", Data(keyText.utf8))
            let result = try await OpenCatCLI.run([
                "keys", "verify", "--license", licenseFile, "--public-key", keyFile, "--at", "2026-11-23T00:00:00Z",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let payload = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(payload?["key"] as? String == key().description)
            #expect(payload?["plan"] as? String == "L4" && payload?["kid"] as? String == "2026-a")
        }
    }

    @Test func verifyExitsTwoWithAOneLineReasonForEveryBadLicense() async throws {
        let scratch = try ScratchFolder()
        let keyFile = try scratch.write("key.pem", Data(pem.utf8))
        let genuine = try license()
        let other = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-a")
        let forged = try other.sign(try SignedLicense(genuine).unverifiedPayload()).rawValue
        let parts = genuine.split(separator: ".")
        let tampered = parts[0].dropLast(2) + "AA." + parts[1]
        let expiring = try license(expires: Self.purchased.addingTimeInterval(86_400))
        let cases: [(String, [String], String)] = [
            (forged, [], "signature"),
            (String(tampered), [], ""),
            (genuine, ["--kid", "someone-else"], "unknown key"),
            (expiring, ["--at", "2027-01-01T00:00:00Z"], "expired"),
            (genuine, ["--at", "2020-01-01T00:00:00Z"], "not valid yet"),
            ("key/not-a-license", [], ""),
        ]
        for (text, extra, reason) in cases {
            let file = try scratch.write("license.txt", Data(text.utf8))
            let result = try await OpenCatCLI.run(
                ["keys", "verify", "--license", file, "--public-key", keyFile, "--at", "2026-11-23T00:00:00Z"] + extra
            )
            #expect(result.status == 2 && !result.trapped, "\(extra): \(result.standardError)")
            #expect(
                result.standardError.hasPrefix("not valid: ")
                    && (reason.isEmpty || result.standardError.contains(reason)),
                "\(reason): \(result.standardError)"
            )
            #expect(result.standardError.split(separator: "\n").count == 1)
            #expect(!result.standardError.contains(text.prefix(20)))
        }
    }

    @Test func verifyRefusesAnUnusableTimeOrKeyAsUsageErrors() async throws {
        let scratch = try ScratchFolder()
        let licenseFile = try scratch.write("license.txt", Data(try license().utf8))
        let keyFile = try scratch.write("key.pem", Data(pem.utf8))
        for at in ["yesterday", "99999-01-01T00:00:00Z", "0000-01-01T00:00:00Z"] {
            let result = try await OpenCatCLI.run(
                ["keys", "verify", "--license", licenseFile, "--public-key", keyFile, "--at", at])
            #expect(result.status == 64 && !result.trapped, "\(at): \(result.status) \(result.standardError)")
        }
        let badKey = try scratch.write("bad.pem", Data("not a key".utf8))
        let result = try await OpenCatCLI.run(["keys", "verify", "--license", licenseFile, "--public-key", badKey])
        #expect(result.status == 2 && result.standardError.contains("Ed25519"))
    }
}

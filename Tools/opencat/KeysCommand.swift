import ArgumentParser
import Foundation
import KeyServerClient

/// `opencat keys`: license keys and signed licenses, checked offline.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Check license keys and verify signed licenses offline.",
        subcommands: [KeysCheck.self, KeysVerify.self]
    )
}

/// `opencat keys check KEY`: the human key's format and check symbol.
struct KeysCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a human license key (VUUW-XXXX-XXXX-XXXX-Ln): exit 0 valid, 2 invalid with the reason.",
        discussion: """
            Case does not matter; O reads as 0, I and L as 1; hyphens are optional. The last of the twelve symbols is \
            Crockford's mod-37 check symbol of the eleven before it, so a mistyped key is caught offline. Prints the \
            key in its canonical spelling and its plan.
            """
    )

    @Argument(help: "The key as typed.")
    var key: String

    func run() throws {
        do {
            let parsed = try HumanKey(key)
            print("\(parsed) valid (plan \(parsed.plan))")
        } catch {
            FileHandle.standardError.write(Data("invalid: \(error.reason)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// `opencat keys verify --license FILE --public-key FILE [--kid ID] [--at ISO8601|now] [--revocations FILE]`.
struct KeysVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a signed license offline: prints its payload as JSON (exit 0), or exits 2 with the reason.",
        discussion: """
            The license is key/<payload>.<signature> (base64url, Ed25519 over the ASCII bytes key/<payload>). The \
            public key is PEM (an Ed25519 SubjectPublicKeyInfo) or base64 of the raw 32 bytes; it is trusted for \
            --kid (default: the kid the license names). --at sets the time (default now). --revocations takes the \
            server's signed revocation list (rev/<payload>.<signature>, signed by the same key): a license it \
            revokes is not valid. Exit 0: valid; 2: not valid (forged, altered, another key, expired, not yet valid, \
            revoked), or a revocation list that does not verify; 64: usage error.
            """
    )

    @Option(name: .customLong("license"), help: "File holding the license.")
    var licenseFile: String

    @Option(name: .customLong("public-key"), help: "File holding the server's Ed25519 public key (PEM or base64).")
    var publicKeyFile: String

    @Option(name: .customLong("kid"), help: "The key id the public key is trusted for (default: the license's).")
    var kid: String?

    @Option(name: .customLong("at"), help: "The time to verify at: an ISO 8601 date, or now (default).")
    var at: String = "now"

    @Option(
        name: .customLong("revocations"),
        help: "File holding the server's signed revocation list (rev/…): a license it revokes is not valid."
    )
    var revocationsFile: String?

    func validate() throws {
        guard at == "now" || Self.date(at) != nil else {
            throw ValidationError("--at takes now or an ISO 8601 date with a year from 1 to 9999")
        }
    }

    func run() throws {
        guard let licenseData = FileManager.default.contents(atPath: licenseFile) else {
            throw ValidationError("cannot read the license file \(licenseFile)")
        }
        guard let keyData = FileManager.default.contents(atPath: publicKeyFile) else {
            throw ValidationError("cannot read the public key file \(publicKeyFile)")
        }
        var revocationsData: Data?
        if let revocationsFile {
            guard let data = FileManager.default.contents(atPath: revocationsFile) else {
                throw ValidationError("cannot read the revocation list file \(revocationsFile)")
            }
            revocationsData = data
        }
        let time = at == "now" ? Date() : Self.date(at)!
        var revocationSerial: UInt64?
        do {
            let publicKey = try LicenseVerifier.publicKey(parsing: String(decoding: keyData, as: UTF8.self))
            let license = try SignedLicense(String(decoding: licenseData, as: UTF8.self))
            let trustedKid = try kid ?? license.unverifiedPayload().kid
            let keys = [trustedKid: publicKey]
            // The list is checked with the same trusted key: one that does not verify fails the whole check.
            let revocations = try revocationsData.map {
                try LicenseRevocationList(String(decoding: $0, as: UTF8.self), keys: keys)
            }
            revocationSerial = revocations?.serial
            let verified = try LicenseVerifier(keys: keys, revocations: revocations).verify(license, at: time)
            // The payload exactly as the server signed it (every member, dates as written), keys sorted.
            _ = verified
            let object = try JSONSerialization.jsonObject(with: license.payloadJSON)
            let text = try JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            )
            print(String(decoding: text, as: UTF8.self))
        } catch LicenseError.revoked {
            // Which list revoked it, never the license or its key.
            let serial = revocationSerial.map { "; revocation list serial \($0)" } ?? ""
            FileHandle.standardError.write(Data("not valid: \(LicenseError.revoked.reason)\(serial)\n".utf8))
            throw ExitCode(2)
        } catch let error as LicenseError {
            FileHandle.standardError.write(Data("not valid: \(error.reason)\n".utf8))
            throw ExitCode(2)
        } catch let error as LicenseRevocationError {
            FileHandle.standardError.write(Data("revocation list refused: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// An ISO 8601 date whose year is 1…9999 (fractional seconds allowed).
    static func date(_ text: String) -> Date? {
        let parsed =
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        guard let parsed else { return nil }
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: parsed)
        // Year 0000 parses as 1 BC (era 0): refused with the rest.
        return components.era == 1 && (1...9999).contains(components.year ?? 0) ? parsed : nil
    }
}

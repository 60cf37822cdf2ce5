import Crypto
import Foundation
import Testing
import ToolsTestSupport

/// `opencat apple offer-signature` and `offer-jws` as a user runs them, checked independently by
/// Tools/ci/apple_offer_vector.py (Python's `cryptography` rebuilds the documented payload and verifies the
/// signature): exit 0 and the signature on standard output, 64 on usage errors.
@Suite(.serialized)
struct AppleOfferCLITests {
    static let fields = [
        "--bundle-id", "com.example.app", "--key-id", "ABCDEF1234", "--product-id", "com.example.monthly",
        "--offer-id", "WINBACK50", "--app-account-token", "6B29FC40-CA47-1067-B31D-00DD010662DA",
        "--nonce", "20FBA8A0-2B80-4A7D-A17F-85C1854727F8", "--timestamp", "1698148900000",
    ]
    static let expectedPayload =
        "com.example.app\u{2063}ABCDEF1234\u{2063}com.example.monthly\u{2063}WINBACK50\u{2063}"
        + "6b29fc40-ca47-1067-b31d-00dd010662da\u{2063}20fba8a0-2b80-4a7d-a17f-85c1854727f8\u{2063}1698148900000"

    /// The independent checker.
    static var vectorScript: String {
        TestEnvironment.repositoryRoot.appendingPathComponent("Tools/ci/apple_offer_vector.py").path
    }

    struct MissingPythonModule: Error, CustomStringConvertible {
        var description: String
    }

    /// `python3` with `cryptography`, or an error naming what is missing and the command that installs it.
    static func requirePythonCryptography() async throws {
        let python = try TestEnvironment.executable("python3", package: "python3")
        let probe = try await runProcess(python, ["-c", "import cryptography"])
        guard probe.status == 0 else {
            throw MissingPythonModule(
                description: "the Python module 'cryptography' is missing (python3 -c 'import cryptography' failed: "
                    + "\(probe.error.trimmingCharacters(in: .whitespacesAndNewlines))). Run "
                    + "`\(TestEnvironment.provisionCommand)` (it pip-installs it) or `python3 -m pip install "
                    + "cryptography`."
            )
        }
    }

    /// Runs the checker; its JSON answer on success.
    static func check(_ arguments: [String]) async throws -> (status: Int32, payload: Any?, error: String) {
        let result = try await runProcess("python3", [vectorScript] + arguments)
        let json = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return (result.status, json?["payload"], result.error)
    }

    private func keyFile(_ folder: ScratchFolder, _ key: P256.Signing.PrivateKey) throws -> String {
        try folder.write("SubscriptionKey_ABCDEF1234.p8", Data(key.pemRepresentation.utf8))
    }

    @Test func theOfferSignatureVerifiesIndependentlyOverTheDocumentedPayload() async throws {
        try await Self.requirePythonCryptography()
        let folder = try ScratchFolder()
        let key = try keyFile(folder, P256.Signing.PrivateKey())
        let result = try await OpenCatCLI.run(
            ["apple", "offer-signature", "--key-file", key, "--print-payload"] + Self.fields
        )
        #expect(result.status == 0, "\(result.standardError)")
        let signature = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: signature) != nil)
        #expect(
            result.standardError.contains(Self.expectedPayload.replacingOccurrences(of: "\u{2063}", with: "\\u2063"))
        )

        let checked = try await Self.check(["signature", "--key", key, "--signature", signature] + Self.fields)
        #expect(checked.status == 0, "\(checked.error)")
        #expect(checked.payload as? String == Self.expectedPayload)

        // Any other order or field is refused: the vector pins the documented order.
        var swapped = Self.fields
        swapped[5] = "WINBACK50"
        swapped[7] = "com.example.monthly"
        let refused = try await Self.check(["signature", "--key", key, "--signature", signature] + swapped)
        #expect(refused.status == 1, "\(refused.error)")
        #expect(refused.error.contains("does not verify"))
    }

    @Test func withoutAnAppAccountTokenTheFieldIsEmpty() async throws {
        try await Self.requirePythonCryptography()
        let folder = try ScratchFolder()
        let key = try keyFile(folder, P256.Signing.PrivateKey())
        let fields = Array(Self.fields[0..<8] + Self.fields[10...])
        let result = try await OpenCatCLI.run(["apple", "offer-signature", "--key-file", key] + fields)
        #expect(result.status == 0, "\(result.standardError)")
        let signature = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let checked = try await Self.check(["signature", "--key", key, "--signature", signature] + fields)
        #expect(checked.status == 0, "\(checked.error)")
        #expect((checked.payload as? String)?.contains("WINBACK50\u{2063}\u{2063}20fba8a0") == true)
    }

    @Test(arguments: ["promotional", "introductory-eligibility"])
    func theOfferJWSVerifiesIndependently(kind: String) async throws {
        try await Self.requirePythonCryptography()
        let folder = try ScratchFolder()
        let key = try keyFile(folder, P256.Signing.PrivateKey())
        var fields = [
            "--kind", kind, "--bundle-id", "com.example.app", "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a",
            "--key-id", "ABCDEF1234", "--product-id", "com.example.monthly", "--transaction-id", "2000000123456789",
            "--nonce", "20FBA8A0-2B80-4A7D-A17F-85C1854727F8", "--issued-at", "1698148900",
        ]
        fields += kind == "promotional" ? ["--offer-id", "WINBACK50"] : ["--allow-introductory-offer", "false"]
        let result = try await OpenCatCLI.run(["apple", "offer-jws", "--key-file", key] + fields)
        #expect(result.status == 0, "\(result.standardError)")
        let jws = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(jws.split(separator: ".").count == 3)

        let checked = try await Self.check(["jws", "--key", key, "--jws", jws] + fields)
        #expect(checked.status == 0, "\(checked.error)")
        let claims = try #require(checked.payload as? [String: Any])
        #expect(
            claims["aud"] as? String == (kind == "promotional" ? "promotional-offer" : "introductory-offer-eligibility")
        )
        #expect(claims["nonce"] as? String == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")

        // Another key does not verify it.
        let other = try folder.write("other.p8", Data(P256.Signing.PrivateKey().pemRepresentation.utf8))
        let refused = try await Self.check(["jws", "--key", other, "--jws", jws] + fields)
        #expect(refused.status == 1)
    }

    @Test func usageErrorsExit64() async throws {
        let folder = try ScratchFolder()
        let key = try keyFile(folder, P256.Signing.PrivateKey())
        let garbage = try folder.write(
            "garbage.p8",
            Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)
        )
        var badNonce = Self.fields
        badNonce[11] = "not-a-uuid"
        var badToken = Self.fields
        badToken[9] = "alice@example.com"
        let cases: [[String]] = [
            ["apple", "offer-signature", "--key-file", key] + badNonce,
            ["apple", "offer-signature", "--key-file", key] + badToken,
            ["apple", "offer-signature", "--key-file", folder.url.appendingPathComponent("missing.p8").path]
                + Self.fields,
            ["apple", "offer-signature", "--key-file", garbage] + Self.fields,
            ["apple", "offer-signature", "--key-file", key] + Self.fields.dropLast(2),
            [
                "apple", "offer-jws", "--kind", "promotional", "--key-file", key, "--bundle-id", "b", "--issuer-id",
                "i", "--key-id", "k", "--product-id", "p",
            ],
            [
                "apple", "offer-jws", "--kind", "introductory-eligibility", "--key-file", key, "--bundle-id", "b",
                "--issuer-id", "i", "--key-id", "k", "--product-id", "p", "--allow-introductory-offer", "true",
            ],
        ]
        for arguments in cases {
            let result = try await OpenCatCLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
            #expect(!result.standardError.contains("AAAA"))
        }
    }
}

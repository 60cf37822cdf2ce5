import Foundation
import Testing
import ToolsTestSupport

/// `opencat fixtures record` (issue 26, item 5) end to end, all on loopback: `opencat mock serve` with a live-looking
/// Stripe key stands in for Stripe; `opencat verify stripe` runs through the recorder; the cassette written holds no
/// secret, `opencat fixtures lint` accepts it, and `opencat conformance` replays it green.
struct FixturesRecordCLITests {
    static let key = "sk_live_51OpenCatCLIRecorderKey0x9Qw"
    static let root = TestEnvironment.repositoryRoot.path

    /// The first `http://…` URL in a line, without a trailing comma or period.
    static func url(in line: String) throws -> String {
        let word = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") })
        return String(word.trimmingCharacters(in: CharacterSet(charactersIn: ",.")))
    }

    @Test func aRecordedStripeVerificationHasNoSecretLintsCleanAndReplaysGreen() async throws {
        let scratch = try ScratchFolder()
        let secrets = try scratch.write("secrets.json", Data(#"{"stripe.secretKey": "\#(Self.key)"}"#.utf8))
        let keyFile = try scratch.write("stripe-key", Data(Self.key.utf8))
        let out = scratch.url.appendingPathComponent("recorded")
        let (output, status) = try await withChildProcess(
            OpenCatCLI.executable.path,
            [
                "mock", "serve", "--root", Self.root, "--port", "0", "--store", "stripe", "--scenario",
                "one-time-paid", "--secrets", secrets,
            ],
            timeout: .seconds(120)
        ) { mock in
            let upstream = try Self.url(in: try #require(try await mock.firstLine(containing: "listening on")))
            return try await withChildProcess(
                OpenCatCLI.executable.path,
                [
                    "fixtures", "record", "--root", Self.root, "--store", "stripe", "--upstream", upstream, "--out",
                    out.path, "--count", "1", "--scenario", "one-time-paid", "--token", "pi_3OpenCatPaid001",
                    "--product-id", "gems_500",
                ],
                timeout: .seconds(60)
            ) { recorder in
                let proxy = try Self.url(in: try #require(try await recorder.firstLine(containing: "Recording stripe")))
                let verify = try await OpenCatCLI.run([
                    "verify", "stripe", "--secret-key-file", keyFile, "--payment-intent", "pi_3OpenCatPaid001",
                    "--product-id", "gems_500", "--base-url", proxy,
                ])
                #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
                #expect(verify.standardOutput.contains("active"))
                var lines: [String] = []
                for try await line in recorder.lines { lines.append(line) }  // to its end: --count 1 stops it
                return lines.joined(separator: "\n")
            }
        }.value
        #expect(status == 0, "\(output)")
        #expect(output.contains("Recorded 1 exchange to"))
        #expect(output.contains("{{stripe.secretKey}} replaced a Stripe secret key at interactions[0].request.headers"))
        #expect(output.contains("an account id"))
        #expect(!output.contains(Self.key))

        let file = out.appendingPathComponent("stripe/one-time-paid.json")
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(!text.contains(Self.key))
        #expect(!text.contains("cus_OpenCat001"))  // the customer id of the served cassette
        #expect(text.contains("{{stripe.secretKey}}"))

        let lint = try await OpenCatCLI.run(["fixtures", "lint", "--root", Self.root, out.path])
        #expect(lint.status == 0, "\(lint.standardOutput)\(lint.standardError)")
        #expect(lint.standardOutput.contains("1 cassettes OK"))

        let replay = try await OpenCatCLI.run([
            "conformance", "--root", Self.root, "--fixtures", out.path, "--store", "stripe", "--scenario",
            "one-time-paid", "--report", scratch.url.appendingPathComponent("reports").path,
        ])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        let report = try String(
            contentsOf: scratch.url.appendingPathComponent("reports/conformance.json"),
            encoding: .utf8
        )
        // Both cassettes of the cell ran: the committed one and the recording (JSON may escape the slashes).
        #expect(report.replacingOccurrences(of: "\\/", with: "/").contains("recorded/stripe/one-time-paid.json"))

        // Once written, the cassette is not replaced without --force.
        let again = try await OpenCatCLI.run([
            "fixtures", "record", "--root", Self.root, "--store", "stripe", "--upstream", "http://127.0.0.1:9",
            "--out", out.path, "--count", "1",
        ])
        #expect(again.status != 0)
        #expect(again.standardError.contains("pass --force"))
    }
}

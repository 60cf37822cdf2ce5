import Foundation
import Testing
import ToolsTestSupport

/// `opencat conformance --fixtures DIR` (issue 26, item 6): every section reads the cassettes of an extra folder
/// that name its store, runs them as its own, and a cassette no section reads fails the run, named.
struct ConformanceExtraFixturesCLITests {
    static let fixtures = TestEnvironment.repositoryRoot.appendingPathComponent("Fixtures")

    /// A committed cassette's text, with each `replacing` pair applied (each must occur).
    static func cassette(_ path: String, replacing changes: [(String, String)] = []) throws -> Data {
        var text = try String(contentsOf: fixtures.appendingPathComponent(path), encoding: .utf8)
        for (old, new) in changes {
            try #require(text.contains(old), "\(path) has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return Data(text.utf8)
    }

    /// Runs `opencat conformance` on the checkout with `extra` as the --fixtures folder, only the given stores and
    /// scenarios, and its reports in the scratch folder.
    static func conformance(
        _ scratch: ScratchFolder,
        extra: URL,
        stores: [String],
        scenarios: [String]
    ) async throws -> OpenCatCLI.Result {
        var arguments = [
            "conformance", "--root", TestEnvironment.repositoryRoot.path, "--fixtures", extra.path, "--report",
            scratch.url.appendingPathComponent("reports").path,
        ]
        arguments += stores.flatMap { ["--store", $0] } + scenarios.flatMap { ["--scenario", $0] }
        return try await OpenCatCLI.run(arguments)
    }

    /// The folder of extra cassettes inside the scratch folder, with `files` (relative path → contents) written.
    static func extraFolder(_ scratch: ScratchFolder, _ files: [String: Data]) throws -> URL {
        let folder = scratch.url.appendingPathComponent("extra")
        for (path, contents) in files {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try contents.write(to: file)
        }
        return folder
    }

    /// The cells of the written conformance.json: the stores' matrix under "", each section under its title.
    static func cells(_ scratch: ScratchFolder) throws -> [String: [[String: Any]]] {
        let data = try Data(contentsOf: scratch.url.appendingPathComponent("reports/conformance.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var cells: [String: [[String: Any]]] = ["": report["cells"] as? [[String: Any]] ?? []]
        for section in report["sections"] as? [[String: Any]] ?? [] {
            let title = try #require(section["title"] as? String)
            cells[title] = (section["report"] as? [String: Any])?["cells"] as? [[String: Any]] ?? []
        }
        return cells
    }

    @Test func extraKeyServerLLMKeysAndStoreCassettesAreRunAndCounted() async throws {
        let scratch = try ScratchFolder()
        let extra = try Self.extraFolder(
            scratch,
            [
                "mine/extra-keyserver-spend.json": try Self.cassette("keyserver/spend.json"),
                "extra-llmkeys-status-pro.json": try Self.cassette("llmkeys/status-pro.json"),
                "extra-stripe-one-time-paid.json": try Self.cassette("stripe/one-time-paid.json"),
            ]
        )
        let result = try await Self.conformance(
            scratch,
            extra: extra,
            stores: ["keyserver", "llmkeys", "stripe"],
            scenarios: ["spend", "status-pro", "one-time-paid"]
        )
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(
            result.standardOutput.contains(
                "--fixtures: 3 cassettes: stores' matrix 1, Key server 1, LLM keys 1, ChippiPay 0, Reference server 0, "
                    + "Store operations 0, Apple Retention Messaging 0, Steam Web API 0, read by no section 0"
            ),
            "\(result.standardOutput)"
        )
        let cells = try Self.cells(scratch)
        for (part, store, scenario, file) in [
            ("", "stripe", "one-time-paid", "extra-stripe-one-time-paid.json"),
            ("Key server", "keyserver", "spend", "extra-keyserver-spend.json"),
            ("LLM keys", "llmkeys", "status-pro", "extra-llmkeys-status-pro.json"),
        ] {
            let cell = try #require(
                cells[part]?.first { $0["store"] as? String == store && $0["scenario"] as? String == scenario },
                "no \(store)/\(scenario) cell in \(part.isEmpty ? "the stores' matrix" : part)"
            )
            #expect(cell["status"] as? String == "pass", "\(cell)")
            // Run beside the committed cassette of the same cell: both are named.
            let names = cell["cassette"] as? String ?? ""
            #expect(names.contains(file) && names.contains("Fixtures/\(store)/"), "\(names)")
        }
    }

    @Test func aFalsifiedKeyServerCassetteFailsTheRunNamingIt() async throws {
        let scratch = try ScratchFolder()
        // The server still answers a balance of 6; the copy claims 7.
        let extra = try Self.extraFolder(
            scratch,
            [
                "extra-falsified-spend.json": try Self.cassette(
                    "keyserver/spend.json",
                    replacing: [(#""quantity": 6"#, #""quantity": 7"#)]
                )
            ]
        )
        let result = try await Self.conformance(scratch, extra: extra, stores: ["keyserver"], scenarios: ["spend"])
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        let failure = try #require(
            result.standardOutput.split(separator: "\n").first { $0.contains("keyserver/spend:") },
            "\(result.standardOutput)"
        )
        #expect(failure.contains("extra-falsified-spend.json:"), "\(failure)")
        #expect(failure.contains("quantity"), "\(failure)")
        // The committed cassette of the same cell still passes: only the copy is blamed.
        #expect(!failure.contains("Fixtures/keyserver/spend.json:"), "\(failure)")
        let cell = try #require(try Self.cells(scratch)["Key server"]?.first { $0["scenario"] as? String == "spend" })
        #expect(cell["status"] as? String == "fail")
    }

    @Test func aCassetteNoSectionReadsIsAnInvalidCassetteAndFailsTheRun() async throws {
        let scratch = try ScratchFolder()
        let extra = try Self.extraFolder(
            scratch,
            [
                "extra-bookshop.json": try Self.cassette(
                    "keyserver/spend.json",
                    replacing: [(#""store": "keyserver""#, #""store": "bookshop""#)]
                ),
                "extra-keyserver-spend.json": try Self.cassette("keyserver/spend.json"),
            ]
        )
        let result = try await Self.conformance(scratch, extra: extra, stores: ["keyserver"], scenarios: ["spend"])
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("read by no section 1"), "\(result.standardOutput)")
        let line = try #require(
            result.standardOutput.split(separator: "\n").first {
                $0.contains("extra-bookshop.json") && $0.contains("store:")
            },
            "\(result.standardOutput)"
        )
        #expect(line.contains("store: 'bookshop' is read by no section"), "\(line)")
        // The rest of the folder still ran, and passed.
        let cell = try #require(try Self.cells(scratch)["Key server"]?.first { $0["scenario"] as? String == "spend" })
        #expect(cell["status"] as? String == "pass", "\(cell)")
        #expect((cell["cassette"] as? String ?? "").contains("extra-keyserver-spend.json"))
    }
}

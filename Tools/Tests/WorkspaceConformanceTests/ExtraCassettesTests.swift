import Foundation
import MockStores
import OpenCatConformance
import OpenCatConformanceSections
import Testing

/// How the cassettes of an extra `--fixtures` folder are shared out: by their `store`, to the stores' matrix or a
/// section, and a store nothing reads is refused, named.
struct ExtraCassettesTests {
    static let fixtures = ConformanceSuiteTests.fixtures
    static let matrixStores: Set<String> = ["apple", "google", "stripe", "paypal", "steam"]

    /// A scratch folder with `files` (relative path → contents), removed by the caller.
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-extra-\(UUID())")
        for (path, contents) in files {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(contents.utf8).write(to: file)
        }
        return folder
    }

    @Test func eachCassetteGoesWhereItsStoreSays() throws {
        let spend = try String(
            contentsOf: Self.fixtures.appendingPathComponent("keyserver/spend.json"),
            encoding: .utf8
        )
        let folder = try Self.folder([
            "a/spend.json": spend,
            "server.json": #"{"store": "server"}"#,
            "chippi.json": #"{"store": "chippipay"}"#,
            "llm.json": #"{"store": "llmkeys"}"#,
            "stripe.json": #"{"store": "stripe"}"#,
            "broken.json": "{ not json",
            "stray.json": spend.replacingOccurrences(of: #""store": "keyserver""#, with: #""store": "opencat""#),
            "scenarios.json": #"{"format": "opencat-scenarios/1"}"#,
            "notes.txt": "not a cassette",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let extra = try ExtraCassettes(folders: [folder], matrixStores: Self.matrixStores)
        #expect(extra.sections["keyserver"]?.map(\.lastPathComponent) == ["spend.json"])
        #expect(extra.sections["server"]?.map(\.lastPathComponent) == ["server.json"])
        #expect(extra.sections["chippipay"]?.map(\.lastPathComponent) == ["chippi.json"])
        #expect(extra.sections["llmkeys"]?.map(\.lastPathComponent) == ["llm.json"])
        // A file whose store cannot be read goes to the matrix, whose loader reports it invalid with the field.
        #expect(extra.matrix.map(\.lastPathComponent).sorted() == ["broken.json", "stripe.json"])
        #expect(extra.unread.count == 1)
        #expect(extra.unread.first?.contains("stray.json: store: 'opencat' is read by no section") == true)
        #expect(extra.count == 7)
    }

    @Test func aFolderThatIsNotOneIsRefused() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-missing-\(UUID())")
        #expect(throws: ConformanceError.self) {
            try ExtraCassettes(folders: [missing], matrixStores: Self.matrixStores)
        }
    }

    @Test func aSectionRunsItsExtraCassetteAsItsOwnAndAFalsifiedOneFails() async throws {
        let spend = try String(
            contentsOf: Self.fixtures.appendingPathComponent("keyserver/spend.json"),
            encoding: .utf8
        )
        let folder = try Self.folder([
            "copy.json": spend,
            "falsified.json": spend.replacingOccurrences(of: #""quantity": 6"#, with: #""quantity": 7"#),
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let extra = try ExtraCassettes(folders: [folder], matrixStores: Self.matrixStores)
        let suite = try #require(
            try ConformanceSections.suite(
                "keyserver",
                in: Self.fixtures,
                extraCassettes: extra.sections["keyserver"] ?? [],
                scenarios: ["spend"]
            )
        )
        #expect(suite.cassettes.filter { $0.scenario == "spend" }.count == 3)
        let report = await suite.run()
        let cell = try #require(report.cell(store: "keyserver", scenario: "spend"))
        #expect(cell.status == .fail)
        #expect(cell.detail?.contains("falsified.json:") == true, "\(cell.detail ?? "")")
        #expect(cell.detail?.contains("copy.json:") == false, "\(cell.detail ?? "")")
        #expect(!report.succeeded)
    }
}

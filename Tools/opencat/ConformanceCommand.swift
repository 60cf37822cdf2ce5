import ArgumentParser
import Foundation
import OpenCatConformance
import OpenCatConformanceSections

/// `opencat conformance`: runs every store adapter against every recorded scenario and prints the matrix.
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run the store conformance suite and print the store x scenario matrix.",
        discussion: """
            Every cassette in Fixtures/ (and in each --fixtures folder) is run against its store's adapter over real \
            HTTP to a MockStores server on 127.0.0.1, on a test clock. Exit status 0 when every applicable cell \
            passes and every cassette is valid; 1 otherwise.
            """
    )

    @Option(name: .customLong("store"), help: "Run only this store (repeatable).")
    var stores: [String] = []

    @Option(name: .customLong("scenario"), help: "Run only this scenario (repeatable).")
    var scenarios: [String] = []

    @Option(name: .customLong("fixtures"), help: "An extra folder of cassettes in the same format (repeatable).")
    var extraFixtures: [String] = []

    @Option(name: .customLong("catalogue"), help: "The scenario catalogue (default: Fixtures/scenarios.json).")
    var cataloguePath: String?

    @Option(name: .customLong("report"), help: "Write conformance.json, .md, .html and .junit.xml into this folder.")
    var reportDirectory: String = "reports"

    @Option(name: .customLong("root"), help: "The OpenCat checkout (default: found from the current folder).")
    var root: String?

    @Option(name: .customLong("parallel"), help: "How many cases run at once (default 1).")
    var parallel: Int = 1

    func validate() throws {
        guard (1...64).contains(parallel) else { throw ValidationError("--parallel takes 1 to 64") }
    }

    func run() async throws {
        let rootURL = try root.map { URL(fileURLWithPath: $0) } ?? Self.findRoot()
        let fixtures = rootURL.appendingPathComponent("Fixtures")
        let catalogue: ScenarioCatalogue
        let extra = extraFixtures.map { URL(fileURLWithPath: $0) }
        let suite: ConformanceSuite
        do {
            catalogue = try ScenarioCatalogue.load(
                from: cataloguePath.map { URL(fileURLWithPath: $0) }
                    ?? fixtures.appendingPathComponent("scenarios.json")
            )
            suite = try ConformanceSuite(
                catalogue: catalogue,
                cassetteFolders: [fixtures] + extra,
                stores: Set(stores),
                scenarios: Set(scenarios),
                parallelism: parallel
            )
        } catch {
            FileHandle.standardError.write(Data("opencat conformance: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let started = Date()
        var report = await suite.run()
        // The workspace's sections (key server, LLM keys, ChippiPay, reference server), when selected (or when
        // nothing is).
        for (name, title) in ConformanceSections.all where stores.isEmpty || stores.contains(name) {
            guard
                let section = try ConformanceSections.suite(
                    name,
                    in: fixtures,
                    parallelism: parallel,
                    scenarios: Set(scenarios)
                )
            else { continue }
            report.sections.append(.init(title: title, report: await section.run()))
        }
        report.startedAt = ISO8601DateFormatter().string(from: started)
        report.versions = Dictionary(uniqueKeysWithValues: VersionCommand.versions)
        print(report.renderText())
        let reportURL = URL(
            fileURLWithPath: reportDirectory,
            relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        )
        try report.write(to: reportURL)
        print("reports: \(reportURL.path)/conformance.json, conformance.md, conformance.html, conformance.junit.xml")
        if !report.succeeded { throw ExitCode(1) }
    }

    /// The nearest folder at or above the current one that has Fixtures/scenarios.json.
    static func findRoot() throws -> URL {
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Fixtures/scenarios.json").path) {
                return url
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path {
                throw ValidationError("no Fixtures/scenarios.json here or above; pass --root")
            }
            url = parent
        }
    }
}

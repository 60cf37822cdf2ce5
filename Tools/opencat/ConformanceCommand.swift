import ArgumentParser
import Foundation
import MockStores
import OpenCatConformance
import OpenCatConformanceSections

/// `opencat conformance`: runs every store adapter against every recorded scenario and prints the matrix.
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run the store conformance suite and print the store x scenario matrix.",
        discussion: """
            Every cassette in Fixtures/ is run against its store's adapter over real HTTP to a MockStores server on \
            127.0.0.1, on a test clock, then each section's (Fixtures/keyserver, llmkeys, chippipay, server, \
            operations, retention, steamworks) against its own catalogue. Each --fixtures folder is searched \
            recursively and every cassette in it goes where its "store" field says: apple, google, stripe, paypal or \
            steam to the stores' matrix (or, with a scenario of the operations, retention or steamworks catalogue, \
            to that section); keyserver, llmkeys, chippipay or server to that section, run as the section's own. \
            A cassette whose store no section reads is an invalid cassette, named with its store. Exit status 0 when \
            every applicable cell passes and every cassette is valid; 1 otherwise.
            """
    )

    @Option(name: .customLong("store"), help: "Run only this store (repeatable).")
    var stores: [String] = []

    @Option(name: .customLong("scenario"), help: "Run only this scenario (repeatable).")
    var scenarios: [String] = []

    @Option(
        name: .customLong("fixtures"),
        help: "An extra folder of cassettes, each run by the matrix or section its store names (repeatable)."
    )
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
        let suite: ConformanceSuite
        let extra: ExtraCassettes
        do {
            catalogue = try ScenarioCatalogue.load(
                from: cataloguePath.map { URL(fileURLWithPath: $0) }
                    ?? fixtures.appendingPathComponent("scenarios.json")
            )
            extra = try ExtraCassettes(
                folders: extraFixtures.map { URL(fileURLWithPath: $0) },
                matrixStores: Set(ConformanceAdapterFactory.builtIn.map(\.store.rawValue)),
                sectionScenarios: try ConformanceSections.storeSectionScenarios(in: fixtures)
            )
            suite = try ConformanceSuite(
                catalogue: catalogue,
                cassetteFolders: [fixtures],
                cassetteFiles: extra.matrix,
                stores: Set(stores),
                scenarios: Set(scenarios),
                parallelism: parallel
            )
        } catch {
            FileHandle.standardError.write(Data("opencat conformance: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if !extraFixtures.isEmpty { print(Self.describe(extra)) }
        let started = Date()
        var report = await suite.run()
        // A cassette of a --fixtures folder that nothing reads fails the run, named with its store.
        report.invalidCassettes += extra.unread
        // The workspace's sections (key server, LLM keys, ChippiPay, reference server), when selected (or when
        // nothing is), each with its share of the --fixtures cassettes.
        for (name, title) in ConformanceSections.all {
            // The operations section runs the five stores: --store picks among them, as in the matrix.
            let isOperations = name == ConformanceSections.operations
            let matrixStores = Set(ConformanceAdapterFactory.builtIn.map(\.store.rawValue))
            guard stores.isEmpty || stores.contains(name) || (isOperations && !matrixStores.isDisjoint(with: stores))
            else { continue }
            let extraCassettes = extra.sections[name] ?? []
            guard
                let section = try ConformanceSections.suite(
                    name,
                    in: fixtures,
                    extraCassettes: extraCassettes,
                    parallelism: parallel,
                    stores: isOperations ? Set(stores) : [],
                    scenarios: Set(scenarios)
                )
            else {
                report.invalidCassettes += extraCassettes.map {
                    "\(FixtureLoader.displayName($0)): store: '\(name)': the section has no catalogue at "
                        + "\(fixtures.appendingPathComponent(name).path)/scenarios.json"
                }
                continue
            }
            report.sections.append(
                .init(title: title, report: await section.run(), operations: ConformanceSections.operationNames(name))
            )
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

    /// One line saying where the --fixtures cassettes go.
    static func describe(_ extra: ExtraCassettes) -> String {
        var parts = ["stores' matrix \(extra.matrix.count)"]
        for (name, title) in ConformanceSections.all {
            parts.append("\(title) \(extra.sections[name]?.count ?? 0)")
        }
        parts.append("read by no section \(extra.unread.count)")
        return "--fixtures: \(extra.count) cassettes: " + parts.joined(separator: ", ")
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

import ArgumentParser
import Foundation
import MockStores
import OpenCatConformance
import OpenCatCore

/// `opencat fixtures …`: work with cassettes.
struct FixturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixtures",
        abstract: "Work with conformance cassettes.",
        subcommands: [FixturesLint.self]
    )
}

/// `opencat fixtures lint [DIR]`: validate cassettes against the schema rules and the catalogue, and refuse
/// anything that looks like a live credential.
struct FixturesLint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Validate cassettes: format, fields, catalogue agreement, coverage, and no live-looking secrets."
    )

    @Argument(help: "The folder of cassettes (default: Fixtures/).")
    var folder: String?

    @Option(name: .customLong("catalogue"), help: "The scenario catalogue (default: Fixtures/scenarios.json).")
    var cataloguePath: String?

    @Option(name: .customLong("root"), help: "The OpenCat checkout (default: found from the current folder).")
    var root: String?

    /// Text that looks like a live credential or a signed token; cassettes carry placeholders instead.
    static let forbidden: [(pattern: String, what: String)] = [
        ("sk_live_[A-Za-z0-9]+", "a live Stripe secret key"), ("rk_live_[A-Za-z0-9]+", "a live Stripe restricted key"),
        ("whsec_[A-Za-z0-9]+", "a Stripe webhook secret"), ("-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
        ("AIza[0-9A-Za-z_-]{20,}", "a Google API key"), ("eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}", "a JWS/JWT"),
        ("\\b[0-9A-F]{32}\\b", "a Steam publisher key"), ("ya29\\.[0-9A-Za-z_-]+", "a Google access token"),
        ("A21AA[0-9A-Za-z_-]{20,}", "a PayPal access token"),
    ]

    func run() async throws {
        let root = try root.map { URL(fileURLWithPath: $0) } ?? ConformanceCommand.findRoot()
        let fixtures = folder.map { URL(fileURLWithPath: $0) } ?? root.appendingPathComponent("Fixtures")
        let catalogue = try ScenarioCatalogue.load(
            from: cataloguePath.map { URL(fileURLWithPath: $0) }
                ?? root.appendingPathComponent("Fixtures/scenarios.json")
        )
        let sections = ConformanceSuite.sectionFolders(in: fixtures).map(\.standardizedFileURL.path)
        var (problems, count) = try lint(
            fixtures,
            catalogue: catalogue,
            root: root,
            coverage: folder == nil,
            skipping: { path in sections.contains { path.hasPrefix($0 + "/") } }
        )
        // Each section (the key server's) against its own catalogue.
        for section in ConformanceSuite.sectionFolders(in: fixtures) {
            let sectionCatalogue = try ScenarioCatalogue.load(from: section.appendingPathComponent("scenarios.json"))
            let (more, files) = try lint(
                section,
                catalogue: sectionCatalogue,
                root: root,
                coverage: folder == nil,
                skipping: { _ in false }
            )
            problems += more
            count += files
        }
        if problems.isEmpty {
            print("\(count) cassettes OK")
        } else {
            problems.forEach { print($0) }
            print("\(problems.count) problems in \(count) cassettes")
            throw ExitCode(1)
        }
    }

    /// Lints the cassettes of one folder against one catalogue; returns the problems and how many files were read.
    func lint(
        _ fixtures: URL,
        catalogue: ScenarioCatalogue,
        root: URL,
        coverage: Bool,
        skipping: (String) -> Bool
    ) throws -> ([String], Int) {
        let suite = try ConformanceSuite(catalogue: catalogue, cassetteFolders: [fixtures])
        var problems: [String] = []
        var present: Set<String> = []
        let files = try Cassette.cassetteFiles(in: fixtures).filter {
            $0.lastPathComponent != "scenarios.json" && !$0.lastPathComponent.hasSuffix(".schema.json")
                && !skipping($0.standardizedFileURL.path)
        }
        for file in files {
            let name = file.path.replacingOccurrences(of: root.path + "/", with: "")
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for (pattern, what) in Self.forbidden where text.range(of: pattern, options: .regularExpression) != nil {
                problems.append("\(name): contains what looks like \(what); use a {{placeholder}}")
            }
            do {
                let cassette = try suite.loadCassette(file)
                present.insert("\(cassette.store.rawValue)/\(cassette.scenario)")
                if catalogue.scenario(cassette.scenario) == nil {
                    problems.append("\(name): scenario: '\(cassette.scenario)' is not in the catalogue")
                } else if let reason = catalogue.notApplicableReason(store: cassette.store, scenario: cassette.scenario)
                {
                    problems.append(
                        "\(name): the catalogue says \(cassette.scenario) does not apply to \(cassette.store) (\(reason))"
                    )
                }
                problems += suite.catalogueDisagreements(cassette).map { "\(name): \($0)" }
            } catch {
                problems.append(String(describing: error))
            }
        }
        if coverage {
            for store in catalogue.stores {
                for scenario in catalogue.scenarios where scenario.notApplicable[store.rawValue] == nil {
                    if !present.contains("\(store.rawValue)/\(scenario.id)") {
                        problems.append(
                            "\(fixtures.lastPathComponent)/\(store.rawValue)/: no cassette for scenario \(scenario.id)"
                        )
                    }
                }
            }
        }
        return (problems, files.count)
    }
}

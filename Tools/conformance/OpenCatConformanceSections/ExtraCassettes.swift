public import Foundation
import MockStores
import OpenCatConformance

/// The cassettes of extra folders (`opencat conformance --fixtures DIR`), each handed to the part of the run that
/// reads its `store`: the stores' matrix (a store it has an adapter for) or one of ``ConformanceSections`` (its
/// adapter's store: `keyserver`, `llmkeys`, `chippipay`, `server`). Each part runs them as it runs its own, against
/// its own catalogue. A cassette whose `store` no part reads is refused, never skipped.
///
/// ```swift
/// let extra = try ExtraCassettes(folders: [mine], matrixStores: ["apple", "google", "stripe", "paypal", "steam"])
/// let keyServer = try ConformanceSections.suite(
///     "keyserver", in: fixtures, extraCassettes: extra.sections["keyserver"] ?? [])
/// ```
public struct ExtraCassettes: Sendable {
    /// Cassettes for the stores' matrix, and files whose `store` cannot be read (the matrix's loader reports those
    /// invalid, naming the field).
    public var matrix: [URL] = []
    /// Section folder name → its cassettes.
    public var sections: [String: [URL]] = [:]
    /// Cassettes no part of the run reads, each as `FILE: store: 'x' is read by no section …`: the run reports them
    /// among its invalid cassettes, so it fails.
    public var unread: [String] = []

    /// Every cassette found.
    public var count: Int { matrix.count + sections.values.reduce(0) { $0 + $1.count } + unread.count }

    /// Sorts the cassettes under `folders` (recursively, in path order; `scenarios.json` and `*.schema.json` are
    /// skipped, as everywhere).
    /// - Parameters:
    ///   - folders: the extra folders.
    ///   - matrixStores: the stores the matrix has an adapter for.
    ///   - sectionNames: the sections' folder names (default: every one of ``ConformanceSections/all``).
    ///   - sectionScenarios: section → the scenarios it reads whatever store a cassette names (the `operations`
    ///     section's cassettes name the five stores): such a cassette goes to that section, not the matrix.
    /// - Throws: ``ConformanceError`` when a folder is not a folder or cannot be listed.
    public init(
        folders: [URL],
        matrixStores: Set<String>,
        sectionNames: [String] = ConformanceSections.all.map(\.name),
        sectionScenarios: [String: Set<String>] = [:]
    ) throws {
        let sectionStores = Dictionary(
            sectionNames.compactMap { name in ConformanceSections.store(ofSection: name).map { ($0.rawValue, name) } },
            uniquingKeysWith: { first, _ in first }
        )
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ConformanceError("\(folder.path): not a folder of cassettes") }
            let files: [URL]
            do { files = try Cassette.cassetteFiles(in: folder) } catch {
                throw ConformanceError("\(folder.path): cannot list the folder of cassettes")
            }
            for file in files {
                guard let (store, scenario) = Self.declaredStoreAndScenario(of: file) else {
                    matrix.append(file)
                    continue
                }
                if let section = sectionScenarios.first(where: { $0.value.contains(scenario) })?.key {
                    sections[section, default: []].append(file)
                } else if matrixStores.contains(store) {
                    matrix.append(file)
                } else if let section = sectionStores[store] {
                    sections[section, default: []].append(file)
                } else {
                    unread.append(
                        "\(FixtureLoader.displayName(file)): store: '\(store)' is read by no section of this run "
                            + "(the stores' matrix reads \(matrixStores.sorted().joined(separator: ", ")); the "
                            + "sections read \(sectionStores.keys.sorted().joined(separator: ", ")))"
                    )
                }
            }
        }
    }

    /// The cassette's top-level `store`, or nil when the file is not a JSON object with a string there (the loader
    /// then says why, naming the field).
    public static func declaredStore(of file: URL) -> String? {
        declaredStoreAndScenario(of: file)?.store
    }

    /// The cassette's top-level `store` and `scenario` (an empty scenario when it has none).
    static func declaredStoreAndScenario(of file: URL) -> (store: String, scenario: String)? {
        struct Head: Decodable {
            var store: String
            var scenario: String?
        }
        guard let data = try? Cassette.readFile(at: file),
            let head = try? JSONDecoder().decode(Head.self, from: data)
        else { return nil }
        return (head.store, head.scenario ?? "")
    }
}

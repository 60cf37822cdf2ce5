public import Foundation
import OpenCatCore

/// The outcome of a suite run: one cell per store × scenario, plus the inputs that were refused.
public struct ConformanceReport: Sendable, Codable {
    /// One store × scenario cell.
    public struct Cell: Sendable, Codable, Hashable {
        /// A cell's verdict.
        public enum Status: String, Sendable, Codable, Hashable {
            /// The adapter produced the catalogue's outcome.
            case pass
            /// It did not, or the cassette is wrong.
            case fail
            /// The scenario cannot exist for this store (see ``detail``).
            case notApplicable = "n.a."
        }

        /// The store.
        public var store: String
        /// The scenario id.
        public var scenario: String
        /// The verdict.
        public var status: Status
        /// Why it failed, or why it does not apply.
        public var detail: String?
        /// The cassette that was run.
        public var cassette: String?

        /// A cell.
        public init(store: String, scenario: String, status: Status, detail: String? = nil, cassette: String? = nil) {
            self.store = store
            self.scenario = scenario
            self.status = status
            self.detail = detail
            self.cassette = cassette
        }
    }

    /// The stores, in column order.
    public var stores: [String]
    /// The scenario ids, in row order.
    public var scenarios: [String]
    /// Every cell.
    public var cells: [Cell]
    /// Cassettes that could not be loaded, each naming the file and the field.
    public var invalidCassettes: [String]
    /// How long the run took, in milliseconds.
    public var durationMilliseconds: Int
    /// Further sections of the same run with their own catalogue (the key server), by title.
    public var sections: [Section] = []
    /// When the run started (RFC 3339, UTC), when recorded.
    public var startedAt: String?
    /// The packages' versions the run used, when recorded.
    public var versions: [String: String]?

    /// A report.
    public init(
        stores: [String],
        scenarios: [String],
        cells: [Cell],
        invalidCassettes: [String],
        durationMilliseconds: Int,
        sections: [Section] = [],
        startedAt: String? = nil,
        versions: [String: String]? = nil
    ) {
        self.stores = stores
        self.scenarios = scenarios
        self.cells = cells
        self.invalidCassettes = invalidCassettes
        self.durationMilliseconds = durationMilliseconds
        self.sections = sections
        self.startedAt = startedAt
        self.versions = versions
    }

    /// A section: a titled report of its own.
    public struct Section: Sendable, Codable {
        /// The section's title (`Key server`, `Store operations`…).
        public var title: String
        /// The section's own matrix.
        public var report: ConformanceReport
        /// For a section of store operations (scenarios `<operation>-<case>`): the operations, in the order the
        /// text and HTML reports list them per store (``ConformanceReport/renderByStore(operations:)``). `nil`: a
        /// matrix of scenarios × stores.
        public var operations: [String]?

        /// Creates a section.
        public init(title: String, report: ConformanceReport, operations: [String]? = nil) {
            self.title = title
            self.report = report
            self.operations = operations
        }
    }

    /// Whether every cell passed or does not apply, and every cassette loaded, in every section.
    public var succeeded: Bool {
        invalidCassettes.isEmpty && cells.allSatisfy { $0.status != .fail } && sections.allSatisfy(\.report.succeeded)
    }

    /// The cell for a store and scenario.
    public func cell(store: String, scenario: String) -> Cell? {
        cells.first { $0.store == store && $0.scenario == scenario }
    }

    /// Counts of passing, failing and not-applicable cells.
    public var counts: (pass: Int, fail: Int, notApplicable: Int) {
        (
            cells.filter { $0.status == .pass }.count, cells.filter { $0.status == .fail }.count,
            cells.filter { $0.status == .notApplicable }.count
        )
    }

    /// The matrix as aligned text for a terminal.
    public func renderText() -> String {
        let width = max(26, (scenarios.map(\.count).max() ?? 0) + 2)
        func pad(_ text: String, _ size: Int) -> String {
            text.count >= size ? text : text + String(repeating: " ", count: size - text.count)
        }
        var lines = [pad("scenario", width) + stores.map { pad($0, 9) }.joined()]
        for scenario in scenarios {
            let row = stores.map { store -> String in
                switch cell(store: store, scenario: scenario)?.status {
                case .pass: return pad("pass", 9)
                case .fail: return pad("FAIL", 9)
                case .notApplicable: return pad("n.a.", 9)
                case nil: return pad("-", 9)
                }
            }
            lines.append(pad(scenario, width) + row.joined())
        }
        lines += problemLines()
        let (pass, fail, na) = counts
        lines.append("")
        lines.append(
            "\(stores.count) stores x \(scenarios.count) scenarios: \(pass) passed, \(fail) failed, \(na) not applicable, \(invalidCassettes.count) invalid cassettes (\(durationMilliseconds) ms)"
        )
        for section in sections {
            let text = section.operations.map(section.report.renderByStore) ?? section.report.renderText()
            lines += ["", "## \(section.title)", text]
        }
        return lines.joined(separator: "\n")
    }

    /// The failures (each with its first difference) and the invalid cassettes, each list after a blank line; none
    /// when there are none.
    func problemLines() -> [String] {
        let failures = cells.filter { $0.status == .fail }
        var lines: [String] = []
        if !failures.isEmpty {
            lines += ["", "Failures:"] + failures.map { "  \($0.store)/\($0.scenario): \($0.detail ?? "")" }
        }
        if !invalidCassettes.isEmpty { lines += ["", "Invalid cassettes:"] + invalidCassettes.map { "  \($0)" } }
        return lines
    }

    /// The matrix as a Markdown report, with the reasons for every n.a. and failure.
    public func renderMarkdown() -> String {
        var text =
            "# OpenCat conformance report\n\n| scenario | " + stores.joined(separator: " | ") + " |\n|---|"
            + stores.map { _ in ":-:|" }.joined() + "\n"
        for scenario in scenarios {
            let row = stores.map { store -> String in
                switch cell(store: store, scenario: scenario)?.status {
                case .pass: return "pass"
                case .fail: return "**FAIL**"
                case .notApplicable: return "n.a."
                case nil: return "-"
                }
            }
            text += "| \(scenario) | " + row.joined(separator: " | ") + " |\n"
        }
        let (pass, fail, na) = counts
        text +=
            "\n\(pass) passed, \(fail) failed, \(na) not applicable; \(invalidCassettes.count) invalid cassettes; \(durationMilliseconds) ms.\n"
        let notes = cells.filter { $0.status != .pass }
        if !notes.isEmpty {
            text += "\n## Notes\n\n"
            for cell in notes {
                text += "- `\(cell.store)/\(cell.scenario)` \(cell.status.rawValue): \(cell.detail ?? "")\n"
            }
        }
        if !invalidCassettes.isEmpty {
            text += "\n## Invalid cassettes\n\n" + invalidCassettes.map { "- \($0)\n" }.joined()
        }
        for section in sections {
            text +=
                "\n"
                + section.report.renderMarkdown().replacingOccurrences(
                    of: "# OpenCat conformance report",
                    with: "# \(section.title)"
                )
        }
        return text
    }

    /// Writes `conformance.json`, `conformance.md`, `conformance.html` and `conformance.junit.xml` into a folder
    /// (created if needed).
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: directory.appendingPathComponent("conformance.json"))
        try Data(renderMarkdown().utf8).write(to: directory.appendingPathComponent("conformance.md"))
        try Data(renderHTML().utf8).write(to: directory.appendingPathComponent("conformance.html"))
        try Data(renderJUnit().utf8).write(to: directory.appendingPathComponent("conformance.junit.xml"))
    }
}

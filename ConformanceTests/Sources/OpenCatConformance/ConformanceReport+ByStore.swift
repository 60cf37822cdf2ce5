import Foundation

/// A section of store operations read per store: what each store offers, with its cases, and what it does not offer,
/// with the reason — instead of a grid of operations × cases × stores that is mostly n.a.
extension ConformanceReport {
    /// The cases each operation is run through (`<operation>-<case>`), in the order they are listed.
    public static let operationCases = [
        "success", "not-found", "already-done", "rate-limited-then-success", "store-error", "timeout",
        "malformed-response", "credentials-rejected",
    ]

    /// One store's part of an operations section.
    struct StoreOperationsSummary {
        var store: String
        /// The operations the store offers, each with its cells in ``ConformanceReport/operationCases`` order.
        var offered: [(operation: String, cells: [Cell?])]
        /// The operations it does not offer, grouped by reason: (operations, reason).
        var notOffered: [(operations: [String], reason: String)]
    }

    /// The section per store. An operation is not offered by a store when every one of its cells is n.a.; the reason
    /// is its success case's. Reasons that differ only by naming their own operation are one reason. An operation
    /// only one of several stores offers is left out of the others' lists (``exclusiveOperations(_:)`` names it
    /// once).
    func storeOperations(_ operations: [String]) -> [StoreOperationsSummary] {
        let exclusive = Set(exclusiveOperations(operations).flatMap(\.operations))
        return stores.map { store in
            var offered: [(operation: String, cells: [Cell?])] = []
            var groups: [(key: String, operations: [String], reason: String)] = []
            for operation in operations {
                let cells = Self.operationCases.map { cell(store: store, scenario: "\(operation)-\($0)") }
                guard cells.allSatisfy({ $0 == nil || $0?.status == .notApplicable }) else {
                    offered.append((operation: operation, cells: cells))
                    continue
                }
                if exclusive.contains(operation) { continue }
                let reason = cells.first??.detail ?? "not offered"
                let key = reason.replacingOccurrences(of: operation, with: "\u{0}")
                if let index = groups.firstIndex(where: { $0.key == key }) {
                    groups[index].operations.append(operation)
                    groups[index].reason = key.replacingOccurrences(of: "\u{0}", with: "them")
                } else {
                    groups.append((key: key, operations: [operation], reason: reason))
                }
            }
            return StoreOperationsSummary(
                store: store,
                offered: offered,
                notOffered: groups.map { (operations: $0.operations, reason: $0.reason) }
            )
        }
    }

    /// The operations exactly one store of several offers, by that store, in store order (none with one store).
    func exclusiveOperations(_ operations: [String]) -> [(store: String, operations: [String])] {
        guard stores.count > 1 else { return [] }
        return stores.compactMap { store in
            let own = operations.filter { operation in
                let offeredBy = stores.filter { other in
                    Self.operationCases.contains { name in
                        let status = cell(store: other, scenario: "\(operation)-\(name)")?.status
                        return status != nil && status != .notApplicable
                    }
                }
                return offeredBy == [store]
            }
            return own.isEmpty ? nil : (store: store, operations: own)
        }
    }

    /// The line naming the operations only one store offers: `only one store offers: a, b (apple); c (stripe)`.
    func exclusiveLine(_ operations: [String]) -> String? {
        let exclusive = exclusiveOperations(operations)
        guard !exclusive.isEmpty else { return nil }
        return "only one store offers: "
            + exclusive.map { "\($0.operations.joined(separator: ", ")) (\($0.store))" }.joined(separator: "; ")
    }

    /// The scenarios that are no operation's case: the catalogue's store facts (one store's documented answer with a
    /// shape of its own, run as one more success case of an operation), each with the store whose fact it is.
    func storeFacts(_ operations: [String]) -> [(scenario: String, cell: Cell?)] {
        let grid = Set(operations.flatMap { operation in Self.operationCases.map { "\(operation)-\($0)" } })
        return scenarios.filter { !grid.contains($0) }.map { scenario in
            (scenario, cells.first { $0.scenario == scenario && $0.status != .notApplicable })
        }
    }

    /// The line naming the store facts and their marks: `store facts: a (google) ✓, b (stripe) ✓`.
    func storeFactsLine(_ operations: [String]) -> String? {
        let facts = storeFacts(operations)
        guard !facts.isEmpty else { return nil }
        return "store facts: "
            + facts.map { "\($0.scenario) (\($0.cell?.store ?? "no store")) \(Self.mark($0.cell))" }
            .joined(separator: ", ")
    }

    /// A case's mark: ✓ passed, ✗ failed, · not applicable, ? not run.
    static func mark(_ cell: Cell?) -> String {
        switch cell?.status {
        case .pass: "✓"
        case .fail: "✗"
        case .notApplicable: "·"
        case nil: "?"
        }
    }

    /// The section as text, per store: the operations it offers (each with its eight cases' marks, several to a
    /// line), then one line per reason it does not offer others; the operations only one store offers are named once
    /// after the stores; then failures, invalid cassettes and the counts.
    public func renderByStore(operations: [String]) -> String {
        var lines = [
            "Per store: each operation it offers, its cases in this order: "
                + Self.operationCases.joined(separator: ", ")
                + " (✓ pass, ✗ FAIL, · n.a.); then what it does not offer, and why."
        ]
        for summary in storeOperations(operations) {
            lines.append("\(summary.store): offers \(summary.offered.count) of \(operations.count)")
            var line = " "
            for (operation, cells) in summary.offered {
                let item = " \(operation) " + cells.map(Self.mark).joined()
                if line.count + item.count > 118 {
                    lines.append(line)
                    line = " "
                }
                line += item
            }
            if summary.offered.isEmpty == false { lines.append(line) }
            for group in summary.notOffered {
                lines.append("  not offered: \(group.operations.joined(separator: ", ")): \(group.reason)")
            }
        }
        if let exclusive = exclusiveLine(operations) { lines += Self.wrapped(exclusive, width: 118) }
        if let facts = storeFactsLine(operations) { lines += Self.wrapped(facts, width: 118) }
        lines += problemLines()
        let (pass, fail, na) = counts
        let facts = storeFacts(operations).count
        lines.append(
            "\(stores.count) stores x \(operations.count) operations x \(Self.operationCases.count) cases"
                + (facts > 0 ? " and \(facts) store facts" : "") + ": \(pass) passed, "
                + "\(fail) failed, \(na) not applicable, \(invalidCassettes.count) invalid cassettes "
                + "(\(durationMilliseconds) ms)"
        )
        return lines.joined(separator: "\n")
    }

    /// The section as HTML, per store: a table of the operations it offers × the cases, then a list of what it does
    /// not offer with the reasons.
    func renderByStoreHTML(operations: [String]) -> String {
        var body = ""
        for summary in storeOperations(operations) {
            body += "<h3>\(Self.html(summary.store)): offers \(summary.offered.count) of \(operations.count)</h3>\n"
            if !summary.offered.isEmpty {
                body += "<table><thead><tr><th>operation</th>"
                body += Self.operationCases.map { "<th>\(Self.html($0))</th>" }.joined() + "</tr></thead><tbody>\n"
                for (operation, cells) in summary.offered {
                    body += "<tr><th scope=\"row\">\(Self.html(operation))</th>"
                    for (index, cell) in cells.enumerated() {
                        body += Self.htmlCell(
                            cell,
                            store: summary.store,
                            scenario: "\(operation)-\(Self.operationCases[index])"
                        )
                    }
                    body += "</tr>\n"
                }
                body += "</tbody></table>\n"
            }
            if !summary.notOffered.isEmpty {
                body += "<ul class=\"not-offered\">"
                body += summary.notOffered.map { group in
                    "<li><code>\(Self.html(group.operations.joined(separator: ", ")))</code>: \(Self.html(group.reason))</li>"
                }.joined()
                body += "</ul>\n"
            }
        }
        if let exclusive = exclusiveLine(operations) { body += "<p class=\"exclusive\">\(Self.html(exclusive))</p>\n" }
        if let facts = storeFactsLine(operations) { body += "<p class=\"store-facts\">\(Self.html(facts))</p>\n" }
        return body
    }

    /// A long line cut at spaces into lines of at most `width` characters, the later ones indented by two.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = " "
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        lines.append(line)
        return lines
    }
}

import Foundation

/// The report as the documents people and CI systems read: a self-contained HTML page and a JUnit XML file.
extension ConformanceReport {
    /// Every section of the run, the store matrix first: (title, report).
    var allSections: [(title: String, report: ConformanceReport, operations: [String]?)] {
        [("Stores", self, nil)] + sections.map { ($0.title, $0.report, $0.operations) }
    }

    // MARK: HTML

    /// One page, no external resource: the matrices coloured pass / fail / n.a., each n.a. reason and each
    /// failure's first difference on hover (title) and in an expandable cell, the run's date, versions and duration.
    public func renderHTML() -> String {
        var body = ""
        for (title, report, operations) in allSections {
            if let operations {
                body += "<section><h2>\(Self.html(title))</h2>\n" + report.renderByStoreHTML(operations: operations)
                body += report.htmlSummary() + "</section>\n"
                continue
            }
            body += "<section><h2>\(Self.html(title))</h2>\n<table><thead><tr><th>scenario</th>"
            body += report.stores.map { "<th>\(Self.html($0))</th>" }.joined() + "</tr></thead><tbody>\n"
            for scenario in report.scenarios {
                body += "<tr><th scope=\"row\">\(Self.html(scenario))</th>"
                for store in report.stores {
                    body += Self.htmlCell(
                        report.cell(store: store, scenario: scenario),
                        store: store,
                        scenario: scenario
                    )
                }
                body += "</tr>\n"
            }
            body += "</tbody></table>\n" + report.htmlSummary() + "</section>\n"
        }
        let versionText = (versions ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ")
        let (pass, fail, na) = totals
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>OpenCat conformance report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
            table { border-collapse: collapse; margin: 8px 0; }
            th, td { border: 1px solid #c7c7cc; padding: 4px 10px; text-align: center; }
            th[scope=row] { text-align: left; font-weight: normal; font-family: ui-monospace, monospace; }
            td.pass { background: #34c759; color: #fff; }
            td.fail { background: #ff3b30; color: #fff; font-weight: bold; }
            td.na { background: #d1d1d6; color: #3a3a3c; }
            td details { text-align: left; max-width: 32em; }
            td details p { font-weight: normal; white-space: pre-wrap; margin: 4px 0 0; }
            .meta, .summary { color: #3a3a3c; }
            .verdict-pass { color: #248a3d; } .verdict-fail { color: #d70015; }
            </style></head><body>
            <h1>OpenCat conformance report</h1>
            <p class="meta">Run \(Self.html(startedAt ?? "at an unrecorded time")) · \(totalMilliseconds) ms · \
            \(Self.html(versionText.isEmpty ? "versions not recorded" : versionText))</p>
            <p class="\(succeeded ? "verdict-pass" : "verdict-fail")" id="verdict">\
            \(succeeded ? "Every applicable cell passed" : "Some cells failed"): \(pass) passed, \(fail) failed, \
            \(na) not applicable.</p>
            \(body)</body></html>

            """
    }

    /// Counts over every section.
    public var totals: (pass: Int, fail: Int, notApplicable: Int) {
        allSections.reduce((0, 0, 0)) { sum, section in
            let counts = section.report.counts
            return (sum.0 + counts.pass, sum.1 + counts.fail, sum.2 + counts.notApplicable)
        }
    }

    /// A matrix's counts, and its invalid cassettes.
    func htmlSummary() -> String {
        let (pass, fail, na) = counts
        var text = "<p class=\"summary\">\(pass) passed, \(fail) failed, \(na) not applicable, "
        text += "\(invalidCassettes.count) invalid cassettes, \(durationMilliseconds) ms</p>\n"
        if !invalidCassettes.isEmpty {
            text += "<ul class=\"invalid\">" + invalidCassettes.map { "<li>\(Self.html($0))</li>" }.joined() + "</ul>\n"
        }
        return text
    }

    static func htmlCell(_ cell: Cell?, store: String, scenario: String) -> String {
        let attributes = "data-cell=\"\(html(store))/\(html(scenario))\""
        guard let cell else { return "<td \(attributes) data-status=\"missing\">-</td>" }
        let detail = html(cell.detail ?? "")
        switch cell.status {
        case .pass:
            return "<td class=\"pass\" \(attributes) data-status=\"pass\">pass</td>"
        case .notApplicable:
            return "<td class=\"na\" \(attributes) data-status=\"n.a.\" title=\"\(detail)\">"
                + "<details><summary>n.a.</summary><p>\(detail)</p></details></td>"
        case .fail:
            return "<td class=\"fail\" \(attributes) data-status=\"fail\" title=\"\(detail)\">"
                + "<details><summary>FAIL</summary><p>\(detail)</p></details></td>"
        }
    }

    /// Escapes per Unicode scalar (a quote followed by a combining mark is one `Character` but still a quote).
    static func html(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    // MARK: JUnit

    /// JUnit XML (the common schema CI dashboards read): a test suite per section, a test case per cell, n.a. as
    /// skipped with its reason, failures with their message.
    public func renderJUnit() -> String {
        let (pass, fail, na) = totals
        let tests = pass + fail + na + invalidTotal
        let seconds = String(format: "%.3f", Double(totalMilliseconds) / 1000)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"OpenCat conformance\" tests=\"\(tests)\" failures=\"\(fail)\" errors=\"\(invalidTotal)\""
        xml += " skipped=\"\(na)\" time=\"\(seconds)\">\n"
        for (index, section) in allSections.enumerated() {
            let report = section.report
            let counts = report.counts
            let suiteTime = String(format: "%.3f", Double(report.durationMilliseconds) / 1000)
            xml += "  <testsuite name=\"\(Self.xml(section.title))\" id=\"\(index)\""
            xml += " tests=\"\(counts.pass + counts.fail + counts.notApplicable + report.invalidCassettes.count)\""
            xml += " failures=\"\(counts.fail)\""
            xml += " errors=\"\(report.invalidCassettes.count)\" skipped=\"\(counts.notApplicable)\""
            xml += " time=\"\(suiteTime)\" timestamp=\"\(Self.xml(Self.junitTimestamp(startedAt)))\">\n"
            for scenario in report.scenarios {
                for store in report.stores {
                    guard let cell = report.cell(store: store, scenario: scenario) else { continue }
                    let classname =
                        "conformance.\(section.title.lowercased().replacingOccurrences(of: " ", with: "-")).\(store)"
                    xml +=
                        "    <testcase classname=\"\(Self.xml(classname))\" name=\"\(Self.xml(scenario))\" time=\"0\""
                    switch cell.status {
                    case .pass:
                        xml += "/>\n"
                    case .notApplicable:
                        xml +=
                            ">\n      <skipped message=\"\(Self.xml(cell.detail ?? "not applicable"))\"/>\n    </testcase>\n"
                    case .fail:
                        let detail = cell.detail ?? "failed"
                        let first = detail.components(separatedBy: .newlines).first ?? ""
                        xml +=
                            ">\n      <failure message=\"\(Self.xml(first))\" type=\"conformance\">\(Self.xml(detail))"
                        xml += "</failure>\n    </testcase>\n"
                    }
                }
            }
            for (position, invalid) in report.invalidCassettes.enumerated() {
                xml +=
                    "    <testcase classname=\"conformance.cassettes\" name=\"invalid-cassette-\(position + 1)\" time=\"0\">\n"
                xml += "      <error message=\"\(Self.xml(invalid))\" type=\"invalidCassette\"/>\n    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// The run's time over every section, in milliseconds.
    public var totalMilliseconds: Int { allSections.reduce(0) { $0 + $1.report.durationMilliseconds } }

    var invalidTotal: Int { allSections.reduce(0) { $0 + $1.report.invalidCassettes.count } }

    /// JUnit's timestamp: ISO 8601 without a zone designator.
    static func junitTimestamp(_ text: String?) -> String {
        guard let text, text.hasSuffix("Z") else { return "1970-01-01T00:00:00" }
        return String(text.dropLast().prefix(19))
    }

    static func xml(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n": escaped += "&#10;"
            case "\t": escaped += "&#9;"
            default:
                // XML 1.0 allows no other control characters.
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    escaped += "\u{FFFD}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}

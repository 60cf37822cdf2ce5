import Foundation
import Testing
import ToolsTestSupport

/// `opencat conformance` prints the store operations per store: what each store offers with its eight cases, what it
/// does not offer with the reason — short enough to read at a glance — while the JSON report keeps every cell.
struct ConformanceOperationsCLITests {
    @Test func theOperationsSectionReadsPerStoreInUnderSixtyLines() async throws {
        let scratch = try ScratchFolder()
        let reports = scratch.url.appendingPathComponent("reports")
        let result = try await OpenCatCLI.run([
            "conformance", "--root", TestEnvironment.repositoryRoot.path, "--report", reports.path,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "## Store operations"), "\(result.standardOutput)")
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") && !$0.hasPrefix("reports: ") }
        #expect(section.count < 60, "\(section.count) lines:\n\(section.joined(separator: "\n"))")
        for store in ["apple", "google", "stripe", "paypal", "steam"] {
            #expect(section.contains { $0.hasPrefix("\(store): offers ") }, "no line for \(store)")
        }
        // An offered operation with its eight cases' marks; a refused one with the adapter's reason.
        #expect(section.contains { $0.contains(" refund ✓✓✓✓✓✓✓✓") })
        #expect(
            section.contains(
                "  not offered: refund: the App Store refunds only at the customer's request; send consumption "
                    + "information instead"
            )
        )
        // Operations that differ only by name share their reason's line; those only one store offers are named once.
        #expect(section.contains { $0.hasPrefix("  not offered: suspend, resume: ") })
        #expect(section.contains { $0.hasPrefix("only one store offers: refund-history, extend-all, consumption, ") })
        #expect(section.contains { $0.contains(" subscriptions ✓✓·✓✓✓✓✓") })
        #expect(!section.contains { $0.hasPrefix("  not offered: consumption") })
        let counts = section.last { !$0.isEmpty }
        #expect(counts?.hasPrefix("5 stores x ") == true && counts?.contains(" 0 failed") == true)
        // The documents keep every cell; the page reads per store too.
        let json = try Data(contentsOf: reports.appendingPathComponent("conformance.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let operations = try #require(
            (report["sections"] as? [[String: Any]])?.first { $0["title"] as? String == "Store operations" }
        )
        #expect(((operations["report"] as? [String: Any])?["cells"] as? [Any])?.count ?? 0 >= 600)
        #expect((operations["operations"] as? [String])?.first == "history")
        let html = try String(contentsOf: reports.appendingPathComponent("conformance.html"), encoding: .utf8)
        #expect(html.contains("<h3>apple: offers "))
        #expect(html.contains("<ul class=\"not-offered\">"))
        #expect(html.contains("<p class=\"exclusive\">only one store offers: "))
    }
}

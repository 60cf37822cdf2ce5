import Testing

@testable import OpenCatConformance

/// The operations section read per store: the reasons shared by several operations are one line, and an operation
/// only one of several stores offers is named once after the stores instead of under each other store.
struct ConformanceReportByStoreTests {
    /// Two stores: `a` offers `read` and `write`, `b` offers `write` only.
    static func report(stores: [String] = ["a", "b"]) -> ConformanceReport {
        var cells: [ConformanceReport.Cell] = []
        for store in stores {
            for operation in ["read", "write", "pause", "resume"] {
                for name in ConformanceReport.operationCases {
                    let offered = operation == "write" || (operation == "read" && store == "a")
                    cells.append(
                        ConformanceReport.Cell(
                            store: store,
                            scenario: "\(operation)-\(name)",
                            status: offered ? .pass : .notApplicable,
                            detail: offered ? nil : "\(store) cannot \(operation)"
                        )
                    )
                }
            }
        }
        let scenarios = Set(cells.map(\.scenario)).sorted()
        return ConformanceReport(
            stores: stores,
            scenarios: scenarios,
            cells: cells,
            invalidCassettes: [],
            durationMilliseconds: 1
        )
    }

    @Test func anOperationOnlyOneStoreOffersIsNamedOnceAfterTheStores() {
        let text = Self.report().renderByStore(operations: ["read", "write", "pause", "resume"])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("a: offers 2 of 4"))
        #expect(lines.contains("  not offered: pause, resume: a cannot them"))
        #expect(lines.contains("  not offered: pause, resume: b cannot them"))
        #expect(!lines.contains { $0.contains("b cannot read") })
        #expect(lines.contains("only one store offers: read (a)"))
    }

    @Test func withOneStoreEveryOperationItLacksKeepsItsReason() {
        let text = Self.report(stores: ["b"]).renderByStore(operations: ["read", "write", "pause", "resume"])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("  not offered: read, pause, resume: b cannot them"))
        #expect(!lines.contains { $0.hasPrefix("only one store offers") })
    }

    @Test func aLongLineIsCutAtSpacesAndTheRestIndented() {
        let lines = ConformanceReport.wrapped("one two three four", width: 9)
        #expect(lines == ["one two", "  three", "  four"])
    }
}

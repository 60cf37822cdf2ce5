import Foundation
import OpenCatConformance
import OpenCatCore
import Testing

/// The yardstick an adapter author is measured against: the five built-in adapters of StoreAdapters run against the
/// repository's own cassettes, the run `opencat conformance` makes (every cassette over real HTTP to a mock store on
/// 127.0.0.1, on a test clock).
struct BuiltInAdaptersConformanceTests {
    @Test func theFiveBuiltInAdaptersPassEveryScenarioOfTheRepositorysFixtures() async throws {
        let fiveStores = ["apple", "google", "stripe", "paypal", "steam"]
        #expect(ConformanceAdapterFactory.builtIn.map(\.store.rawValue) == fiveStores)
        let catalogue = try ConformanceFixtures.catalogue()
        // The catalogue's own sections (subfolders of Fixtures/ with a scenarios.json of their own) are left out of
        // this run by the suite itself: only the five stores' matrix runs.
        let suite = try ConformanceSuite(
            catalogue: catalogue,
            cassetteFolders: [ConformanceFixtures.folder()],
            adapters: ConformanceAdapterFactory.builtIn
        )
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        #expect(!suite.cassettes.isEmpty)

        let report = await suite.run()

        #expect(report.succeeded, "\(report.renderText())")
        #expect(report.stores == fiveStores)
        #expect(report.scenarios == catalogue.scenarios.map(\.id))
        #expect(report.cells.count == report.stores.count * report.scenarios.count)
        #expect(report.counts.fail == 0)
        // Every store proves something: a store whose cells were all "not applicable" would pass vacuously.
        for store in report.stores {
            let passed = report.cells.filter { $0.store == store && $0.status == .pass }
            #expect(!passed.isEmpty, "\(store) passed no scenario")
        }
        let paid = try #require(report.cell(store: "stripe", scenario: "one-time-paid"))
        #expect(paid.status == .pass, "\(paid.detail ?? "")")
    }
}

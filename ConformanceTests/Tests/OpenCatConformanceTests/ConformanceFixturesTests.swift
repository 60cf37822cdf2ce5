import Foundation
import OpenCatConformance
import OpenCatCore
import Testing

/// The bundled fixtures are what an adapter author gets from the package alone: the catalogue, every store's
/// cassettes, and the five built-in adapters pass them.
struct ConformanceFixturesTests {
    @Test func theBundledFolderHoldsTheCatalogueAndEachStoresCassettes() throws {
        let folder = try ConformanceFixtures.folder()
        let catalogue = try ConformanceFixtures.catalogue()
        #expect(!catalogue.scenarios.isEmpty)
        for store in ConformanceFixtures.stores {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(store).path)
            #expect(files.contains { $0.hasSuffix(".json") }, "\(store) has no cassette")
        }
        #expect(ConformanceAdapterFactory.builtIn.map(\.store.rawValue) == ConformanceFixtures.stores)
    }

    /// One paid purchase per store, each verified by its built-in adapter over HTTP to a mock store on loopback.
    @Test func eachBuiltInAdapterVerifiesABundledPaidPurchase() async throws {
        let suite = try ConformanceSuite(
            catalogue: ConformanceFixtures.catalogue(),
            cassetteFolders: [ConformanceFixtures.folder()],
            scenarios: ["one-time-paid"]
        )
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        let report = await suite.run()
        #expect(report.succeeded, "\(report.renderText())")
        for store in ConformanceFixtures.stores {
            let cell = try #require(report.cell(store: store, scenario: "one-time-paid"))
            #expect(cell.status != .fail, "\(store): \(cell.detail ?? "")")
        }
        #expect(report.cell(store: "stripe", scenario: "one-time-paid")?.status == .pass)
    }
}

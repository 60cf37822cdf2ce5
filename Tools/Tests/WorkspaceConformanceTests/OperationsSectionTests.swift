import Foundation
import MockStores
import OpenCatConformance
import OpenCatConformanceSections
import OpenCatCore
import StoreAdapters
import Testing

/// The operations section: its catalogue names eight cases of every operation (and the store facts), says n.a. exactly where the store's
/// adapter says it lacks the operation (with the adapter's own reason), and extra operation cassettes go to it.
struct OperationsSectionTests {
    static let fixtures = ConformanceSuiteTests.fixtures
    static let cases = ConformanceReport.operationCases
    /// One store's documented answer with a shape of its own, run as one more success case of an operation.
    static let storeFacts: Set = ["lookup-order-partially-refunded", "invoices-subscription-details"]

    static let suite = Result { try ConformanceSections.suite(ConformanceSections.operations, in: fixtures) }

    @Test func everyOperationHasItsEightCasesForTheFiveStores() throws {
        let suite = try #require(try Self.suite.get())
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        #expect(Set(suite.stores) == ["apple", "google", "stripe", "paypal", "steam"])
        let expected = Set(StoreOperation.all.flatMap { operation in Self.cases.map { "\(operation)-\($0)" } })
        #expect(Set(suite.scenarioIds) == expected.union(Self.storeFacts))
        // Every cassette is named after its scenario, in its store's folder.
        for cassette in suite.cassettes {
            #expect(cassette.name.hasSuffix("\(cassette.store.rawValue)/\(cassette.scenario).json"), "\(cassette.name)")
        }
    }

    @Test(arguments: ["apple", "google", "stripe", "paypal", "steam"])
    func theCatalogueSaysNotApplicableExactlyWhereTheAdapterLacksTheOperation(_ store: String) throws {
        let suite = try #require(try Self.suite.get())
        let cassette = try #require(suite.cassettes.first { $0.store.rawValue == store }, "no cassette of \(store)")
        let factory = try #require(ConformanceAdapterFactory.builtIn.first { $0.store.rawValue == store })
        let environment = ConformanceEnvironment(
            baseURL: URL(string: "http://127.0.0.1:9")!,
            config: cassette.config,
            credentials: suite.credentials,
            httpClient: HTTPClient()
        )
        let adapter = try #require(try factory.make(environment) as? any StoreOperations)
        for operation in StoreOperation.all {
            let support = adapter.support(for: operation)
            let reason = suite.catalogue.notApplicableReason(
                store: Store(rawValue: store),
                scenario: "\(operation)-success"
            )
            #expect(reason == support.reason, "\(store) \(operation)")
            #expect(support.isSupported == (support.reason == nil), "\(store) \(operation)")
        }
    }

    @Test func anExtraOperationsCassetteGoesToTheOperationsSection() throws {
        let text = try String(
            contentsOf: Self.fixtures.appendingPathComponent("operations/stripe/refund-success.json"),
            encoding: .utf8
        )
        let folder = try ExtraCassettesTests.folder(["mine/refund.json": text])
        defer { try? FileManager.default.removeItem(at: folder) }
        let suite = try #require(try Self.suite.get())
        let extra = try ExtraCassettes(
            folders: [folder],
            matrixStores: ["apple", "google", "stripe", "paypal", "steam"],
            sectionScenarios: [ConformanceSections.operations: Set(suite.scenarioIds)]
        )
        #expect(extra.matrix.isEmpty)
        #expect(extra.sections[ConformanceSections.operations]?.count == 1)
    }
}

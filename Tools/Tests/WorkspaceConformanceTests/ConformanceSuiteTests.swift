import Foundation
import MockStores
import OpenCatConformance
import OpenCatConformanceSections
import OpenCatCore
import OpenCatTesting
import Testing
import ToolsTestSupport

/// The conformance suite, run by `swift test`: every built-in adapter against every cassette in Fixtures/.
struct ConformanceSuiteTests {
    static let root = TestEnvironment.repositoryRoot
    static let fixtures = root.appendingPathComponent("Fixtures")

    func catalogue() throws -> ScenarioCatalogue {
        try ScenarioCatalogue.load(from: Self.fixtures.appendingPathComponent("scenarios.json"))
    }

    /// The run every cell shares: cassettes parsed and credentials generated once.
    static let shared = Result {
        try ConformanceSuite(
            catalogue: ScenarioCatalogue.load(from: fixtures.appendingPathComponent("scenarios.json")),
            cassetteFolders: [fixtures]
        )
    }

    /// Every store × scenario cell (empty if the fixtures cannot be loaded: the matrix test then fails).
    static var cells: [ConformanceSuite.CellID] { (try? shared.get())?.cellIDs ?? [] }

    /// One test case per cell: each built-in adapter against each scenario's cassettes, over real HTTP to a mock
    /// store on loopback. A cell passes or is not applicable (with the catalogue's reason); none fails.
    @Test(arguments: cells)
    func cell(_ id: ConformanceSuite.CellID) async throws {
        let cell = await (try Self.shared.get()).cell(id)
        #expect(cell.status != .fail, "\(id): \(cell.detail ?? "")")
        if cell.status == .notApplicable { #expect(cell.detail?.isEmpty == false) }
    }

    /// The sections (key server, LLM keys): each its own catalogue under Fixtures/, run through the same runner.
    static let sections = Result { try ConformanceSections.suites(in: fixtures) }

    /// One cell of one section.
    struct SectionCell: Sendable, CustomStringConvertible {
        var section: String
        var id: ConformanceSuite.CellID
        var description: String { "\(section): \(id)" }
    }

    static var sectionCells: [SectionCell] {
        ((try? sections.get()) ?? [:]).flatMap { name, suite in suite.cellIDs.map { SectionCell(section: name, id: $0) }
        }
        .sorted { $0.description < $1.description }
    }

    /// Every section cell passes; only the operations section has n.a. cells (a store without the operation, or a
    /// case that cannot happen), each with its reason.
    @Test(arguments: sectionCells)
    func sectionCell(_ cell: SectionCell) async throws {
        let suite = try #require(try Self.sections.get()[cell.section])
        let result = await suite.cell(cell.id)
        if cell.section == ConformanceSections.operations, result.status == .notApplicable {
            #expect(result.detail?.isEmpty == false)
        } else {
            #expect(result.status == .pass, "\(cell): \(result.detail ?? "")")
        }
    }

    @Test func theLLMKeysSectionCoversEveryTierAndErrorPath() throws {
        let suite = try #require(try Self.sections.get()["llmkeys"])
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        let expected: Set<String> = [
            "status-pro", "status-pro-plus", "status-pro-trial", "status-starter-with-keys",
            "status-starter-without-keys", "status-free", "masked-get", "partial-post", "invalid-key", "unauthorized",
            "server-error", "malformed-response",
        ]
        #expect(expected == Set(suite.scenarioIds))
        #expect(try Self.shared.get().cassettes.allSatisfy { $0.store.rawValue != "llmkeys" })
    }

    @Test func theKeyServerSectionCoversEveryEndpointScenario() throws {
        let suite = try #require(try Self.sections.get()["keyserver"])
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        let expected: Set<String> = [
            "purchase-apple", "purchase-google", "purchase-stripe", "purchase-paypal", "purchase-steam", "spend",
            "insufficient-balance", "sync-merge", "unauthorized", "rate-limited-then-success", "server-error",
            "timeout", "malformed-response",
        ]
        #expect(expected.isSubset(of: Set(suite.scenarioIds)))
        #expect(suite.stores == ["keyserver"])
        // The main run leaves the section's cassettes alone.
        #expect(try Self.shared.get().cassettes.allSatisfy { $0.store.rawValue != "keyserver" })
    }

    /// Apple's Retention Messaging section calls each of the API's fourteen endpoints, and its cassettes stay out of
    /// the stores' matrix although they name `apple`.
    @Test func theRetentionSectionCallsEveryEndpointOfTheAPI() throws {
        let suite = try #require(try Self.sections.get()[ConformanceSections.retention])
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        let calls = Set(suite.cassettes.map(\.proof.kind.rawValue))
        #expect(
            calls == [
                "uploadImage", "deleteImage", "images", "uploadMessage", "deleteMessage", "messages",
                "configureDefaultMessage", "deleteDefaultMessage", "defaultMessage", "configureRealtimeURL",
                "deleteRealtimeURL", "realtimeURL", "initiatePerformanceTest", "performanceTestResult",
            ]
        )
        #expect(suite.stores == ["apple"])
        #expect(try Self.shared.get().cassettes.allSatisfy { !$0.scenario.hasPrefix("retention-") })
    }

    /// The Steam Web API section reads a refund report and authenticates tickets, and stays out of the matrix.
    @Test func theSteamworksSectionCallsGetReportAndAuthenticateUserTicket() throws {
        let suite = try #require(try Self.sections.get()[ConformanceSections.steamworks])
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        #expect(Set(suite.cassettes.map(\.proof.kind.rawValue)) == ["refundReport", "authenticateUserTicket"])
        #expect(suite.stores == ["steam"])
        #expect(try Self.shared.get().cassettes.allSatisfy { !$0.scenario.hasPrefix("steamworks-") })
    }

    /// `expect.storeReason` is compared: a cassette that expects another Apple code than the one the client reports
    /// fails its cell, naming both.
    @Test func anErrorsStoreReasonIsCompared() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-reason-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(
            contentsOf: Self.fixtures.appendingPathComponent("retention/delete-image-not-found.json"),
            encoding: .utf8
        )
        text = text.replacingOccurrences(of: "\"storeReason\": \"4040014\"", with: "\"storeReason\": \"4040015\"")
        try text.write(to: folder.appendingPathComponent("edited.json"), atomically: true, encoding: .utf8)
        let suite = try ConformanceSuite(
            catalogue: ScenarioCatalogue.load(from: Self.fixtures.appendingPathComponent("retention/scenarios.json")),
            cassetteFolders: [folder],
            adapters: [.retentionMessaging]
        )
        let report = await suite.run()
        let cell = try #require(report.cell(store: "apple", scenario: "retention-delete-image-not-found"))
        #expect(cell.status == .fail)
        #expect(cell.detail?.contains("storeReason: expected 4040015, got 4040014") == true)
    }

    @Test func theMatrixIsEveryCatalogueScenarioForAllFiveStoresWithEveryCassetteLoaded() throws {
        let suite = try Self.shared.get()
        #expect(suite.invalidCassettes.isEmpty, "\(suite.invalidCassettes)")
        #expect(Set(suite.stores) == ["apple", "google", "stripe", "paypal", "steam"])
        #expect(suite.scenarioIds.count >= 20)
        #expect(suite.cellIDs.count == suite.stores.count * suite.scenarioIds.count)
        let catalogued = Set(suite.scenarioIds)
        #expect(suite.cassettes.allSatisfy { catalogued.contains($0.scenario) })
    }

    @Test func aCassetteWhoseExpectationIsEditedFailsTheRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-edited-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(contentsOf: Self.fixtures.appendingPathComponent("stripe/refunded.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"state\": \"refunded\"", with: "\"state\": \"active\"")
        try text.write(to: folder.appendingPathComponent("refunded.json"), atomically: true, encoding: .utf8)
        let suite = try ConformanceSuite(
            catalogue: catalogue(),
            cassetteFolders: [folder],
            stores: ["stripe"],
            scenarios: ["refunded"]
        )
        let report = await suite.run()
        #expect(!report.succeeded)
        let cell = try #require(report.cell(store: "stripe", scenario: "refunded"))
        #expect(cell.status == .fail)
        #expect(cell.detail?.contains("catalogue says 'refunded'") == true)
        #expect(cell.detail?.contains("state: expected active, got refunded") == true)
    }

    @Test func aMalformedExternalCassetteIsRejectedNamingTheFileAndTheField() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(
            contentsOf: Self.fixtures.appendingPathComponent("steam/one-time-paid.json"),
            encoding: .utf8
        )
        text = text.replacingOccurrences(of: "\"status\": 200", with: "\"status\": \"two hundred\"")
        try text.write(to: folder.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        let suite = try ConformanceSuite(catalogue: catalogue(), cassetteFolders: [folder], stores: ["steam"])
        let report = await suite.run()
        #expect(!report.succeeded)
        let message = try #require(report.invalidCassettes.first)
        #expect(message.contains("broken.json"))
        #expect(message.contains("interactions[0].response.status"))
    }

    @Test func noCommittedCassetteHoldsAnythingThatLooksLikeALiveSecret() throws {
        let patterns = ["sk_live_", "rk_live_", "-----BEGIN", "AIza", "eyJhbGciOi", "whsec_"]
        for url in try Cassette.cassetteFiles(in: Self.fixtures) {
            let text = try String(contentsOf: url, encoding: .utf8)
            for pattern in patterns { #expect(!text.contains(pattern), "\(url.lastPathComponent) contains \(pattern)") }
        }
    }
}

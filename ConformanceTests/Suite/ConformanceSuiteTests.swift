import Foundation
import MockStores
import OpenCatConformance
import OpenCatCore
import OpenCatTesting
import Testing

/// The conformance suite, run by `swift test`: every built-in adapter against every cassette in Fixtures/.
struct ConformanceSuiteTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Fixtures")

    func catalogue() throws -> ScenarioCatalogue {
        try ScenarioCatalogue.load(from: Self.fixtures.appendingPathComponent("scenarios.json"))
    }

    @Test func everyApplicableCellPassesForAllFiveStores() async throws {
        let suite = try ConformanceSuite(catalogue: catalogue(), cassetteFolders: [Self.fixtures])
        let report = await suite.run()
        #expect(report.succeeded, "\(report.renderText())")
        #expect(Set(report.stores) == ["apple", "google", "stripe", "paypal", "steam"])
        #expect(report.scenarios.count >= 20)
        #expect(report.counts.fail == 0)
        #expect(report.counts.pass >= 80)
    }

    @Test func aCassetteWhoseExpectationIsEditedFailsTheRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-edited-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(contentsOf: Self.fixtures.appendingPathComponent("stripe/refunded.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"state\": \"refunded\"", with: "\"state\": \"active\"")
        try text.write(to: folder.appendingPathComponent("refunded.json"), atomically: true, encoding: .utf8)
        let suite = try ConformanceSuite(
            catalogue: catalogue(), cassetteFolders: [folder], stores: ["stripe"], scenarios: ["refunded"])
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
        var text = try String(contentsOf: Self.fixtures.appendingPathComponent("steam/one-time-paid.json"), encoding: .utf8)
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

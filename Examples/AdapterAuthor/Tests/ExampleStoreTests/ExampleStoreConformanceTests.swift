import ExampleStore
import Foundation
import OpenCatConformance
import OpenCatCore
import Testing

/// A third-party adapter plugs into the suite through the public `OpenCatConformance` entry point, with its own
/// cassettes, and must meet the same catalogue.
struct ExampleStoreConformanceTests {
    static let cassettes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Cassettes"
    )
    static let notApplicable = [
        "subscription-active": "Example Store sells no subscriptions", "subscription-expired": "no subscriptions",
        "grace-period": "no subscriptions", "billing-retry": "no subscriptions",
        "partially-refunded": "refunds are whole", "needs-finalization": "payments complete at the store",
        "wrong-application": "one key per app; another app's receipt is not found",
        "trial-active": "no subscriptions", "cancelled-still-active": "no subscriptions",
        "chargeback": "disputes are settled by the store and arrive as refunds", "paused": "no subscriptions",
        "upgrade-crossgrade": "no subscriptions",
    ]

    func suite(folder: URL = cassettes) throws -> ConformanceSuite {
        let factory = ConformanceAdapterFactory(store: ExampleStoreAdapter.exampleStore) { environment in
            ExampleStoreAdapter(
                baseURL: environment.baseURL,
                key: Secret(try environment.string("key")),
                http: environment.httpClient
            )
        }
        return try ConformanceSuite(
            catalogue: ConformanceFixtures.catalogue(),
            cassetteFolders: [folder],
            adapters: [factory],
            stores: ["examplestore"],
            additionalNotApplicable: ["examplestore": Self.notApplicable],
            variables: ["example.key": "example-key-\(UUID().uuidString)", "example.wrongKey": "example-key-wrong"]
        )
    }

    @Test func theExampleStoreAdapterPassesTheSameCatalogue() async throws {
        let report = try await suite().run()
        #expect(report.succeeded, "\(report.renderText())")
        #expect(report.stores == ["examplestore"])
        #expect(report.counts.pass == 15)
        #expect(report.counts.notApplicable == Self.notApplicable.count)
    }

    @Test func aMissingScenarioCassetteFailsTheThirdPartyRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-example-\(UUID().uuidString)"
        )
        try FileManager.default.copyItem(at: Self.cassettes, to: folder)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("refunded.json"))
        let report = try await suite(folder: folder).run()
        #expect(!report.succeeded)
        #expect(report.cell(store: "examplestore", scenario: "refunded")?.detail == "no cassette for this scenario")
    }
}

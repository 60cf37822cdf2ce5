import Foundation

/// The package a stranger writes: a store integration that depends on `opencat.StoreAdapters`, proved by
/// `opencat.OpenCatConformance` in its tests, both by registry identity. Nothing in it names the repository.
enum StrangerPackage {
    static let manifest = """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "StrangerStore",
            platforms: [.macOS(.v15)],
            dependencies: [
                .package(id: "opencat.StoreAdapters", from: "0.1.0"),
                .package(id: "opencat.OpenCatConformance", from: "0.1.0"),
            ],
            targets: [
                .target(
                    name: "StrangerStore",
                    dependencies: [.product(name: "StoreAdapters", package: "opencat.StoreAdapters")]
                ),
                .testTarget(
                    name: "StrangerStoreTests",
                    dependencies: [
                        "StrangerStore",
                        .product(name: "OpenCatConformance", package: "opencat.OpenCatConformance"),
                    ]
                ),
            ]
        )

        """

    static let source = """
        import StoreAdapters

        /// The stranger's own code: the stores it sells through, each verified by an OpenCat adapter.
        public struct Checkout: Sendable {
            public let adapters: [any StoreAdapter]
            public init(adapters: [any StoreAdapter]) { self.adapters = adapters }
            public var stores: [String] { adapters.map(\\.store.rawValue) }
        }

        """

    static let tests = """
        import OpenCatConformance
        import StrangerStore
        import Testing

        @Test func aBundledStripePurchaseIsVerified() async throws {
            let suite = try ConformanceSuite(
                catalogue: ConformanceFixtures.catalogue(),
                cassetteFolders: [ConformanceFixtures.folder()],
                stores: ["stripe"],
                scenarios: ["one-time-paid"]
            )
            let report = await suite.run()
            #expect(report.cell(store: "stripe", scenario: "one-time-paid")?.status == .pass, "\\(report.renderText())")
            #expect(Checkout(adapters: []).stores.isEmpty)
        }

        @Test func theFiveStoreSuitePasses() async throws {
            let suite = try ConformanceSuite(
                catalogue: ConformanceFixtures.catalogue(),
                cassetteFolders: [ConformanceFixtures.folder()],
                adapters: ConformanceAdapterFactory.builtIn
            )
            #expect(suite.invalidCassettes.isEmpty)
            let report = await suite.run()
            #expect(report.succeeded, "\\(report.renderText())")
            #expect(report.stores == ["apple", "google", "stripe", "paypal", "steam"])
            #expect(report.counts.fail == 0 && report.counts.pass > 0)
        }

        """

    /// Writes the package into `folder`.
    static func write(to folder: URL) throws {
        let files = [
            "Package.swift": manifest,
            "Sources/StrangerStore/Checkout.swift": source,
            "Tests/StrangerStoreTests/StrangerStoreTests.swift": tests,
        ]
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: url)
        }
    }

    /// The user-level registry configuration (in `configuration`, the `--config-path`): signed releases only, and
    /// only certificates that chain to a root in `roots` (SE-0391's `security.default.signing`).
    static func trustOnly(_ roots: URL, configuration: URL) throws {
        let signing: [String: Any] = [
            "onUnsigned": "error",
            "onUntrustedCertificate": "error",
            "trustedRootCertificatesPath": roots.path,
            "includeDefaultTrustedRootCertificates": false,
            "validationChecks": ["certificateExpiration": "enabled", "certificateRevocation": "disabled"],
        ]
        let document: [String: Any] = [
            "version": 1,
            "registries": [String: Any](),
            "security": ["default": ["signing": signing]],
        ]
        try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
            .write(to: configuration.appendingPathComponent("registries.json"))
    }
}

public import Foundation

/// The five built-in stores' scenario catalogue and recorded exchanges, bundled with this package: what
/// ``ConformanceAdapterFactory/builtIn`` is measured against, and the catalogue an adapter author's own cassettes
/// follow.
///
/// ```swift
/// let suite = try ConformanceSuite(
///     catalogue: ConformanceFixtures.catalogue(),
///     cassetteFolders: [ConformanceFixtures.folder()],
///     adapters: ConformanceAdapterFactory.builtIn
/// )
/// let report = await suite.run()
/// ```
public enum ConformanceFixtures {
    /// The stores whose cassettes are bundled, in the suite's order.
    public static let stores = ["apple", "google", "stripe", "paypal", "steam"]

    /// The bundled folder: `scenarios.json` (the catalogue), `cassette.schema.json`, a folder of cassettes per store
    /// and `operations/` (the store operations' own catalogue and cassettes).
    ///
    /// In a release (from a package registry) the files are the package's resources; in the OpenCat repository the
    /// resources are links into its `Fixtures/`, and this is that folder (which also holds the workspace's own
    /// sections: a suite leaves every subfolder with a catalogue of its own out of its main run).
    /// - Throws: ``ConformanceError`` when the folder holds no catalogue (a damaged installation).
    public static func folder() throws -> URL {
        let candidates = [
            Bundle.module.url(forResource: "Fixtures", withExtension: nil),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures"),
        ]
        for case let folder? in candidates
        where FileManager.default.fileExists(atPath: folder.appendingPathComponent("scenarios.json").path) {
            return folder.appendingPathComponent("scenarios.json").resolvingSymlinksInPath().deletingLastPathComponent()
        }
        throw ConformanceError("the bundled fixtures have no scenarios.json: the package's resources are missing")
    }

    /// The bundled scenario catalogue (`scenarios.json`).
    /// - Throws: ``ConformanceError`` when it is missing or not a valid catalogue.
    public static func catalogue() throws -> ScenarioCatalogue {
        try ScenarioCatalogue.load(from: folder().appendingPathComponent("scenarios.json"))
    }
}

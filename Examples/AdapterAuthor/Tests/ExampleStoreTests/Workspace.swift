import Foundation

/// The repository's shared fixtures, found from this file: it sits in `Tests/ExampleStoreTests/` of
/// `Examples/AdapterAuthor`, two folders below the repository root.
enum Workspace {
    /// `Examples/AdapterAuthor`.
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/ExampleStoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // Examples/AdapterAuthor
    /// The repository root: `Examples/AdapterAuthor` is two folders below it.
    static let root = package.deletingLastPathComponent().deletingLastPathComponent()
    /// The repository's `Fixtures/`: the five built-in stores' cassettes and the scenario catalogue.
    static let fixtures = root.appendingPathComponent("Fixtures")
    /// The scenario catalogue every adapter is measured against.
    static let catalogue = fixtures.appendingPathComponent("scenarios.json")
}

import Foundation
import MockPackageRegistry
import OpenCatRelease
import Testing
import ToolsTestSupport

/// A stranger's package, end to end: OpenCatCore, StoreAdapters, MockStores and OpenCatConformance are published
/// signed (a test CA) to a registry on loopback; a new package in a scratch folder outside the repository depends on
/// `opencat.StoreAdapters` and `opencat.OpenCatConformance` by identity, resolves them through `swift
/// package-registry set --scope opencat --allow-insecure-http` with the test CA as its only trusted root, builds, and
/// passes its tests (a bundled purchase verified, the five-store suite). The same consumer is refused when it trusts
/// another root, and when the registry serves a tampered archive.
///
/// It compiles the consumer's whole graph cold (swift-nio, Hummingbird, swift-crypto…): a CI gate of its own runs it
/// on both cores (`OPENCAT_REGISTRY_E2E=1`, Tools/ci/registry-e2e.sh); `swift test` alone skips it.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["OPENCAT_REGISTRY_E2E"] == "1"))
struct RegistryEndToEndTests {
    static let published = ["OpenCatCore", "StoreAdapters", "MockStores", "OpenCatConformance"]

    let scratch: URL
    let workspace = ReleaseWorkspace(root: TestEnvironment.repositoryRoot)

    init() throws {
        let base = ProcessInfo.processInfo.environment["OPENCAT_REGISTRY_E2E_FOLDER"].map {
            URL(fileURLWithPath: $0)
        }
        scratch = (base ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("opencat-registry-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    @Test func aStrangersPackageResolvesTheSignedReleasesByIdentityBuildsAndPassesAndRefusesWhatItShould()
        async throws
    {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let signing = try TestSigning.identity(in: scratch.appendingPathComponent("signing"))
        let other = try TestSigning.identity(in: scratch.appendingPathComponent("other"), rootName: "Someone Else")
        let registryFolder = scratch.appendingPathComponent("registry")
        try await MockPackageRegistry(folder: registryFolder).run { base in
            for name in Self.published {
                let report = try await workspace.publish(
                    name,
                    options: ReleaseWorkspace.PublishOptions(
                        registry: base,
                        privateKeyPath: signing.key,
                        certChainPaths: signing.chain,
                        repositoryURL: "https://github.com/opencat/opencat"
                    ),
                    scratch: scratch.appendingPathComponent("publish")
                )
                #expect(report.signer == "CN=OpenCat Release Test", "\(name): \(report.answer)")
            }
            let built = try await consume(base, trusting: signing.root, in: "trusted", test: true)
            #expect(built.status == 0, "\(built.output)\n\(built.error)")
            #expect(
                built.output.contains("Test run with 2 tests") && built.output.contains("passed"),
                "\(built.output)"
            )

            print("registry e2e: the stranger's tests: \(Self.summary(of: built.output))")
            let untrusted = try await consume(base, trusting: other.root, in: "untrusted", test: false)
            #expect(untrusted.status != 0, "resolved with an untrusted signer:\n\(untrusted.output)")
            #expect("\(untrusted.output)\(untrusted.error)".contains("is not trusted"), "\(untrusted.error)")

            // The registry keeps releases under lowercased names.
            print("registry e2e: another root: \(Self.firstError(in: untrusted))")
            try tamper(registryFolder.appendingPathComponent("opencat/storeadapters/0.1.0/source-archive.zip"))
            let tampered = try await consume(base, trusting: signing.root, in: "tampered", test: false)
            #expect(tampered.status != 0, "resolved a tampered archive:\n\(tampered.output)")
            #expect(
                "\(tampered.output)\(tampered.error)".contains("checksum")
                    || "\(tampered.output)\(tampered.error)".contains("signature"),
                "\(tampered.error)"
            )
            print("registry e2e: a tampered archive: \(Self.firstError(in: tampered))")
        }
    }

    /// Writes the consumer package in `folder`, points it at the registry (`swift package-registry set`), trusts only
    /// `root`, and resolves it (`test`: builds and tests it too). Its SwiftPM caches, configuration and security
    /// state are its own: nothing from an earlier run or from the user's home is reused.
    func consume(_ registry: URL, trusting root: String, in folder: String, test: Bool) async throws -> ProcessResult {
        let package = scratch.appendingPathComponent(folder)
        try StrangerPackage.write(to: package)
        let state = scratch.appendingPathComponent("\(folder)-state")
        let roots = state.appendingPathComponent("trusted-roots")
        try FileManager.default.createDirectory(at: roots, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root, toPath: roots.appendingPathComponent("root.der").path)
        let isolated = [
            "--cache-path", state.appendingPathComponent("cache").path,
            "--config-path", state.appendingPathComponent("config").path,
            "--security-path", state.appendingPathComponent("security").path,
        ]
        let set = try await runProcess(
            "swift",
            ["package-registry", "set", "--scope", "opencat", "--allow-insecure-http", registry.absoluteString]
                + isolated,
            workingDirectory: package
        )
        guard set.status == 0 else { return set }
        try StrangerPackage.trustOnly(roots, configuration: state.appendingPathComponent("config"))
        let scratchPath = ["--scratch-path", state.appendingPathComponent("build").path] + isolated
        let resolved = try await runProcess(
            "swift",
            ["package", "resolve"] + scratchPath,
            workingDirectory: package,
            timeout: .seconds(600)
        )
        guard test, resolved.status == 0 else { return resolved }
        return try await runProcess(
            "swift",
            ["test"] + scratchPath,
            workingDirectory: package,
            timeout: .seconds(1800)
        )
    }

    /// The stranger's test run's closing line.
    static func summary(of output: String) -> String {
        output.split(separator: "\n").last { $0.contains("Test run with") }.map(String.init) ?? "(no summary)"
    }

    /// The first line SwiftPM printed as an error.
    static func firstError(in result: ProcessResult) -> String {
        "\(result.output)\n\(result.error)".split(separator: "\n").first { $0.hasPrefix("error:") }.map(String.init)
            ?? "(exit \(result.status))"
    }

    /// Changes one byte in the middle of a stored archive: what a compromised registry or a man in the middle serves.
    func tamper(_ archive: URL) throws {
        var data = try Data(contentsOf: archive)
        data[data.count / 2] ^= 0xFF
        try data.write(to: archive)
    }
}

import Crypto
import Foundation
import MockPackageRegistry
import OpenCatRelease
import SwiftASN1
import Testing
import ToolsTestSupport
import X509
import ZIPFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Release engineering on scratch git repositories built here: two packages, `Core` and `App` (which depends on
/// `Core` by path), tagged, then changed.
@Suite(.serialized)
struct ReleaseTests {
    let root: URL

    init() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-release-\(UUID().uuidString)")
        try write("Packages/Core/Package.swift", Self.manifest("Core", dependencies: ""))
        try write(
            "Packages/Core/Sources/Core/Core.swift",
            "public func a() -> Int { 1 }\npublic func b() -> Int { 2 }\n"
        )
        try write(
            "Packages/App/Package.swift",
            Self.manifest(
                "App",
                dependencies: #".package(path: "../Core")"#,
                product: #".product(name: "Core", package: "Core")"#
            )
        )
        try write("Packages/App/Sources/App/App.swift", "import Core\npublic func c() -> Int { a() + b() }\n")
        for name in ["Core", "App"] {
            try write("Packages/\(name)/VERSION", "0.1.0\n")
            try write(
                "Packages/\(name)/CHANGELOG.md",
                "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-11-01\n### Added\n- It.\n"
            )
            try write("Packages/\(name)/README.md", "# \(name)\n\n## Quick start\n\n```swift\nimport \(name)\n```\n")
        }
        try await git("init", "-q")
        try await git("add", "-A")
        try await git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "0.1.0")
        try await git("tag", "Core-0.1.0")
        try await git("tag", "App-0.1.0")
    }

    static func manifest(_ name: String, dependencies: String, product: String = "") -> String {
        """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "\(name)",
            products: [.library(name: "\(name)", targets: ["\(name)"])],
            dependencies: [\(dependencies)],
            targets: [.target(name: "\(name)", dependencies: [\(product)])]
        )

        """
    }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Runs git in the scratch repository (through swift-subprocess: no blocking wait).
    @discardableResult
    func git(_ arguments: String...) async throws -> Int32 {
        try await runProcess("git", ["-C", root.path] + arguments).status
    }

    var workspace: ReleaseWorkspace { ReleaseWorkspace(root: root) }

    @Test func thePlanShowsWhatChangedTheBumpItsChangelogAsksForAndTheDependentsToFollow() async throws {
        try write(
            "Packages/Core/Sources/Core/Core.swift",
            "public func a() -> Int { 1 }\npublic func b() -> Int { 2 }\npublic func d() {}\n"
        )
        try write(
            "Packages/Core/CHANGELOG.md",
            "# Changelog\n\n## [Unreleased]\n### Added\n- `d()`.\n\n## [0.1.0] - 2026-11-01\n"
        )
        let plan = try await ReleasePlan(workspace: workspace)
        let core = try #require(plan.entries.first { $0.package == "Core" })
        let app = try #require(plan.entries.first { $0.package == "App" })
        #expect(core.changed && core.suggestedBump == .minor && core.nextVersion?.description == "0.2.0")
        #expect(core.lastTag == "Core-0.1.0" && core.dependentsToFollow == ["App"])
        #expect(!app.changed && app.suggestedBump == nil)
        let json = try plan.json()
        #expect(plan.table().contains("Core") && json.contains(#""suggestedBump" : "minor""#))
        #expect(Changelog.suggestedBump("## [Unreleased]\n### Removed\n- `b()`.\n") == .major)
        #expect(Changelog.suggestedBump("## [Unreleased]\n### Changed\n- **Breaking:** x.\n") == .major)
        #expect(Changelog.suggestedBump("## [Unreleased]\n### Fixed\n- y.\n") == .patch)
    }

    @Test func aBumpWritesVersionAndChangelogAndRaisesWhatDependentsRequire() throws {
        try write(
            "Packages/Core/CHANGELOG.md",
            "# Changelog\n\n## [Unreleased]\n### Added\n- `d()`.\n\n## [0.1.0] - 2026-11-01\n"
        )
        let (version, dependents) = try workspace.bump("Core", .minor, date: Date(timeIntervalSince1970: 1_795_348_800))
        #expect(version.description == "0.2.0" && dependents == ["App"])
        #expect(
            try String(contentsOf: root.appendingPathComponent("Packages/Core/VERSION"), encoding: .utf8) == "0.2.0\n"
        )
        let changelog = try String(
            contentsOf: root.appendingPathComponent("Packages/Core/CHANGELOG.md"),
            encoding: .utf8
        )
        #expect(changelog.contains("## [Unreleased]\n\n## [0.2.0] - 2026-11-22\n### Added\n- `d()`."))
        #expect(try workspace.minimumVersions(of: "App")["Core"]?.description == "0.2.0")
        let manifest = try workspace.registryManifest("App", scope: "opencat")
        #expect(manifest.contains(#".package(id: "opencat.Core", from: "0.2.0")"#))
        #expect(manifest.contains(#"package: "opencat.Core")"#) && !manifest.contains("path:"))
    }

    @Test func anArchiveIsReproducibleHoldsOnlyThePackageAndAManifestSwiftPMAccepts() async throws {
        let output = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let (url, first) = try await workspace.archive("App", to: output)
        let (_, second) = try await workspace.archive("App", to: output)
        #expect(first == second && first.count == 64)
        let archive = try Archive(url: url, accessMode: .read)
        let paths = archive.map(\.path).sorted()
        #expect(
            paths == [
                "App/CHANGELOG.md", "App/Package.swift", "App/README.md", "App/Sources/App/App.swift", "App/VERSION",
                "App/package-metadata.json",
            ]
        )
        // Unpacked, the rewritten manifest is one SwiftPM reads.
        let unpacked = root.appendingPathComponent("unpacked")
        for entry in archive {
            let destination = unpacked.appendingPathComponent(entry.path)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            _ = try archive.extract(entry, to: destination)
        }
        let dump = try await runProcess(
            "swift",
            ["package", "--package-path", unpacked.appendingPathComponent("App").path, "dump-package"]
        )
        #expect(dump.status == 0)
        #expect(dump.output.contains("opencat.Core"))
    }

    @Test func aRemovedPublicFunctionIsABreakingChangeThatNeedsAMajorBump() async throws {
        let unchanged = try await workspace.check("Core", runTests: false)
        #expect(unchanged.apiBroke == false && unchanged.passed, "\(unchanged.lines)")
        try write("Packages/Core/Sources/Core/Core.swift", "public func a() -> Int { 1 }\n")
        try write("Packages/App/Sources/App/App.swift", "import Core\npublic func c() -> Int { a() }\n")
        try await git("add", "-A")
        try await git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "remove b")
        let report = try await workspace.check("Core", runTests: false)
        #expect(report.apiBroke == true, "\(report.lines)")
        #expect(!report.passed)
        _ = try workspace.bump("Core", .major)
        #expect(try await workspace.check("Core", runTests: false).passed)
    }

    @Test func aDependentIsPublishedOnlyAfterTheSiblingsItNeedsAreInTheRegistry() async throws {
        #expect(try workspace.publishOrder("App") == ["Core", "App"])
        #expect(try workspace.publishOrder("Core") == ["Core"])
        let folder = root.appendingPathComponent("registry")
        try await MockPackageRegistry(folder: folder).run { base in
            let releases = { (identity: String) in try await ReleaseWorkspace.registryReleases(identity, registry: base)
            }
            let before = try await workspace.missingSiblings(of: "App", scope: "opencat", releases: releases)
            #expect(before.map(\.name) == ["Core"] && before.first?.minimum == SemanticVersion(0, 1, 0))
            // A major version above the minimum does not satisfy `from: "0.1.0"`; 0.1.0 itself does.
            for (version, still) in [("1.0.0", ["Core"]), ("0.1.0", [])] {
                let archive = try Archive(data: Data(), accessMode: .create)
                let manifest = Data(Self.manifest("Core", dependencies: "").utf8)
                try archive.addEntry(with: "Core/Package.swift", type: .file, uncompressedSize: Int64(manifest.count)) {
                    position,
                    size in manifest.subdata(in: Int(position)..<Int(position) + size)
                }
                let form = MockPackageRegistry.publishForm(archive: try #require(archive.data))
                var request = URLRequest(url: base.appendingPathComponent("opencat/Core/\(version)"))
                request.httpMethod = "PUT"
                request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
                let (_, response) = try await URLSession.shared.upload(for: request, from: form.body)
                #expect((response as? HTTPURLResponse)?.statusCode == 201)
                let missing = try await workspace.missingSiblings(of: "App", scope: "opencat", releases: releases)
                #expect(missing.map(\.name) == still, "after \(version)")
            }
        }
    }

    var signingFolder: URL { root.appendingPathComponent("signing") }

    @Test func publishingSignsWithTheChainAndRefusesADependentBeforeItsSiblings() async throws {
        try FileManager.default.createDirectory(at: signingFolder, withIntermediateDirectories: true)
        let identity = try TestSigning.identity(in: signingFolder)
        try await MockPackageRegistry(folder: root.appendingPathComponent("registry")).run { base in
            func options(dryRun: Bool = false) -> ReleaseWorkspace.PublishOptions {
                ReleaseWorkspace.PublishOptions(
                    registry: base,
                    privateKeyPath: identity.key,
                    certChainPaths: identity.chain,
                    dryRun: dryRun,
                    repositoryURL: "https://github.com/example/opencat"
                )
            }
            let scratch = root.appendingPathComponent("publish")
            let refused = await #expect(throws: ReleaseError.self) {
                try await workspace.publish("App", options: options(), scratch: scratch)
            }
            #expect(refused?.description.contains("publish first: Core 0.1.0 (the order: Core, App)") == true)
            let dry = try await workspace.publish("Core", options: options(dryRun: true), scratch: scratch)
            #expect(dry.archiveSHA256.count == 64 && dry.signer == "CN=OpenCat Release Test")
            let core = try await workspace.publish("Core", options: options(), scratch: scratch)
            #expect(core.identity == "opencat.Core" && core.archiveSHA256.count == 64)
            var request = URLRequest(url: base.appendingPathComponent("opencat/Core/0.1.0"))
            request.setValue("application/vnd.swift.registry.v1+json", forHTTPHeaderField: "Accept")
            let (data, _) = try await URLSession.shared.data(for: request)
            let release = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let resource = try #require((release["resources"] as? [[String: Any]])?.first)
            #expect(resource["checksum"] as? String == core.archiveSHA256)
            #expect((resource["signing"] as? [String: Any])?["signatureFormat"] as? String == "cms-1.0.0")
            let metadata = try #require(release["metadata"] as? [String: Any])
            #expect(metadata["repositoryURLs"] as? [String] == ["https://github.com/example/opencat"])
            let app = try await workspace.publish("App", options: options(), scratch: scratch)
            #expect(app.identity == "opencat.App")
        }
    }
}

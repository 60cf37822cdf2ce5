import Foundation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

extension ReleaseWorkspace {
    /// What `release check` found.
    public struct CheckReport: Sendable {
        public var passed: Bool
        public var lines: [String]
        /// Whether the public API broke since the last tag (nil: no tag to compare with).
        public var apiBroke: Bool?
    }

    /// `opencat-release check`: builds and tests the package alone, runs `swift package
    /// diagnose-api-breaking-changes` against its last tag (a broken API needs a major bump), and checks its docs
    /// (README with a Quick start, a CHANGELOG entry for the version or under Unreleased).
    public func check(_ name: String, runTests: Bool = true) async throws -> CheckReport {
        guard let package = try packages().first(where: { $0.name == name }) else {
            throw ReleaseError("no package \(name)")
        }
        var lines: [String] = []
        var passed = true
        let path = folder(name).path
        var steps = [("builds alone", ["build", "--package-path", path])]
        if runTests, FileManager.default.fileExists(atPath: folder(name).appendingPathComponent("Tests").path) {
            steps.append(("tests pass alone", ["test", "--package-path", path]))
        }
        for (title, arguments) in steps {
            let (status, _) = await Self.swift(arguments, in: root)
            lines.append("\(status == 0 ? "ok  " : "FAIL") \(title)")
            if status != 0 { passed = false }
        }
        var apiBroke: Bool?
        if let last = try await lastTag(name) {
            let (status, output) = try await diagnoseAPI(name, against: last.tag)
            apiBroke = status != 0
            if status != 0, package.version.major == last.version.major {
                passed = false
                lines.append("FAIL public API broke since \(last.tag) but \(package.version) is not a major bump")
                lines += output.split(separator: "\n").filter { $0.contains("💔") || $0.contains("API breakage") }.map {
                    "     \($0)"
                }
            } else {
                lines.append(
                    "ok   public API since \(last.tag): \(status == 0 ? "no breaking change" : "broke (major bump)")"
                )
            }
        } else {
            lines.append("ok   no earlier tag: nothing to compare the API with")
        }
        let readme = (try? String(contentsOf: folder(name).appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        let changelog =
            (try? String(contentsOf: folder(name).appendingPathComponent("CHANGELOG.md"), encoding: .utf8)) ?? ""
        let docs =
            readme.contains("## Quick start")
            && (changelog.contains("## [\(package.version)]") || Changelog.suggestedBump(changelog) != nil)
        lines.append("\(docs ? "ok  " : "FAIL") README quick start and CHANGELOG entry")
        if !docs { passed = false }
        return CheckReport(passed: passed, lines: lines, apiBroke: apiBroke)
    }

    /// `swift package diagnose-api-breaking-changes` for a package of the monorepo. The command needs the package
    /// to be the root of its git repository, so it runs in a scratch copy: the package's files at the tag committed
    /// and tagged `baseline`, today's files committed over them, and the siblings beside it (path dependencies).
    func diagnoseAPI(_ name: String, against tag: String) async throws -> (Int32, String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-apidiff-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // The siblings as they are now (tracked and untracked files, not ignored ones such as .build), each in the
        // folder it has in the repository.
        for sibling in try self.packages().map(\.name) where sibling != name {
            try await copyTrackedFiles(
                of: relativeFolder(sibling),
                to: scratch.appendingPathComponent(relativeFolder(sibling))
            )
        }
        let target = scratch.appendingPathComponent(relativeFolder(name))
        // The baseline: the package's files at the tag.
        let prefix = relativeFolder(name) + "/"
        let listing = try await git(["ls-tree", "-r", "--name-only", tag, "--", relativeFolder(name)])
        for path in listing.split(separator: "\n").map(String.init) {
            let destination = target.appendingPathComponent(String(path.dropFirst(prefix.count)))
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(try await git(["show", "\(tag):\(path)"]).utf8).write(to: destination)
        }
        let local = ReleaseWorkspace(root: target)
        _ = try await local.git(["init", "-q"])
        _ = try await local.git(["add", "-A"])
        _ = try await local.git([
            "-c", "user.email=release@opencat.dev", "-c", "user.name=release", "commit", "-q", "-m", "baseline",
        ])
        _ = try await local.git(["tag", "baseline"])
        // Today's files over it.
        for path in try await local.git(["ls-files"]).split(separator: "\n") {
            try? FileManager.default.removeItem(at: target.appendingPathComponent(String(path)))
        }
        try await copyTrackedFiles(of: relativeFolder(name), to: target)
        _ = try await local.git(["add", "-A"])
        _ = try await local.git([
            "-c", "user.email=release@opencat.dev", "-c", "user.name=release", "commit", "-q", "--allow-empty", "-m",
            "now",
        ])
        return await Self.swift(
            ["package", "--package-path", target.path, "diagnose-api-breaking-changes", "baseline"],
            in: target
        )
    }

    /// Copies a folder's files that git tracks or would track (not the ignored ones, such as .build).
    func copyTrackedFiles(of folder: String, to destination: URL) async throws {
        let files = try await git(["ls-files", "--cached", "--others", "--exclude-standard", "--", folder])
        for path in files.split(separator: "\n").map(String.init)
        where !path.split(separator: "/").contains(where: {
            $0 == ".build" || $0 == ".swiftpm" || $0 == "Package.resolved"
        }) {
            let source = root.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            let target = destination.appendingPathComponent(String(path.dropFirst(folder.count + 1)))
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: source, to: target)
        }
    }

    /// Runs `swift` with arguments in a folder, through swift-subprocess (an asynchronous wait, never a blocked
    /// thread).
    /// - Returns: its exit status (128 + N when signal N ended it) and its output (stdout and stderr, interleaved);
    ///   127 and "swift could not be run" when it could not be started (or printed more than 64 MiB).
    static func swift(_ arguments: [String], in folder: URL) async -> (Int32, String) {
        do {
            let result = try await Subprocess.run(
                .name("swift"),
                arguments: Arguments(arguments),
                workingDirectory: FilePath(folder.path),
                output: .string(limit: 64 << 20),
                error: .combinedWithOutput
            )
            switch result.terminationStatus {
            case .exited(let code): return (code, result.standardOutput)
            case .signaled(let signal): return (128 + signal, result.standardOutput)
            }
        } catch {
            return (127, "swift could not be run")
        }
    }
}

public import Foundation
import Subprocess

/// The monorepo as release engineering sees it: each `Packages/<Name>/` (and the top-level package folders of
/// ``topLevelPackages``, such as `ConformanceTests/`, the OpenCatConformance package) with its VERSION, CHANGELOG.md,
/// manifest and sibling dependencies (`.package(path: "../Sibling")`), and the git tags `<Name>-<version>`.
public struct ReleaseWorkspace: Sendable {
    public struct Package: Sendable, Hashable, Codable {
        public var name: String
        public var version: SemanticVersion
        /// The siblings it depends on by path.
        public var siblings: [String]
    }

    /// Packages that live in a folder of their own at the repository's top level rather than under `Packages/`: the
    /// package's name → its folder.
    public static let topLevelPackages = ["OpenCatConformance": "ConformanceTests"]

    public let root: URL

    public init(root: URL) { self.root = root }

    /// The package's folder, relative to the repository's root (`Packages/<Name>`, or a top-level folder).
    func relativeFolder(_ name: String) -> String { Self.topLevelPackages[name] ?? "Packages/\(name)" }

    func folder(_ name: String) -> URL { root.appendingPathComponent(relativeFolder(name)) }

    /// How the manifest of `package` names `sibling`'s folder in `.package(path:)`.
    func pathReference(from package: String, to sibling: String) -> String {
        let from = relativeFolder(package).split(separator: "/")
        let to = relativeFolder(sibling).split(separator: "/")
        let shared = zip(from, to).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: from.count - shared) + to.dropFirst(shared).map(String.init))
            .joined(separator: "/")
    }

    /// Every package, by name.
    public func packages() throws -> [Package] {
        let files = FileManager.default
        var names = try files.contentsOfDirectory(atPath: root.appendingPathComponent("Packages").path)
            .filter { Self.topLevelPackages[$0] == nil }
        names += Self.topLevelPackages.keys
        names = names.filter { files.fileExists(atPath: folder($0).appendingPathComponent("Package.swift").path) }
            .sorted()
        return try names.map { name in
            let versionText = try String(contentsOf: folder(name).appendingPathComponent("VERSION"), encoding: .utf8)
            guard let version = SemanticVersion(versionText) else {
                throw ReleaseError("\(relativeFolder(name))/VERSION: not x.y.z")
            }
            let manifest = try String(contentsOf: folder(name).appendingPathComponent("Package.swift"), encoding: .utf8)
            let paths = manifest.matches(of: #/\.package\(path: "([^"]+)"\)/#).map { String($0.1) }
            let siblings = names.filter { sibling in
                sibling != name && paths.contains(pathReference(from: name, to: sibling))
            }
            return Package(name: name, version: version, siblings: siblings)
        }
    }

    /// The packages that depend on one, directly or not.
    public func dependents(of name: String, in packages: [Package]) -> [String] {
        var result: Set<String> = []
        var frontier = [name]
        while let next = frontier.popLast() {
            for package in packages where package.siblings.contains(next) && result.insert(package.name).inserted {
                frontier.append(package.name)
            }
        }
        return result.sorted()
    }

    // MARK: Git

    /// Runs `git -C <root>` with arguments, through swift-subprocess (an asynchronous wait, never a blocked thread).
    /// - Returns: its standard output (standard error is discarded).
    /// - Throws: ``ReleaseError`` when git exits with a non-zero status; a `SubprocessError` when git cannot be
    ///   started or prints more than 16 MiB.
    func git(_ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run(
            .name("git"),
            arguments: Arguments(["-C", root.path] + arguments),
            output: .string(limit: 16 << 20),
            error: .discarded
        )
        guard result.terminationStatus.isSuccess else {
            throw ReleaseError("git \(arguments.joined(separator: " ")) failed")
        }
        return result.standardOutput
    }

    /// The latest `<name>-<version>` tag.
    public func lastTag(_ name: String) async throws -> (tag: String, version: SemanticVersion)? {
        try await git(["tag", "--list", "\(name)-*"]).split(separator: "\n").compactMap { tag in
            SemanticVersion(String(tag.dropFirst(name.count + 1))).map { (String(tag), $0) }
        }.max { $0.1 < $1.1 }
    }

    /// Whether the package's files changed since a tag (committed or not).
    public func changed(_ name: String, since tag: String) async throws -> Bool {
        !(try await git(["diff", "--name-only", tag, "--", relativeFolder(name)]).isEmpty)
    }

    /// Creates the package's tag for its current VERSION.
    public func tag(_ name: String) async throws -> String {
        guard let package = try packages().first(where: { $0.name == name }) else {
            throw ReleaseError("no package \(name)")
        }
        let tag = "\(name)-\(package.version)"
        _ = try await git(["tag", "-a", tag, "-m", "\(name) \(package.version)"])
        return tag
    }
}

/// A release engineering failure.
public struct ReleaseError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

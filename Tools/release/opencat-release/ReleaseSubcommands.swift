import ArgumentParser
import Foundation
import OpenCatRelease

struct ReleasePlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Every package: version, last tag, changed since, dependents to follow, suggested bump."
    )

    @Flag(name: .customLong("json"), help: "Print JSON instead of a table.")
    var json = false

    @Option(name: .customLong("root"), help: "The repository (default: found from the current folder).")
    var root: String?

    func run() async throws {
        let plan = try await ReleasePlan(workspace: try OpenCatReleaseCommand.workspace(root))
        print(json ? try plan.json() : plan.table())
    }
}

struct ReleaseBumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump",
        abstract: "Bump a package: VERSION, a dated CHANGELOG section, dependents' minimums."
    )

    @Argument(help: "The package.") var package: String
    @Argument(help: "major, minor or patch.") var bump: String
    @Option(name: .customLong("root"), help: "The repository.") var root: String?

    func validate() throws {
        guard Bump(rawValue: bump) != nil else { throw ValidationError("the bump is major, minor or patch") }
    }

    func run() throws {
        let (version, dependents) = try OpenCatReleaseCommand.workspace(root).bump(package, Bump(rawValue: bump)!)
        print(
            "\(package) \(version)"
                + (dependents.isEmpty ? "" : "; dependents now require it: \(dependents.joined(separator: ", "))")
        )
    }
}

struct ReleaseCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Build and test a package alone, and refuse a non-major bump when its public API broke since its last tag."
    )

    @Argument(help: "The package.") var package: String
    @Option(name: .customLong("root"), help: "The repository.") var root: String?

    func run() async throws {
        let report = try await OpenCatReleaseCommand.workspace(root).check(package)
        report.lines.forEach { print($0) }
        if !report.passed { throw ExitCode(1) }
    }
}

struct ReleaseArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "A reproducible registry source archive of one package (siblings by registry id); prints its SHA-256."
    )

    @Argument(help: "The package.") var package: String
    @Option(name: .customLong("scope"), help: "The registry scope (default opencat).") var scope = "opencat"
    @Option(name: .customLong("output"), help: "The folder to write into (default .build/release-archives).")
    var output: String = ".build/release-archives"
    @Option(name: .customLong("root"), help: "The repository.") var root: String?

    func run() async throws {
        let folder = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (url, digest) = try await OpenCatReleaseCommand.workspace(root).archive(package, scope: scope, to: folder)
        print("\(digest)  \(url.path)")
    }
}

struct ReleasePublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish one package to a Swift package registry (signed with a key and chain), after its siblings."
    )

    @Argument(help: "The package.") var package: String
    @Option(name: .customLong("registry"), help: "The registry's URL.") var registry: String
    @Option(name: .customLong("scope"), help: "The registry scope (default opencat).") var scope = "opencat"
    @Option(name: .customLong("private-key-path"), help: "The signing key (PKCS#8, DER).") var privateKeyPath: String?
    @Option(
        name: .customLong("cert-chain-paths"),
        parsing: .upToNextOption,
        help: "The signing certificate and its chain (DER, leaf first)."
    )
    var certChainPaths: [String] = []
    @Option(name: .customLong("repository-url"), help: "The repository URL for the release metadata.")
    var repositoryURL: String?
    @Flag(name: .customLong("dry-run"), help: "Prepare and sign; do not upload.") var dryRun = false
    @Option(name: .customLong("root"), help: "The repository.") var root: String?

    func validate() throws {
        guard let url = URL(string: registry), ["http", "https"].contains(url.scheme ?? "") else {
            throw ValidationError("--registry is an http(s) URL")
        }
        guard (privateKeyPath == nil) == certChainPaths.isEmpty else {
            throw ValidationError("--private-key-path and --cert-chain-paths go together")
        }
    }

    func run() async throws {
        let options = ReleaseWorkspace.PublishOptions(
            registry: URL(string: registry)!,
            scope: scope,
            privateKeyPath: privateKeyPath,
            certChainPaths: certChainPaths,
            dryRun: dryRun,
            repositoryURL: repositoryURL
        )
        let scratch = URL(fileURLWithPath: ".build/release-publish/\(package)")
        let report = try await OpenCatReleaseCommand.workspace(root).publish(
            package,
            options: options,
            scratch: scratch
        )
        print("\(report.identity) \(report.version)")
        print("archive sha256 \(report.archiveSHA256)")
        print("signer \(report.signer ?? "none (unsigned)")")
        print(report.answer)
    }
}

struct ReleaseTagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Tag <Package>-<version> after `opencat-release check` passed."
    )

    @Argument(help: "The package.") var package: String
    @Option(name: .customLong("root"), help: "The repository.") var root: String?

    func run() async throws {
        let workspace = try OpenCatReleaseCommand.workspace(root)
        let report = try await workspace.check(package)
        guard report.passed else {
            report.lines.forEach { print($0) }
            throw ExitCode(1)
        }
        print(try await workspace.tag(package))
    }
}

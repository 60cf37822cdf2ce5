import Crypto
public import Foundation
import Subprocess
import SwiftASN1
import X509

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

extension ReleaseWorkspace {
    /// How `opencat-release publish` publishes.
    public struct PublishOptions: Sendable {
        /// The registry's base URL.
        public var registry: URL
        /// The registry scope (`opencat`).
        public var scope: String
        /// The signing key (PKCS#8, DER) and certificate chain (DER, leaf first): a signed release when given.
        public var privateKeyPath: String?
        public var certChainPaths: [String]
        /// Prepare and sign, do not upload.
        public var dryRun: Bool
        /// The repository's URL for the release metadata (`repositoryURLs`, README and licence links).
        public var repositoryURL: String?

        /// Options.
        public init(
            registry: URL,
            scope: String = "opencat",
            privateKeyPath: String? = nil,
            certChainPaths: [String] = [],
            dryRun: Bool = false,
            repositoryURL: String? = nil
        ) {
            self.registry = registry
            self.scope = scope
            self.privateKeyPath = privateKeyPath
            self.certChainPaths = certChainPaths
            self.dryRun = dryRun
            self.repositoryURL = repositoryURL
        }
    }

    /// What a publish did.
    public struct PublishReport: Sendable {
        /// `scope.Name`.
        public var identity: String
        public var version: SemanticVersion
        /// The SHA-256 (hex) of the archive the toolchain prepared.
        public var archiveSHA256: String
        /// The signing certificate's subject, when signed.
        public var signer: String?
        /// What the toolchain said last (the registry's answer, or that it was a dry run).
        public var answer: String
    }

    /// `opencat-release publish`: stages the package as `archive` does (siblings as registry identities, metadata),
    /// refuses when a sibling it needs is not in the registry yet (naming the order to publish in), then runs the
    /// toolchain's `swift package-registry publish` (signed when a key and chain are given; `--dry-run` prepares and
    /// signs without uploading).
    public func publish(_ name: String, options: PublishOptions, scratch: URL) async throws -> PublishReport {
        guard let package = try packages().first(where: { $0.name == name }) else {
            throw ReleaseError("no package \(name)")
        }
        if !options.dryRun {
            let missing = try await missingSiblings(of: name, scope: options.scope) {
                try await Self.registryReleases($0, registry: options.registry)
            }
            guard missing.isEmpty else {
                throw ReleaseError(
                    "publish first: " + missing.map { "\($0.name) \($0.minimum)" }.joined(separator: ", ")
                        + " (the order: " + (try publishOrder(name)).joined(separator: ", ") + ")"
                )
            }
        }
        let stage = scratch.appendingPathComponent("stage/\(name)")
        let work = scratch.appendingPathComponent("work")
        try? FileManager.default.removeItem(at: scratch)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        for (path, data) in try await registryEntries(name, scope: options.scope, repositoryURL: options.repositoryURL)
        {
            let url = stage.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try data.write(to: url)
        }
        let identity = "\(options.scope).\(name)"
        let answer = try await runPublish(identity, package.version, options: options, stage: stage, work: work)
        let zip = work.appendingPathComponent("\(identity)-\(package.version).zip")
        let digest = SHA256.hash(data: try Data(contentsOf: zip)).map { String(format: "%02x", $0) }.joined()
        return PublishReport(
            identity: identity,
            version: package.version,
            archiveSHA256: digest,
            signer: try options.certChainPaths.first.map(Self.subject),
            answer: answer
        )
    }

    /// Runs `swift package-registry publish` in the staged package; its last line, or its error.
    func runPublish(
        _ identity: String,
        _ version: SemanticVersion,
        options: PublishOptions,
        stage: URL,
        work: URL
    ) async throws -> String {
        var arguments = [
            "package-registry", "publish", identity, "\(version)", "--url", options.registry.absoluteString,
            "--scratch-directory", work.path, "--metadata-path",
            stage.appendingPathComponent("package-metadata.json").path,
        ]
        if options.registry.scheme == "http" { arguments.append("--allow-insecure-http") }
        if let key = options.privateKeyPath {
            arguments += ["--private-key-path", key, "--cert-chain-paths"] + options.certChainPaths
        }
        if options.dryRun { arguments.append("--dry-run") }
        let result = try await Subprocess.run(
            .name("swift"),
            arguments: Arguments(arguments),
            workingDirectory: FilePath(stage.path),
            output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 20)
        )
        let said = (result.standardOutput + result.standardError).split(separator: "\n")
        guard result.terminationStatus.isSuccess else {
            throw ReleaseError("swift package-registry publish failed: \(said.suffix(5).joined(separator: " | "))")
        }
        return String(said.last ?? "")
    }

    /// A DER certificate's subject.
    static func subject(_ path: String) throws -> String {
        let certificate = try Certificate(derEncoded: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return certificate.subject.description
    }
}

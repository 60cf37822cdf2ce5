import Crypto
public import Foundation
import ZIPFoundation

extension ReleaseWorkspace {
    /// The manifest with every sibling named by registry identity: `.package(path: "../X")` becomes
    /// `.package(id: "<scope>.X", from: "<minimum>")`, and `package: "X"` in product references becomes
    /// `package: "<scope>.X"`.
    public func registryManifest(_ name: String, scope: String) throws -> String {
        let packages = try packages()
        guard let package = packages.first(where: { $0.name == name }) else { throw ReleaseError("no package \(name)") }
        var manifest = try String(contentsOf: folder(name).appendingPathComponent("Package.swift"), encoding: .utf8)
        let minimums = try minimumVersions(of: name)
        for sibling in package.siblings {
            guard let version = minimums[sibling] ?? packages.first(where: { $0.name == sibling })?.version else {
                throw ReleaseError("\(name) depends on \(sibling), which is not a package here")
            }
            let path = pathReference(from: name, to: sibling)
            manifest = manifest.replacingOccurrences(
                of: ".package(path: \"\(path)\")",
                with: ".package(id: \"\(scope).\(sibling)\", from: \"\(version)\")"
            )
            // A path dependency's identity is its folder's name.
            let identity = path.split(separator: "/").last.map(String.init) ?? sibling
            manifest = manifest.replacingOccurrences(
                of: "package: \"\(identity)\")",
                with: "package: \"\(scope).\(sibling)\")"
            )
        }
        return manifest
    }

    /// `opencat-release archive`: a registry-ready source archive of one package, as `swift package archive-source`
    /// lays it out (every file under a `<Name>/` folder), its manifest rewritten with registry identities, and
    /// `package-metadata.json`. Reproducible: tracked files only, sorted, fixed timestamps and permissions.
    /// - Returns: the archive's URL and SHA-256 (hex).
    public func archive(_ name: String, scope: String = "opencat", to output: URL) async throws -> (URL, String) {
        guard let package = try packages().first(where: { $0.name == name }) else {
            throw ReleaseError("no package \(name)")
        }
        var entries = try await registryEntries(name, scope: scope)
        entries.sort { $0.0 < $1.0 }
        entries = entries.map { ("\(name)/\($0.0)", $0.1) }
        let url = output.appendingPathComponent("\(scope).\(name)-\(package.version).zip")
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        // 1980-01-01T00:00:00 local: the earliest DOS date, so the same commit always gives the same bytes.
        let fixed = Date(timeIntervalSince1970: 315_532_800 - TimeInterval(TimeZone.current.secondsFromGMT()))
        for (path, data) in entries {
            try archive.addEntry(
                with: path,
                type: .file,
                uncompressedSize: Int64(data.count),
                modificationDate: fixed,
                permissions: 0o644,
                compressionMethod: .deflate
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let digest = SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
        return (url, digest)
    }

    /// The package's files as a registry release holds them (paths relative to the package): its tracked files, the
    /// manifest with siblings as registry identities, and `package-metadata.json` (SE-0292 appendix B: description,
    /// README, licence and repository URLs, author).
    func registryEntries(_ name: String, scope: String, repositoryURL: String? = nil) async throws -> [(String, Data)] {
        guard let package = try packages().first(where: { $0.name == name }) else {
            throw ReleaseError("no package \(name)")
        }
        let prefix = relativeFolder(name) + "/"
        var entries: [(String, Data)] = []
        for (path, file) in try await trackedFiles(under: relativeFolder(name)) {
            let relative = String(path.dropFirst(prefix.count))
            let data =
                relative == "Package.swift"
                ? Data(try registryManifest(name, scope: scope).utf8)
                : try Data(contentsOf: file)
            entries.append((relative, data))
        }
        var metadata: [String: Any] = [
            "description": "OpenCat \(name) \(package.version)",
            "author": ["name": "The OpenCat authors"],
        ]
        if let repositoryURL {
            let tree = "\(repositoryURL)/blob/\(name)-\(package.version)"
            metadata["repositoryURLs"] = [repositoryURL]
            metadata["readmeURL"] = "\(tree)/\(relativeFolder(name))/README.md"
            if FileManager.default.fileExists(atPath: root.appendingPathComponent("LICENSE").path) {
                metadata["licenseURL"] = "\(tree)/LICENSE"
            }
        }
        let json = try JSONSerialization.data(
            withJSONObject: metadata,
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        entries.append(("package-metadata.json", json + Data("\n".utf8)))
        return entries
    }

    /// The files git tracks under a folder, sorted: each path in the repository and the file to read. A tracked link
    /// to a folder (the conformance package's resources link into `Fixtures/`) stands for the files tracked in the
    /// folder it names, listed under the link's path: a release holds real files.
    func trackedFiles(under folder: String) async throws -> [(String, URL)] {
        var result: [(String, URL)] = []
        let rootPath = root.resolvingSymlinksInPath().path + "/"
        for path in try await git(["ls-files", "--", folder]).split(separator: "\n").map(String.init) {
            let file = root.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue else {
                result.append((path, file))
                continue
            }
            let target = file.resolvingSymlinksInPath().path
            guard target.hasPrefix(rootPath) else { throw ReleaseError("\(path) links outside the repository") }
            let linked = String(target.dropFirst(rootPath.count))
            for inner in try await git(["ls-files", "--", linked]).split(separator: "\n").map(String.init) {
                result.append((path + inner.dropFirst(linked.count), root.appendingPathComponent(inner)))
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }
}

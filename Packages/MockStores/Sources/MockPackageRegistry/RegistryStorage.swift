import Crypto
import Foundation
import HTTPTypes
import Synchronization
import ZIPFoundation

/// A package identifier, `scope.name` (3.6): compared case-insensitively, stored lowercased.
struct RegistryIdentity: Sendable, CustomStringConvertible {
    var scope: String
    var name: String

    var description: String { "\(scope).\(name)" }
    /// `scope/name` as paths spell it.
    var path: String { "\(scope)/\(name)" }

    /// 3.6.1: alphanumerics and single inner hyphens, 1 to 39 characters.
    static func isScope(_ text: String) -> Bool {
        text.range(of: #"\A[a-zA-Z0-9](?:[a-zA-Z0-9]|-(?=[a-zA-Z0-9])){0,38}\z"#, options: .regularExpression) != nil
    }

    /// 3.6.2: alphanumerics and single inner hyphens or underscores, 1 to 100 characters.
    static func isName(_ text: String) -> Bool {
        text.range(of: #"\A[a-zA-Z0-9](?:[a-zA-Z0-9]|[-_](?=[a-zA-Z0-9])){0,99}\z"#, options: .regularExpression) != nil
    }

    /// A semantic version (`1.2.3`, `1.2.3-beta.1`, `1.2.3+build`).
    static func isVersion(_ text: String) -> Bool {
        text.range(
            of: #"\A(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\z"#,
            options: .regularExpression
        ) != nil
    }

    /// Semantic-version precedence: numbers compared as numbers, a pre-release below its release.
    static func precedes(_ left: String, _ right: String) -> Bool {
        func parts(_ version: String) -> ([Int], String?) {
            let core = version.split(separator: "+").first.map(String.init) ?? version
            let pieces = core.split(separator: "-", maxSplits: 1)
            let numbers = pieces.first?.split(separator: ".").map { Int($0) ?? 0 } ?? []
            return (numbers, pieces.count > 1 ? String(pieces[1]) : nil)
        }
        let (a, aPre) = parts(left)
        let (b, bPre) = parts(right)
        if a != b { return a.lexicographicallyPrecedes(b) }
        switch (aPre, bPre) {
        case (nil, nil), (nil, _): return false
        case (_, nil): return true
        case let (x?, y?): return x < y
        }
    }
}

/// A stored release: what `release.json` holds and the submitted metadata.
struct StoredRelease {
    var id: String
    var checksum: String
    var publishedAt: String
    var signature: Data?
    var signatureFormat: String?
    var metadata: Any
}

/// The registry's folder: `<scope>/<name>/<version>/` with `source-archive.zip`, `release.json`, `metadata.json`
/// and the signatures as submitted.
struct RegistryStorage {
    let folder: URL

    func directory(_ id: RegistryIdentity, _ version: String? = nil) -> URL {
        let package = folder.appendingPathComponent(id.scope.lowercased()).appendingPathComponent(id.name.lowercased())
        return version.map { package.appendingPathComponent($0) } ?? package
    }

    /// The published versions, highest precedence first.
    func versions(_ id: RegistryIdentity) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory(id).path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: directory(id, $0).appendingPathComponent("release.json").path)
        }
        .sorted { RegistryIdentity.precedes($1, $0) }
    }

    func release(_ id: RegistryIdentity, _ version: String) -> StoredRelease? {
        let folder = directory(id, version)
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("release.json")),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let identifier = object["id"] as? String, let checksum = object["checksum"] as? String
        else { return nil }
        let metadata =
            (try? Data(contentsOf: folder.appendingPathComponent("metadata.json")))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) } ?? [String: Any]()
        return StoredRelease(
            id: identifier,
            checksum: checksum,
            publishedAt: object["publishedAt"] as? String ?? "",
            signature: try? Data(contentsOf: folder.appendingPathComponent("source-archive.signature")),
            signatureFormat: object["signatureFormat"] as? String,
            metadata: metadata
        )
    }

    func archive(_ id: RegistryIdentity, _ version: String) -> Data? {
        try? Data(contentsOf: directory(id, version).appendingPathComponent("source-archive.zip"))
    }

    /// Stores a release once: 409 when the version exists (or is being published), 422 when the archive is not a
    /// zip with a `Package.swift` or the metadata is not a JSON object, 400 when a signed archive names no format.
    func publish(
        _ id: RegistryIdentity,
        _ version: String,
        form: MultipartForm,
        signatureFormat: String?,
        lock: borrowing Mutex<Set<String>>
    ) throws {
        let key = "\(id.description.lowercased())@\(version)"
        guard lock.withLock({ $0.insert(key).inserted }) else {
            throw Problem(.conflict, "a release with version \(version) is being published")
        }
        defer { _ = lock.withLock { $0.remove(key) } }
        guard release(id, version) == nil else {
            throw Problem(.conflict, "a release with version \(version) already exists")
        }
        guard let archive = form["source-archive"]?.body else {
            throw Problem(.unprocessableContent, "the source-archive part is required")
        }
        guard (try? Self.manifests(in: archive))?["Package.swift"] != nil else {
            throw Problem(.unprocessableContent, "package doesn't contain a valid manifest (Package.swift) file")
        }
        let metadata = form["metadata"]?.body ?? Data("{}".utf8)
        guard (try? JSONSerialization.jsonObject(with: metadata)) is [String: Any] else {
            throw Problem(.unprocessableContent, "invalid JSON provided for release metadata")
        }
        let signature = form["source-archive-signature"]?.body
        if signature != nil, signatureFormat == nil {
            throw Problem(.badRequest, "a signed archive needs X-Swift-Package-Signature-Format")
        }
        try write(id, version, archive: archive, metadata: metadata, form: form, signatureFormat: signatureFormat)
    }

    func write(
        _ id: RegistryIdentity,
        _ version: String,
        archive: Data,
        metadata: Data,
        form: MultipartForm,
        signatureFormat: String?
    ) throws {
        let target = directory(id, version)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try archive.write(to: target.appendingPathComponent("source-archive.zip"))
        try metadata.write(to: target.appendingPathComponent("metadata.json"))
        if let signature = form["source-archive-signature"]?.body {
            try signature.write(to: target.appendingPathComponent("source-archive.signature"))
        }
        if let signature = form["metadata-signature"]?.body {
            try signature.write(to: target.appendingPathComponent("metadata.signature"))
        }
        var release: [String: Any] = [
            "id": id.description, "checksum": SHA256.hash(data: archive).map { String(format: "%02x", $0) }.joined(),
            "publishedAt": Date().formatted(.iso8601),
        ]
        if form["source-archive-signature"] != nil { release["signatureFormat"] = signatureFormat }
        // release.json last: a release exists once it is written.
        try JSONSerialization.data(withJSONObject: release, options: .sortedKeys)
            .write(to: target.appendingPathComponent("release.json"))
    }

    /// The identifiers whose metadata lists `url` among its `repositoryURLs` (compared without case, a trailing
    /// `.git` or `/`).
    func identifiers(for url: String) -> [String] {
        let wanted = Self.normalized(url)
        var found: Set<String> = []
        let scopes = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for scope in scopes {
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(scope).path)) ?? []
            for name in names {
                let id = RegistryIdentity(scope: scope, name: name)
                for version in versions(id) {
                    guard let release = release(id, version),
                        let urls = (release.metadata as? [String: Any])?["repositoryURLs"] as? [String],
                        urls.map(Self.normalized).contains(wanted)
                    else { continue }
                    found.insert(release.id)
                }
            }
        }
        return found.sorted()
    }

    static func normalized(_ url: String) -> String {
        var text = url.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix(".git") { text.removeLast(4) }
        return text
    }

    /// The manifests at the archive's package root (`<Name>/Package.swift`, `<Name>/Package@swift-*.swift`).
    static func manifests(in zip: Data) throws -> [String: Data] {
        let archive = try Archive(data: zip, accessMode: .read)
        var manifests: [String: Data] = [:]
        for entry in archive where entry.type == .file {
            let components = entry.path.split(separator: "/")
            guard components.count == 2, let file = components.last,
                file == "Package.swift" || (file.hasPrefix("Package@swift-") && file.hasSuffix(".swift"))
            else { continue }
            var data = Data()
            _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
            manifests[String(file)] = data
        }
        return manifests
    }

    /// The tools version a manifest's first line declares (`// swift-tools-version:5.9` → `5.9`).
    static func toolsVersion(_ manifest: Data) -> String? {
        let line = String(decoding: manifest.prefix(200), as: UTF8.self).split(separator: "\n").first ?? ""
        guard let range = line.range(of: "swift-tools-version:") else { return nil }
        return line[range.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: ";").first.map(
            String.init
        )
    }
}

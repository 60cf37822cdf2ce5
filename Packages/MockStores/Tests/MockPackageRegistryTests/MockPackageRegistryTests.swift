import Crypto
import Foundation
import HTTPTypes
import MockPackageRegistry
import OpenCatCore
import Testing
import ZIPFoundation

// The loopback registry against the specification's own words (SwiftPM's Documentation/PackageRegistry/Registry.md,
// SE-0292 and SE-0391): every endpoint, its status codes and headers, a version published once.
struct MockPackageRegistryTests {
    static let transport = URLSessionTransport()

    /// A source archive as `swift package archive-source` lays it out: every file under `<name>/`.
    static func archive(_ name: String, files: [String: String]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            let data = Data(text.utf8)
            try archive.addEntry(with: "\(name)/\(path)", type: .file, uncompressedSize: Int64(data.count)) {
                position,
                size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }

    static let manifest =
        "// swift-tools-version:6.1\nimport PackageDescription\nlet package = Package(name: \"Kit\")\n"
    static let older = "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Kit\")\n"

    /// A publish request's multipart body.
    static func form(archive: Data, signature: Data?, metadata: String?) -> (Data, String) {
        MockPackageRegistry.publishForm(
            archive: archive,
            signature: signature,
            metadata: metadata.map { Data($0.utf8) }
        )
    }

    static func send(
        _ method: HTTPRequest.Method,
        _ base: URL,
        _ path: String,
        body: Data? = nil,
        headers: [HTTPField.Name: String] = [:]
    ) async throws -> HTTPTransportResponse {
        var request = HTTPRequest(method: method, url: URL(string: base.absoluteString + path)!)
        request.headerFields[.accept] = "application/vnd.swift.registry.v1+json"
        for (name, value) in headers { request.headerFields[name] = value }
        return try await transport.send(request, body: body)
    }

    static func json(_ response: HTTPTransportResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    static let signed = Data("a CMS signature, stored as sent".utf8)
    static let format = HTTPField.Name("X-Swift-Package-Signature-Format")!

    func publish(_ base: URL, _ version: String, signature: Data? = nil, manifest: String = Self.manifest)
        async throws -> HTTPTransportResponse
    {
        let zip = try Self.archive(
            "Kit",
            files: [
                "Package.swift": manifest, "Package@swift-5.9.swift": Self.older,
                "Sources/Kit/Kit.swift": "public let kit = 1\n",
            ]
        )
        let (body, type) = Self.form(
            archive: zip,
            signature: signature,
            metadata: #"{"description": "Kit", "repositoryURLs": ["https://github.com/example/Kit.git"]}"#
        )
        var headers: [HTTPField.Name: String] = [.contentType: type]
        if signature != nil { headers[Self.format] = "cms-1.0.0" }
        return try await Self.send(.put, base, "/opencat/Kit/\(version)", body: body, headers: headers)
    }

    @Test func aReleaseIsPublishedOnceAndListedByPrecedence() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let registry = MockPackageRegistry(folder: folder)
        try await registry.run { base in
            let created = try await publish(base, "1.2.0", signature: Self.signed)
            #expect(created.status == .created && created.head.headerFields[.location] == "/opencat/Kit/1.2.0")
            #expect(try await publish(base, "1.2.0").status == .conflict, "a version is published once")
            #expect(try await publish(base, "1.10.0").status == .created)
            #expect(try await publish(base, "1.10.0-beta.1").status == .created)
            #expect(try await publish(base, "v1").status == .badRequest)
            #expect(try await publish(base, "2.0.0", manifest: "").status == .created)
            let list = try await Self.send(.get, base, "/OpenCat/kit")
            let releases = try #require(try Self.json(list)["releases"] as? [String: Any])
            #expect(Set(releases.keys) == ["1.2.0", "1.10.0", "1.10.0-beta.1", "2.0.0"])
            #expect(
                list.head.headerFields[.init("Link")!]?.contains("</opencat/Kit/2.0.0>; rel=\"latest-version\"") == true
            )
            #expect(list.head.headerFields[.init("Content-Version")!] == "1")
            #expect(try await Self.send(.get, base, "/opencat/Nothing").status == .notFound)
            #expect(try await Self.send(.get, base, "/-bad/Kit").status == .badRequest)
        }
        #expect(registry.requests.filter { $0.method == "PUT" }.map(\.status) == [201, 409, 201, 201, 400, 201])
    }

    @Test func aReleaseServesItsMetadataArchiveAndManifests() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await MockPackageRegistry(folder: folder).run { base in
            _ = try await publish(base, "1.0.0")
            _ = try await publish(base, "1.1.0", signature: Self.signed)
            let metadata = try await Self.send(.get, base, "/opencat/Kit/1.1.0")
            let object = try Self.json(metadata)
            #expect(object["id"] as? String == "opencat.Kit" && object["version"] as? String == "1.1.0")
            let resource = try #require((object["resources"] as? [[String: Any]])?.first)
            let archive = try await Self.send(.get, base, "/opencat/Kit/1.1.0.zip")
            let checksum = SHA256.hash(data: archive.body).map { String(format: "%02x", $0) }.joined()
            #expect(resource["name"] as? String == "source-archive" && resource["checksum"] as? String == checksum)
            let signing = try #require(resource["signing"] as? [String: Any])
            #expect(signing["signatureFormat"] as? String == "cms-1.0.0")
            #expect(signing["signatureBase64Encoded"] as? String == Self.signed.base64EncodedString())
            #expect(((object["metadata"] as? [String: Any])?["repositoryURLs"] as? [String])?.count == 1)
            #expect(metadata.head.headerFields[.init("Link")!]?.contains("rel=\"predecessor-version\"") == true)
            let fields = archive.head.headerFields
            #expect(fields[.contentType] == "application/zip")
            #expect(fields[.contentLength] == String(archive.body.count))
            #expect(
                fields[.init("Digest")!] == "sha-256=" + Data(SHA256.hash(data: archive.body)).base64EncodedString()
            )
            #expect(fields[Self.format] == "cms-1.0.0")
            #expect(fields[.init("X-Swift-Package-Signature")!] == Self.signed.base64EncodedString())
            #expect(fields[.contentDisposition] == "attachment; filename=\"Kit-1.1.0.zip\"")
            #expect(try await Self.send(.get, base, "/opencat/Kit/1.0.0.zip").head.headerFields[Self.format] == nil)

            let manifest = try await Self.send(.get, base, "/opencat/Kit/1.1.0/Package.swift")
            #expect(String(decoding: manifest.body, as: UTF8.self) == Self.manifest)
            #expect(manifest.head.headerFields[.contentType] == "text/x-swift")
            let alternate = try #require(manifest.head.headerFields[.init("Link")!])
            #expect(alternate.contains("filename=\"Package@swift-5.9.swift\"; swift-tools-version=\"5.9\""))
            let specific = try await Self.send(.get, base, "/opencat/Kit/1.1.0/Package.swift?swift-version=5.9")
            #expect(String(decoding: specific.body, as: UTF8.self) == Self.older)
            let missing = try await Self.send(.get, base, "/opencat/Kit/1.1.0/Package.swift?swift-version=4")
            #expect(
                missing.status == .seeOther
                    && missing.head.headerFields[.location] == "/opencat/Kit/1.1.0/Package.swift"
            )
        }
    }

    @Test func identifiersAreFoundByRepositoryURLAndBadPublishesAreRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await MockPackageRegistry(folder: folder).run { base in
            _ = try await publish(base, "1.0.0")
            let found = try await Self.send(.get, base, "/identifiers?url=https://GitHub.com/example/Kit")
            #expect(try Self.json(found)["identifiers"] as? [String] == ["opencat.Kit"])
            #expect(try await Self.send(.get, base, "/identifiers").status == .badRequest)
            #expect(try await Self.send(.get, base, "/identifiers?url=https://example.com/none").status == .notFound)
            let noManifest = try Self.archive("Kit", files: ["README.md": "no manifest"])
            let (body, type) = Self.form(archive: noManifest, signature: nil, metadata: nil)
            let refused = try await Self.send(
                .put,
                base,
                "/opencat/Kit/3.0.0",
                body: body,
                headers: [.contentType: type]
            )
            #expect(refused.status == .unprocessableContent)
            #expect(refused.head.headerFields[.contentType] == "application/problem+json")
            let zip = try Self.archive("Kit", files: ["Package.swift": Self.manifest])
            let (badMetadata, formType) = Self.form(archive: zip, signature: nil, metadata: "[1, 2]")
            #expect(
                try await Self.send(
                    .put,
                    base,
                    "/opencat/Kit/3.0.1",
                    body: badMetadata,
                    headers: [.contentType: formType]
                ).status == .unprocessableContent
            )
            let (unsigned, signedType) = Self.form(archive: zip, signature: Self.signed, metadata: nil)
            #expect(
                try await Self.send(
                    .put,
                    base,
                    "/opencat/Kit/3.0.2",
                    body: unsigned,
                    headers: [.contentType: signedType]
                ).status == .badRequest,
                "a signature without its format"
            )
            #expect(
                try await Self.send(
                    .put,
                    base,
                    "/opencat/Kit/3.0.3",
                    body: zip,
                    headers: [.contentType: "application/zip"]
                ).status == .unsupportedMediaType
            )
            #expect(
                try await Self.send(.get, base, "/opencat/Kit/3.0.0").status == .notFound,
                "nothing refused is stored"
            )
        }
    }
}

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ZIPFoundation

/// The registry's endpoints, as SE-0292's specification (Documentation/PackageRegistry/Registry.md in SwiftPM)
/// words them; section numbers in the comments.
struct RegistryRoutes: Sendable {
    let registry: MockPackageRegistry
    var store: RegistryStorage { RegistryStorage(folder: registry.folder) }

    func add(to router: Router<BasicRequestContext>) {
        router.get("identifiers") { request, _ in try identifiers(request) }
        router.get(":scope/:name") { _, context in try releases(context) }
        router.get(":scope/:name/:version") { _, context in try release(context) }
        router.get(":scope/:name/:version/Package.swift") { request, context in try manifest(request, context) }
        router.put(":scope/:name/:version") { request, context in try await publish(request, context) }
    }

    /// The identifiers of a path, checked (3.6), with `.json`/`.zip` suffixes taken off.
    func identity(_ context: BasicRequestContext) throws -> RegistryIdentity {
        let scope = context.parameters.get("scope") ?? ""
        var name = context.parameters.get("name") ?? ""
        if name.hasSuffix(".json") { name.removeLast(5) }
        guard RegistryIdentity.isScope(scope), RegistryIdentity.isName(name) else {
            throw Problem(.badRequest, "the package identifier \(scope).\(name) is not valid")
        }
        return RegistryIdentity(scope: scope, name: name)
    }

    /// The identifier as it was published (the path may spell it in another case).
    func canonical(_ id: RegistryIdentity) -> RegistryIdentity {
        guard let version = store.versions(id).first, let stored = store.release(id, version)?.id,
            let dot = stored.firstIndex(of: ".")
        else { return id }
        return RegistryIdentity(scope: String(stored[..<dot]), name: String(stored[stored.index(after: dot)...]))
    }

    /// 4.1: the releases, highest precedence first, with a `latest-version` link.
    func releases(_ context: BasicRequestContext) throws -> Response {
        let id = canonical(try identity(context))
        let versions = store.versions(id)
        guard let latest = versions.first else { throw Problem(.notFound, "no package \(id)") }
        let releases = Dictionary(uniqueKeysWithValues: versions.map { ($0, ["url": "/\(id.path)/\($0)"]) })
        var headers = HTTPFields()
        headers[.linkHeader] = "</\(id.path)/\(latest)>; rel=\"latest-version\""
        return try Self.json(["releases": releases], headers: headers)
    }

    /// 4.2 (the version ends in `.json` or nothing) and 4.4 (it ends in `.zip`).
    func release(_ context: BasicRequestContext) throws -> Response {
        let id = try identity(context)
        var version = context.parameters.get("version") ?? ""
        if version.hasSuffix(".zip") {
            version.removeLast(4)
            return try archive(id, version)
        }
        if version.hasSuffix(".json") { version.removeLast(5) }
        guard let release = store.release(id, version) else { throw Problem(.notFound, "no release \(id) \(version)") }
        var resource: [String: Any] = [
            "name": "source-archive", "type": "application/zip", "checksum": release.checksum,
        ]
        if let signature = release.signature, let format = release.signatureFormat {
            resource["signing"] = [
                "signatureBase64Encoded": signature.base64EncodedString(), "signatureFormat": format,
            ]
        }
        let body: [String: Any] = [
            "id": release.id, "version": version, "resources": [resource], "metadata": release.metadata,
            "publishedAt": release.publishedAt,
        ]
        return try Self.json(body, headers: links(id, version))
    }

    /// `latest-version`, `successor-version` and `predecessor-version` (4.2).
    func links(_ requested: RegistryIdentity, _ version: String) -> HTTPFields {
        let id = canonical(requested)
        let versions = store.versions(id)
        var links: [String] = []
        if let latest = versions.first { links.append("</\(id.path)/\(latest)>; rel=\"latest-version\"") }
        if let index = versions.firstIndex(of: version) {
            if index > 0 { links.append("</\(id.path)/\(versions[index - 1])>; rel=\"successor-version\"") }
            if index + 1 < versions.count {
                links.append("</\(id.path)/\(versions[index + 1])>; rel=\"predecessor-version\"")
            }
        }
        var headers = HTTPFields()
        if !links.isEmpty { headers[.linkHeader] = links.joined(separator: ", ") }
        return headers
    }

    /// 4.4: the archive's bytes, its length, `Digest` (base64 SHA-256) and, when signed, the signature headers.
    func archive(_ id: RegistryIdentity, _ version: String) throws -> Response {
        guard let release = store.release(id, version), let data = store.archive(id, version) else {
            throw Problem(.notFound, "no release \(id) \(version)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentVersion] = "1"
        headers[.cacheControl] = "public, immutable"
        headers[.contentDisposition] = "attachment; filename=\"\(id.name)-\(version).zip\""
        headers[.digest] = "sha-256=" + Data(SHA256.hash(data: data)).base64EncodedString()
        if let signature = release.signature, let format = release.signatureFormat {
            headers[.signatureFormat] = format
            headers[.signature] = signature.base64EncodedString()
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// 4.3: `Package.swift` (or `Package@swift-X.swift` for `?swift-version=X`, else 303 to the plain one), with an
    /// `alternate` link per version-specific manifest.
    func manifest(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try identity(context)
        let version = context.parameters.get("version") ?? ""
        guard let data = store.archive(id, version), let manifests = try? RegistryStorage.manifests(in: data),
            let plain = manifests["Package.swift"]
        else { throw Problem(.notFound, "no release \(id) \(version)") }
        var headers = HTTPFields()
        headers[.contentType] = "text/x-swift"
        headers[.contentVersion] = "1"
        headers[.cacheControl] = "public, immutable"
        var body = plain
        var filename = "Package.swift"
        if let swiftVersion = request.uri.queryParameters.get("swift-version") {
            filename = "Package@swift-\(swiftVersion).swift"
            guard let specific = manifests[filename] else {
                headers[.location] = "/\(id.path)/\(version)/Package.swift"
                return Response(status: .seeOther, headers: headers)
            }
            body = specific
        }
        headers[.contentDisposition] = "attachment; filename=\"\(filename)\""
        let alternates = manifests.keys.filter { $0 != "Package.swift" }.sorted().compactMap { name -> String? in
            guard let swift = name.dropFirst("Package@swift-".count).split(separator: ".swift").first else {
                return nil
            }
            let tools = RegistryStorage.toolsVersion(manifests[name] ?? Data()) ?? String(swift)
            return "</\(id.path)/\(version)/Package.swift?swift-version=\(swift)>; rel=\"alternate\"; "
                + "filename=\"\(name)\"; swift-tools-version=\"\(tools)\""
        }
        if !alternates.isEmpty { headers[.linkHeader] = alternates.joined(separator: ", ") }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// 4.5: the identifiers whose metadata lists the URL among its `repositoryURLs`.
    func identifiers(_ request: Request) throws -> Response {
        guard let url = request.uri.queryParameters.get("url"), !url.isEmpty else {
            throw Problem(.badRequest, "the url query parameter is required")
        }
        let found = store.identifiers(for: url)
        guard !found.isEmpty else { throw Problem(.notFound, "no package is registered for \(url)") }
        return try Self.json(["identifiers": found])
    }

    /// 4.6: a release from a multipart form, once per version.
    func publish(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try identity(context)
        let version = context.parameters.get("version") ?? ""
        guard RegistryIdentity.isVersion(version) else { throw Problem(.badRequest, "\(version) is not a version") }
        guard let boundary = MultipartForm.boundary(request.headers[.contentType] ?? "") else {
            throw Problem(.unsupportedMediaType, "the body must be multipart/form-data")
        }
        let body = Data(try await request.body.collect(upTo: 64 << 20).readableBytesView)
        guard let form = MultipartForm(body, boundary: boundary) else {
            throw Problem(.unprocessableContent, "the multipart body is malformed")
        }
        let format = request.headers[.signatureFormat]
        try store.publish(id, version, form: form, signatureFormat: format, lock: registry.publishing)
        var headers = HTTPFields()
        headers[.location] = "/\(id.path)/\(version)"
        headers[.contentVersion] = "1"
        return Response(status: .created, headers: headers)
    }

    static func json(_ object: Any, headers: HTTPFields = HTTPFields()) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        headers[.contentVersion] = "1"
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// An error answered as a problem details document (3.3, RFC 7807).
struct Problem: HTTPResponseError {
    let status: HTTPResponse.Status
    let detail: String

    init(_ status: HTTPResponse.Status, _ detail: String) {
        self.status = status
        self.detail = detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        headers[.contentVersion] = "1"
        let data = try JSONSerialization.data(withJSONObject: ["detail": detail, "status": Int(status.code)])
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension HTTPField.Name {
    static let contentVersion = Self("Content-Version")!
    static let linkHeader = Self("Link")!
    static let digest = Self("Digest")!
    static let signatureFormat = Self("X-Swift-Package-Signature-Format")!
    static let signature = Self("X-Swift-Package-Signature")!
}

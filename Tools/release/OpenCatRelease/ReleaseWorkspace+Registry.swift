public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ReleaseWorkspace {
    /// The order to publish `name` in: every sibling it needs, directly or not, before the packages that need it, and
    /// `name` last.
    /// - Throws: ``ReleaseError`` for an unknown package or a cycle.
    public func publishOrder(_ name: String) throws -> [String] {
        let packages = try packages()
        var order: [String] = []
        var path: [String] = []
        func visit(_ next: String) throws {
            guard !order.contains(next) else { return }
            guard !path.contains(next) else {
                throw ReleaseError("a dependency cycle: \((path + [next]).joined(separator: " → "))")
            }
            guard let package = packages.first(where: { $0.name == next }) else {
                throw ReleaseError("no package \(next)")
            }
            path.append(next)
            for sibling in package.siblings.sorted() { try visit(sibling) }
            path.removeLast()
            order.append(next)
        }
        try visit(name)
        return order
    }

    /// The siblings `name` requires (its manifest's `from:` minimums, as `RELEASE.json` or their VERSION give them)
    /// that the registry has no release for yet — a version at or above the minimum, below the next major — in the
    /// order they must be published.
    /// - Parameter releases: the versions the registry lists for an identity (`scope.Name`); an unknown package is
    ///   an empty list.
    public func missingSiblings(
        of name: String,
        scope: String,
        releases: (String) async throws -> [SemanticVersion]
    ) async throws -> [(name: String, minimum: SemanticVersion)] {
        let packages = try packages()
        guard let package = packages.first(where: { $0.name == name }) else { throw ReleaseError("no package \(name)") }
        let minimums = try minimumVersions(of: name)
        var missing: [(name: String, minimum: SemanticVersion)] = []
        for sibling in try publishOrder(name).dropLast() where package.siblings.contains(sibling) {
            guard let minimum = minimums[sibling] ?? packages.first(where: { $0.name == sibling })?.version else {
                continue
            }
            let published = try await releases("\(scope).\(sibling)")
            let ceiling = SemanticVersion(minimum.major + 1, 0, 0)
            if !published.contains(where: { $0 >= minimum && $0 < ceiling }) { missing.append((sibling, minimum)) }
        }
        return missing
    }

    /// The versions a registry lists for `identity` (`GET /{scope}/{name}`, SE-0292 4.1); none when it answers 404.
    /// - Throws: ``ReleaseError`` for any other answer, naming its status.
    public static func registryReleases(_ identity: String, registry: URL) async throws -> [SemanticVersion] {
        let path = identity.replacingOccurrences(of: ".", with: "/")
        var request = URLRequest(url: registry.appendingPathComponent(path))
        request.setValue("application/vnd.swift.registry.v1+json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 404 { return [] }
        guard status == 200,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let releases = object["releases"] as? [String: Any]
        else { throw ReleaseError("the registry answered \(status) for \(identity)") }
        return releases.compactMap { version, value in
            ((value as? [String: Any])?["problem"] == nil) ? SemanticVersion(version) : nil
        }
    }
}

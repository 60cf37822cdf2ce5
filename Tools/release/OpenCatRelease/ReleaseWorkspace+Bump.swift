import Foundation

extension ReleaseWorkspace {
    /// `opencat-release bump`: writes VERSION, moves the CHANGELOG's Unreleased entries under a dated section, and
    /// raises the minimum version every dependent declares (`RELEASE.json`: sibling → minimum) to the new one.
    /// - Returns: the new version and the dependents updated.
    @discardableResult
    public func bump(_ name: String, _ bump: Bump, date: Date = Date()) throws -> (SemanticVersion, [String]) {
        let packages = try packages()
        guard let package = packages.first(where: { $0.name == name }) else { throw ReleaseError("no package \(name)") }
        let next = package.version.bumped(bump)
        try (next.description + "\n").write(
            to: folder(name).appendingPathComponent("VERSION"),
            atomically: true,
            encoding: .utf8
        )
        let changelogURL = folder(name).appendingPathComponent("CHANGELOG.md")
        let changelog = (try? String(contentsOf: changelogURL, encoding: .utf8)) ?? "# Changelog\n\n## [Unreleased]\n"
        let day = date.formatted(Date.ISO8601FormatStyle().year().month().day())
        try Changelog.release(changelog, version: next, date: day).write(
            to: changelogURL,
            atomically: true,
            encoding: .utf8
        )
        let dependents = packages.filter { $0.siblings.contains(name) }.map(\.name)
        for dependent in dependents {
            var minimums = try minimumVersions(of: dependent)
            minimums[name] = next
            try writeMinimumVersions(minimums, of: dependent)
        }
        return (next, dependents)
    }

    /// The minimum sibling versions a package declares (`RELEASE.json`); siblings not listed default to their
    /// current VERSION when archived.
    public func minimumVersions(of name: String) throws -> [String: SemanticVersion] {
        let url = folder(name).appendingPathComponent("RELEASE.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        struct File: Codable { var minimumVersions: [String: SemanticVersion] }
        return try JSONDecoder().decode(File.self, from: data).minimumVersions
    }

    func writeMinimumVersions(_ minimums: [String: SemanticVersion], of name: String) throws {
        struct File: Codable { var minimumVersions: [String: SemanticVersion] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(File(minimumVersions: minimums)) + Data("\n".utf8))
            .write(to: folder(name).appendingPathComponent("RELEASE.json"))
    }
}

import Foundation

/// `opencat-release plan`: per package, its version and last tag, whether it changed since, which dependents must
/// follow, and the bump its CHANGELOG asks for.
public struct ReleasePlan: Sendable, Codable {
    public struct Entry: Sendable, Codable, Hashable {
        public var package: String
        public var version: SemanticVersion
        public var lastTag: String?
        public var changed: Bool
        public var dependentsToFollow: [String]
        public var suggestedBump: Bump?
        public var nextVersion: SemanticVersion?
    }

    public var entries: [Entry]

    /// Reads every package's VERSION, CHANGELOG and manifest, and asks git for its last tag and what changed since.
    /// - Throws: ``ReleaseError`` when a VERSION is not x.y.z or git fails.
    public init(workspace: ReleaseWorkspace) async throws {
        let packages = try workspace.packages()
        var entries: [Entry] = []
        for package in packages {
            let last = try await workspace.lastTag(package.name)
            var changed = true
            if let last { changed = try await workspace.changed(package.name, since: last.tag) }
            let changelog =
                (try? String(
                    contentsOf: workspace.folder(package.name).appendingPathComponent("CHANGELOG.md"),
                    encoding: .utf8
                ))
                ?? ""
            let bump = changed ? Changelog.suggestedBump(changelog) : nil
            entries.append(
                Entry(
                    package: package.name,
                    version: package.version,
                    lastTag: last?.tag,
                    changed: changed,
                    dependentsToFollow: changed ? workspace.dependents(of: package.name, in: packages) : [],
                    suggestedBump: bump,
                    nextVersion: bump.map { package.version.bumped($0) }
                )
            )
        }
        self.entries = entries
    }

    /// A plain table.
    public func table() -> String {
        let header = ["package", "version", "last tag", "changed", "bump", "next", "dependents to follow"]
        let rows = entries.map {
            [
                $0.package, $0.version.description, $0.lastTag ?? "-", $0.changed ? "yes" : "no",
                $0.suggestedBump?.rawValue ?? "-", $0.nextVersion?.description ?? "-",
                $0.dependentsToFollow.isEmpty ? "-" : $0.dependentsToFollow.joined(separator: ", "),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// JSON, keys sorted.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

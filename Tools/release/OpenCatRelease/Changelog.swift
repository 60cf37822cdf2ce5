import Foundation

/// A package's CHANGELOG.md in Keep a Changelog form.
public enum Changelog {
    /// The `## [Unreleased]` section's body (empty when there is none).
    public static func unreleased(_ text: String) -> String {
        guard let start = text.range(of: "## [Unreleased]") else { return "" }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n## [")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The bump the Unreleased section asks for: `major` for a Removed section or a breaking change (a line under
    /// Changed that says "breaking"), `minor` for Added or Deprecated, `patch` for Changed, Fixed or Security; nil
    /// when the section lists nothing.
    public static func suggestedBump(_ text: String) -> Bump? {
        var bump: Bump?
        var heading = ""
        for line in unreleased(text).split(separator: "\n") {
            if line.hasPrefix("### ") {
                heading = line.dropFirst(4).trimmingCharacters(in: .whitespaces).lowercased()
                continue
            }
            guard line.hasPrefix("- ") else { continue }
            let entry: Bump
            switch heading {
            case "removed": entry = .major
            case "changed": entry = line.lowercased().contains("breaking") ? .major : .patch
            case "added", "deprecated": entry = .minor
            case "fixed", "security": entry = .patch
            default: continue
            }
            bump = max(bump ?? entry, entry)
        }
        return bump
    }

    /// The changelog with its Unreleased entries moved under `## [version] - date` and an empty Unreleased section
    /// left on top.
    public static func release(_ text: String, version: SemanticVersion, date: String) -> String {
        guard let range = text.range(of: "## [Unreleased]\n") else {
            return text + "\n## [\(version)] - \(date)\n"
        }
        return text.replacingCharacters(in: range, with: "## [Unreleased]\n\n## [\(version)] - \(date)\n")
    }
}

import ArgumentParser
import Foundation
import OpenCatRelease

/// `opencat-release`: plan, bump, check, archive and tag each package on its own (docs/RELEASING.md).
@main
struct OpenCatReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "opencat-release",
        abstract: "Version and ship each package on its own: plan, bump, check, archive, tag.",
        subcommands: [
            ReleasePlanCommand.self, ReleaseBumpCommand.self, ReleaseCheckCommand.self,
            ReleaseArchiveCommand.self, ReleasePublishCommand.self, ReleaseTagCommand.self,
        ]
    )

    /// The workspace at `--root`, or else the checkout found from the current folder (``findRoot()``).
    static func workspace(_ root: String?) throws -> ReleaseWorkspace {
        ReleaseWorkspace(root: try root.map { URL(fileURLWithPath: $0) } ?? findRoot())
    }

    /// The nearest folder at or above the current one that holds a `Packages/` folder and a `Package.swift`.
    /// - Throws: `ValidationError` when no folder up to the file system's root does.
    static func findRoot() throws -> URL {
        let files = FileManager.default
        var url = URL(fileURLWithPath: files.currentDirectoryPath)
        while true {
            var isFolder: ObjCBool = false
            if files.fileExists(atPath: url.appendingPathComponent("Packages").path, isDirectory: &isFolder),
                isFolder.boolValue,
                files.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
            {
                return url
            }
            let parent = url.deletingLastPathComponent()
            if url.pathComponents.count <= 1 || parent.path == url.path {
                throw ValidationError("no OpenCat checkout here or above; pass --root")
            }
            url = parent
        }
    }
}

import Foundation
import Testing

/// Runs the `opencat` executable that `swift build` / `swift test` put next to the test bundle.
enum OpenCatCLI {
    struct Result: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// Whether the process ended by a signal (a trap) rather than an exit.
        var trapped: Bool
    }

    /// The built products folder: the test bundle's folder (SwiftPM builds every product there).
    static var executable: URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // macOS runs tests from inside an .xctest bundle.
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS"
            || folder.lastPathComponent == "Contents"
        {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("opencat")
    }

    /// Runs `opencat` with `arguments` and waits for it.
    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self),
            trapped: process.terminationReason == .uncaughtSignal
        )
    }
}

/// A scratch folder removed when the value goes away.
final class ScratchFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `contents` to `name` and returns its path.
    func write(_ name: String, _ contents: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try contents.write(to: file)
        return file.path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

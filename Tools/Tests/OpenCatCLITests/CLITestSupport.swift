import Foundation
import Testing
import ToolsTestSupport

/// Runs the `opencat` and `opencat-server` executables that `swift build` / `swift test` put next to the test
/// bundle, as a person runs them (in a child process, awaited without blocking a thread).
enum OpenCatCLI {
    struct Result: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// Whether the process ended by a signal (a trap) rather than an exit.
        var trapped: Bool
    }

    /// `opencat`.
    static var executable: URL { TestEnvironment.builtProduct("opencat") }
    /// `opencat-server`.
    static var server: URL { TestEnvironment.builtProduct("opencat-server") }

    /// The environment every run gets unless a test says otherwise: a store answering from a mock in this (busy,
    /// maybe one-core) test process may take longer than the 30 seconds a real attempt gets, and a timed-out read
    /// retried would take the cassette's next answer.
    static let patientEnvironment: [String: String?] = ["OPENCAT_HTTP_TIMEOUT": "600"]

    /// Runs `opencat` (or another of the products) with `arguments` to its end.
    static func run(
        _ arguments: [String],
        executable: URL = executable,
        input: String? = nil,
        environment: [String: String?] = patientEnvironment
    ) async throws -> Result {
        let result = try await runProcess(executable.path, arguments, environment: environment, input: input)
        return Result(
            status: result.status,
            standardOutput: result.output,
            standardError: result.error,
            trapped: result.status > 128
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

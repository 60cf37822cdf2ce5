public import Foundation

/// What the tests need from the machine, found at once or refused at once with the command that provisions it —
/// never a wait.
public enum TestEnvironment {
    /// The README's test command: installs the system packages the tests need, starts PostgreSQL on loopback and
    /// runs every test.
    public static let provisionCommand = "bash Tools/test.sh"

    /// Something the tests need is not on this machine.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing and how to provision it.
        public var description: String
    }

    /// The tests' PostgreSQL server: `OPENCAT_TEST_POSTGRES_URL`, which the test command sets after starting one on
    /// loopback.
    /// - Throws: ``Missing`` naming the variable and the command, when it is not set.
    public static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["OPENCAT_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw Missing(
                description:
                    "PostgreSQL for the tests: OPENCAT_TEST_POSTGRES_URL is not set. Run `\(provisionCommand)` "
                    + "(it installs postgresql when missing, starts it on 127.0.0.1 and runs every test)."
            )
        }
        return url
    }

    /// The absolute path of a program on `PATH`.
    /// - Parameters:
    ///   - names: the program's names, in order of preference (`chromium`, `chromium-browser`).
    ///   - package: the Debian package that provides it.
    /// - Throws: ``Missing`` naming the package and the command, when none is found.
    public static func executable(_ names: String..., package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in names {
            for folder in path.split(separator: ":") {
                let candidate = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        throw Missing(
            description: "\(names[0]) is not installed (Debian package \(package)). Run `\(provisionCommand)`, which "
                + "installs it when missing and runs every test."
        )
    }

    /// A product SwiftPM built beside the running test bundle (`opencat`, `opencat-server`).
    public static func builtProduct(_ name: String) -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // macOS runs tests from inside an .xctest bundle.
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS"
            || folder.lastPathComponent == "Contents"
        {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent(name)
    }

    /// The port at the end of a server's address line (`…:8080`, `…:8080 (sqlite)`, `…:8080 with 3 cassettes`).
    public static func port(in line: String) -> Int? {
        guard let match = line.firstMatch(of: /:(\d{1,5})(?!\d)/) else { return nil }
        return Int(match.1)
    }

    /// The repository's root folder (found from this file).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

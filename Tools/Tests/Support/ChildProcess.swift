public import Foundation
import Subprocess
import SystemPackage

/// What a finished child process left: its exit status (or 128 + the signal that ended it), standard output and
/// standard error.
public struct ProcessResult: Sendable {
    /// The exit status; 128 + N when signal N ended it.
    public var status: Int32
    /// Everything it wrote to standard output.
    public var output: String
    /// Everything it wrote to standard error.
    public var error: String

    /// Creates a result.
    public init(status: Int32, output: String, error: String) {
        self.status = status
        self.output = output
        self.error = error
    }
}

/// Runs a program to its end without blocking a thread of Swift concurrency (swift-subprocess waits
/// asynchronously), and returns what it printed. A program still running after `timeout` is killed (its status is
/// then 128 + 9), so a stalled program fails its test instead of hanging the run.
/// - Parameters:
///   - executable: a name looked up on `PATH`, or an absolute path.
///   - environment: variables added to (or, with a nil value, removed from) this process's environment.
///   - input: written to its standard input.
public func runProcess(
    _ executable: String,
    _ arguments: [String],
    workingDirectory: URL? = nil,
    environment: [String: String?] = [:],
    input: String? = nil,
    timeout: Duration = .seconds(300)
) async throws -> ProcessResult {
    let result = try await Subprocess.run(
        ChildProcess.executable(executable),
        arguments: Arguments(arguments),
        environment: ChildProcess.environment(environment),
        workingDirectory: workingDirectory.map { FilePath($0.path) },
        input: .string(input ?? ""),
        output: .sequence,
        error: .sequence
    ) { execution in
        let watchdog = Task {
            try await Task.sleep(for: timeout)  // sleep-ok: the watchdog's ceiling, cancelled when the child ends
            try? execution.send(signal: .kill)
        }
        defer { watchdog.cancel() }
        async let output = ChildProcess.collect(execution.standardOutput)
        async let error = ChildProcess.collect(execution.standardError)
        return try await (output, error)
    }
    let (output, error) = result.closureResult
    return ProcessResult(status: ChildProcess.status(result.terminationStatus), output: output, error: error)
}

/// A program running beside a test (a server, say): the lines of its standard output as they come, its process id,
/// and signals. Valid only inside ``withChildProcess(_:_:environment:standardError:_:)``'s body.
public struct ChildProcess: Sendable {
    /// Its process id.
    public let pid: Int32
    /// Its standard output, line by line, read as it is written (the whole output is drained, so a chatty child
    /// never blocks on a full pipe).
    public let lines: AsyncThrowingStream<String, any Error>
    let signal: @Sendable (Int32) throws -> Void

    /// Sends a signal (`SIGTERM`, `SIGKILL`, …).
    public func send(_ signal: Int32) throws { try self.signal(signal) }

    /// The first line of standard output that contains `text`; nil when the output ends before one does (the
    /// child ended, or was killed at its time limit).
    public func firstLine(containing text: String) async throws -> String? {
        for try await line in lines where line.contains(text) { return line }
        return nil
    }

    static func collect(_ sequence: SubprocessOutputSequence) async throws -> String {
        var bytes: [UInt8] = []
        for try await buffer in sequence { buffer.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func executable(_ name: String) -> Executable {
        name.hasPrefix("/") ? .path(FilePath(name)) : .name(name)
    }

    static func environment(_ values: [String: String?]) -> Subprocess.Environment {
        var updates: [Subprocess.Environment.Key: String?] = [:]
        for (name, value) in values { updates[Subprocess.Environment.Key(stringLiteral: name)] = value }
        return .inherit.updating(updates)
    }

    static func status(_ status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}

/// Starts a program, runs `body` while it runs, then ends it (`SIGKILL` if it is still running once `body`
/// returns) and returns `body`'s value with the program's exit status (128 + N when signal N ended it).
/// Nothing blocks a thread of Swift concurrency, and nothing waits for ever: a program still running after `timeout`
/// is killed, which ends its output (so a body waiting for a line gets nil and fails).
/// - Parameter standardError: a file that receives its standard error (default: discarded).
@discardableResult
public func withChildProcess<T: Sendable>(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String?] = [:],
    standardError: URL? = nil,
    timeout: Duration = .seconds(300),
    _ body: (ChildProcess) async throws -> T
) async throws -> (value: T, status: Int32) {
    let errorDescriptor = try FileDescriptor.open(
        FilePath(standardError?.path ?? "/dev/null"),
        .writeOnly,
        options: standardError == nil ? [] : [.create, .truncate],
        permissions: standardError == nil ? nil : [.ownerReadWrite]
    )
    let error: FileDescriptorOutput = .fileDescriptor(errorDescriptor, closeAfterSpawningProcess: true)
    let result = try await Subprocess.run(
        ChildProcess.executable(executable),
        arguments: Arguments(arguments),
        environment: ChildProcess.environment(environment),
        input: .none,
        output: .sequence,
        error: error
    ) { execution in
        let watchdog = Task {
            try await Task.sleep(for: timeout)  // sleep-ok: the watchdog's ceiling, cancelled when the child ends
            try? execution.send(signal: .kill)
        }
        defer { watchdog.cancel() }
        let (lines, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let drain = Task {
            do {
                for try await line in execution.standardOutput.strings() { continuation.yield(line) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let child = ChildProcess(pid: execution.processIdentifier.value, lines: lines) { signal in
            try execution.send(signal: Signal(rawValue: signal))
        }
        let value: T
        do {
            value = try await body(child)
        } catch {
            try? execution.send(signal: .kill)
            _ = await drain.result
            throw error
        }
        // Still running: end it. Already ended: the signal fails, which is fine.
        try? execution.send(signal: .kill)
        _ = await drain.result
        return value
    }
    return (result.closureResult, ChildProcess.status(result.terminationStatus))
}

/// A server a test starts (`opencat-server`, `opencat mock serve`) did not print its address.
public struct ServerDidNotStart: Error, CustomStringConvertible {
    /// What it printed on standard error last.
    public var description: String
}

/// Starts a server that prints a line containing `banner` and ending in its port (`… http://127.0.0.1:8080 …`,
/// `…:8080`), runs `body` with it and that port, then ends it (SIGKILL if it still runs); returns `body`'s value and
/// the exit status (128 + N after signal N). A server that does not print the line fails with the end of its
/// standard error.
@discardableResult
public func withServerProcess<T: Sendable>(
    _ executable: String,
    _ arguments: [String],
    banner: String = "listening on",
    environment: [String: String?] = [:],
    standardError: URL? = nil,
    _ body: (ChildProcess, Int) async throws -> T
) async throws -> (value: T, status: Int32) {
    let log =
        standardError ?? FileManager.default.temporaryDirectory.appendingPathComponent("opencat-child-\(UUID()).log")
    defer { if standardError == nil { try? FileManager.default.removeItem(at: log) } }
    return try await withChildProcess(executable, arguments, environment: environment, standardError: log) { child in
        guard let line = try await child.firstLine(containing: banner),
            let port = TestEnvironment.port(in: line)
        else {
            let reason = (try? String(contentsOf: log, encoding: .utf8)).map { String($0.suffix(600)) } ?? ""
            throw ServerDidNotStart(description: "\(executable) did not start: \(reason)")
        }
        return try await body(child, port)
    }
}

/// Runs Tools/ci/standard_webhooks_check.py (Python's `standardwebhooks`, an independent implementation) in `mode`
/// (`verify` or `sign`) over `deliveries` and returns its JSON answer.
/// - Throws: ``ChildProcessError`` naming the provisioning command when the package is missing, or the checker's
///   output when it is not JSON.
public func standardWebhooksCheck(_ mode: String, _ deliveries: [[String: Any]]) async throws -> [String: Any] {
    let script = TestEnvironment.repositoryRoot.appendingPathComponent("Tools/ci/standard_webhooks_check.py").path
    let input = String(decoding: try JSONSerialization.data(withJSONObject: deliveries), as: UTF8.self)
    let result = try await runProcess("python3", [script, mode], input: input)
    guard result.status != 2 else {
        throw ChildProcessError(
            "\(result.error) — run `\(TestEnvironment.provisionCommand)` (it pip-installs standardwebhooks)"
        )
    }
    guard let answer = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
        throw ChildProcessError("the checker answered \(result.output) \(result.error)")
    }
    return answer
}

/// A helper process that did not give what the test needs.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// Why.
    public var description: String
    /// An error saying why.
    public init(_ description: String) { self.description = description }
}

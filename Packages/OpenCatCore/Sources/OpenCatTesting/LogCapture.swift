public import Logging
import Synchronization

/// Captures every log line (level, message, metadata and any attached error, rendered) so tests can search them
/// for secrets.
public final class LogCapture: Sendable {
    /// Creates an empty capture.
    public init() {}

    private let lines = Mutex<[String]>([])

    /// A trace-level logger writing here.
    public var logger: Logger { logger("dev.opencat.tests") }

    /// A trace-level logger with a label, writing here.
    public func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far.
    public var all: [String] { lines.withLock { $0 } }
    /// Every line so far (alias used by the payments tests).
    public var recorded: [String] { all }
    /// Every line, joined.
    public var text: String { all.joined(separator: "\n") }
    /// Whether any line contains the text.
    public func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }

    fileprivate func record(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let error = event.error.map { " error=\(String(describing: $0))" } ?? ""
            capture.record("\(event.level) \(event.message) \(rendered)\(error)")
        }
    }
}

import Logging
import Synchronization

/// Records every log line (message and metadata, rendered as text) so that tests can assert that no secret was
/// logged. Shared by the Google and Steam tests; logs at `.trace` so that nothing is filtered out.
final class GoogleSteamLogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// Every line so far, as `level message key=value …`.
    var all: [String] { lines.withLock { $0 } }

    /// A logger that writes here.
    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Whether any line contains the text.
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }

    fileprivate func record(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: GoogleSteamLogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.record("\(event.level) \(event.message) \(rendered)")
        }
    }
}

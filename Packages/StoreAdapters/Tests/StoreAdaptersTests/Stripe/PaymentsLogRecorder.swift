import Logging
import Synchronization

/// Records every log line (message, metadata, error) at trace level, so tests can assert what never appears in logs.
/// Shared by the Stripe and PayPal tests.
final class PaymentsLogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// A trace-level logger writing into this recorder.
    var logger: Logger {
        var logger = Logger(label: "dev.opencat.tests.payments") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far.
    var recorded: [String] { lines.withLock { $0 } }

    /// All lines joined, for `contains` checks.
    var text: String { recorded.joined(separator: "\n") }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: PaymentsLogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let error = event.error.map { " error=\(String(describing: $0))" } ?? ""
            recorder.append("\(event.level) \(event.message) \(merged)\(error)")
        }
    }
}

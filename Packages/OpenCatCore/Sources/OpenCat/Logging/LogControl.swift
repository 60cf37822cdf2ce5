import Logging
import OpenCatCore
import Synchronization

/// The SDK's switchable logging: every component logs through a `Logger` whose handler consults one shared
/// level, so ``OpenCat/setLogLevel(_:)`` takes effect everywhere at once. Off (nil) by default.
final class LogControl: Sendable {
    private let level: Mutex<Logger.Level?>
    private let base: Logger

    init(base: Logger, level: Logger.Level?) {
        self.base = base
        self.level = Mutex(level)
    }

    var currentLevel: Logger.Level? {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }

    /// A logger for a component; its output is gated by the shared level and goes to the base logger's handler.
    func logger(label: String) -> Logger {
        let control = self
        return Logger(label: label) { _ in GatedLogHandler(control: control) }
    }

    fileprivate func forward(_ event: LogEvent) {
        guard let threshold = currentLevel, threshold <= event.level else { return }
        base.handler.log(event: event)
    }
}

private struct GatedLogHandler: LogHandler {
    let control: LogControl
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { control.currentLevel ?? .critical }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        event.metadata = merged.isEmpty ? nil : merged
        control.forward(event)
    }
}

public import Foundation

/// A clock that can also tell the calendar date.
///
/// Everything in OpenCat that waits (retry back-off, timeouts, expiry timers) or reads "now" (entitlement
/// expiry) takes a `WallClock`, so that tests drive time with a ``ManualClock`` and never sleep for real.
public protocol WallClock: Clock<Duration> {
    /// The current calendar date according to this clock.
    var currentDate: Date { get }

    /// Runs an operation that waits on something other than this clock (network I/O). Real clocks just run
    /// it; a ``ManualClock`` can hold its automatic advancing meanwhile, so a timeout raced against real I/O
    /// fires only when a test moves time on purpose.
    func waitingOnExternalWork<Result: Sendable>(
        _ operation: @Sendable () async throws -> Result
    ) async throws -> Result
}

extension WallClock {
    /// Runs the operation (real clocks need nothing more).
    public func waitingOnExternalWork<Result: Sendable>(
        _ operation: @Sendable () async throws -> Result
    ) async throws -> Result {
        try await operation()
    }

    /// Suspends until the given calendar date (returns at once if it is in the past).
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    public func sleep(untilDate date: Date) async throws {
        let seconds = date.timeIntervalSince(currentDate)
        guard seconds > 0 else { return }
        try await sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}

/// The real clock: `ContinuousClock` for waiting and the system date for "now".
public struct SystemClock: WallClock {
    private let base = ContinuousClock()

    /// Creates the system clock.
    public init() {}

    public var now: ContinuousClock.Instant { base.now }
    public var minimumResolution: Duration { base.minimumResolution }
    public var currentDate: Date { Date() }

    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

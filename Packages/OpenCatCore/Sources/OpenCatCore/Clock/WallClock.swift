public import Foundation

/// A clock that can also tell the calendar date.
///
/// Everything in OpenCat that waits (retry back-off, timeouts, expiry timers) or reads "now" (entitlement
/// expiry) takes a `WallClock`, so that tests drive time with a test clock (OpenCatTesting's `ManualClock`) and never
/// sleep for real.
public protocol WallClock: Clock<Duration> {
    /// The current calendar date according to this clock.
    var currentDate: Date { get }
}

/// A clock that wants to know when the code waiting on it is also waiting on something else (network I/O).
///
/// ``HTTPClient`` runs each attempt inside ``waitingOnExternalWork(_:)`` when its clock conforms: a clock that
/// moves by itself when every waiter sleeps (a test clock) can then hold still while real I/O takes real time.
/// Real clocks do not conform and need nothing.
public protocol ExternalWorkAwareClock: WallClock {
    /// Runs an operation that waits on something other than this clock.
    func waitingOnExternalWork<Result: Sendable>(
        _ operation: @Sendable () async throws -> Result
    ) async throws -> Result
}

extension WallClock {
    /// Runs an operation that waits on something other than this clock: through
    /// ``ExternalWorkAwareClock/waitingOnExternalWork(_:)`` when the clock conforms, else directly.
    public func runningExternalWork<Result: Sendable>(
        _ operation: @Sendable () async throws -> Result
    ) async throws -> Result {
        if let aware = self as? any ExternalWorkAwareClock {
            return try await aware.waitingOnExternalWork(operation)
        }
        return try await operation()
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

public import Foundation
public import OpenCatCore
import Synchronization

/// A clock that moves only when told to: the test clock for everything that waits or reads the date.
///
/// Two modes:
/// - **manual** (default): `sleep` suspends until ``advance(by:)`` (or ``advance(toDate:)``) moves time past
///   the deadline. Use it to drive expiry timers and to observe what is waiting.
/// - **auto-advancing**: when a sleeper is the earliest one left after the scheduler has settled (a number of
///   `Task.yield()` turns in which it was not cancelled), time jumps to its deadline. Use it for retry and
///   back-off logic over in-process doubles: the code runs at full speed, ``recordedSleeps`` shows every wait,
///   and a timeout raced against an operation that answers at once is cancelled before it can fire. (For real
///   I/O, which takes wall time, pass `holdsDuringExternalWork: true`: then nothing is advanced automatically
///   while an operation runs inside ``waitingOnExternalWork(_:)`` — ``HTTPClient`` wraps every transport call in
///   it — and whatever plays the remote side moves time on purpose, as MockStores' fault injection does.)
///
/// Every requested sleep is recorded in ``recordedSleeps`` in both modes.
public final class ManualClock: ExternalWorkAwareClock, Sendable {
    /// A point on a ``ManualClock``: the time elapsed since the clock was created.
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock's start.
        public var offset: Duration

        /// Creates an instant at an offset from the clock's start.
        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var cancelledBeforeRegistration: Set<UInt64> = []
        var nextID: UInt64 = 0
        var recordedSleeps: [Duration] = []
        var externalWork = 0
        var holdWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let epoch: Date
    private let autoAdvance: Bool
    private let holdsDuringExternalWork: Bool
    private let settleYields = 64

    /// Creates a clock.
    /// - Parameters:
    ///   - start: the calendar date the clock shows at creation (default 2023-11-14T22:13:20Z).
    ///   - autoAdvance: whether waiting sleepers move time forward by themselves.
    ///   - holdsDuringExternalWork: whether automatic advancing pauses while external work (real I/O) runs.
    public init(
        start: Date = Date(timeIntervalSince1970: 1_700_000_000),
        autoAdvance: Bool = false,
        holdsDuringExternalWork: Bool = false
    ) {
        self.epoch = start
        self.autoAdvance = autoAdvance
        self.holdsDuringExternalWork = holdsDuringExternalWork
    }

    /// One operation inside ``waitingOnExternalWork(_:)``: released once, when it ends or when it says it will never
    /// finish by itself (``externalWorkWillNeverFinish()``).
    private final class ExternalWork: Sendable {
        let clock: ManualClock
        let released = Mutex(false)
        init(clock: ManualClock) { self.clock = clock }

        func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            guard first else { return }
            clock.endExternalWork()
        }
    }

    @TaskLocal private static var currentExternalWork: ExternalWork?

    public func waitingOnExternalWork<Result: Sendable>(
        _ operation: @Sendable () async throws -> Result
    ) async throws -> Result {
        state.withLock { $0.externalWork += 1 }
        let work = ExternalWork(clock: self)
        defer { work.release() }
        return try await Self.$currentExternalWork.withValue(work) { try await operation() }
    }

    /// Says that the external work the current task runs inside ``waitingOnExternalWork(_:)`` will not finish until
    /// time moves (a stand-in that never answers, so that only a timeout can end the call): an auto-advancing clock
    /// that holds during external work may then advance again. ``ScriptedTransport``'s `.hang` calls it.
    public static func externalWorkWillNeverFinish() {
        currentExternalWork?.release()
    }

    private func endExternalWork() {
        let released: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.externalWork -= 1
            guard state.externalWork == 0 else { return [] }
            defer { state.holdWaiters = [] }
            return state.holdWaiters
        }
        released.forEach { $0.resume() }
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }
    public var currentDate: Date { epoch.addingTimeInterval(now.offset.timeInterval) }

    /// Every duration passed to `sleep` so far, in order.
    public var recordedSleeps: [Duration] { state.withLock { $0.recordedSleeps } }

    /// How many tasks are suspended in `sleep` right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64 = state.withLock { state in
            state.recordedSleeps.append(max(.zero, state.now.duration(to: deadline)))
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledBeforeRegistration.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else if autoAdvance {
                    Task { await self.autoAdvance(toward: id) }
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has been reached, earliest first.
    /// - Parameter duration: how far to move; negative values are ignored.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            if duration > .zero { state.now = state.now.advanced(by: duration) }
            return Self.takeDue(&state)
        }
        due.forEach { $0.continuation.resume() }
    }

    /// Auto-advance driver for one sleeper: once the scheduler has settled and the sleeper is still waiting
    /// and is the earliest, jump to its deadline.
    private func autoAdvance(toward id: UInt64) async {
        while true {
            for _ in 0..<settleYields { await Task.yield() }
            enum Step { case gone, wait, held, advance([Sleeper]) }
            let step: Step = state.withLock { state in
                // Gone: resumed by an advance, or cancelled.
                guard let mine = state.sleepers.first(where: { $0.id == id }) else { return .gone }
                if holdsDuringExternalWork && state.externalWork > 0 { return .held }
                guard state.sleepers.allSatisfy({ $0.deadline >= mine.deadline }) else { return .wait }
                if mine.deadline > state.now { state.now = mine.deadline }
                return .advance(Self.takeDue(&state))
            }
            switch step {
            case .gone: return
            case .wait: continue
            case .held:
                // Suspend (rather than spin) until the external work in progress has finished.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let stillHeld = state.withLock { state in
                        guard state.externalWork > 0 else { return false }
                        state.holdWaiters.append(continuation)
                        return true
                    }
                    if !stillHeld { continuation.resume() }
                }
            case .advance(let due):
                due.forEach { $0.continuation.resume() }
                return
            }
        }
    }

    /// Moves time forward to a calendar date (no effect if the date is not in the future).
    public func advance(toDate date: Date) {
        let seconds = date.timeIntervalSince(currentDate)
        guard seconds > 0 else { return }
        advance(by: .nanoseconds(Int64((seconds * 1_000_000_000).rounded(.up))))
    }

    /// Waits until at least `count` tasks are suspended in `sleep`, through ``waitFor(_:within:fileID:line:_:)``
    /// (the real clock bounds the wait; this clock's time does not move).
    /// - Returns: `false` if that did not happen within `ceiling`, or the waiting task was cancelled.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, within ceiling: Duration = .seconds(120)) async -> Bool {
        do {
            try await waitUntil("\(count) sleeper(s) on the manual clock", within: ceiling) { sleeperCount >= count }
            return true
        } catch {
            return false
        }
    }

    private static func takeDue(_ state: inout State) -> [Sleeper] {
        let now = state.now
        let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
        state.sleepers.removeAll { $0.deadline <= now }
        return due
    }

}

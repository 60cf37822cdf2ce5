import Synchronization

/// One attempt per key at a time in this process: a caller that finds an attempt running for its key awaits that
/// attempt and gets its result, instead of starting a second one.
///
/// This is the one in-flight claim of the device packages: ``DurableOutbox`` delivers each entry through it, and a
/// flow that must never run twice at once (a withdrawal that must not be signed twice) keys its runs with it.
/// The attempt runs in a task of its own, so a caller that is cancelled stops waiting without cancelling the
/// attempt others wait for.
public final class SharedAttempts: Sendable {
    /// The process-wide registry. Keys should name their store (a file path) as well as the work.
    public static let shared = SharedAttempts()

    private struct Running: Sendable {
        var token: UInt64
        var task: Task<any Sendable, Never>
        var callers: Int
    }

    private let state = Mutex<(next: UInt64, running: [String: Running])>((0, [:]))

    /// A registry of its own (tests; components that must not share attempts with others).
    public init() {}

    /// Runs `operation` for `key`, or joins the attempt already running for it.
    /// - Returns: the attempt's result, and whether this caller started it (`false`: it joined another's).
    public func run<Result: Sendable>(
        key: String,
        _ operation: @escaping @Sendable () async -> Result
    ) async -> (result: Result, started: Bool) {
        let (task, started): (Task<any Sendable, Never>, Bool) = state.withLock { state in
            if let running = state.running[key] {
                state.running[key]?.callers += 1
                return (running.task, false)
            }
            state.next += 1
            let token = state.next
            let task = Task<any Sendable, Never> {
                let result = await operation()
                self.finish(key, token: token)
                return result
            }
            state.running[key] = Running(token: token, task: task, callers: 1)
            return (task, true)
        }
        if let result = await task.value as? Result { return (result, started) }
        // Another kind of work under the same key: it does not share a result with this one; run alone.
        return (await operation(), true)
    }

    /// Whether an attempt is running for a key.
    public func isRunning(_ key: String) -> Bool { state.withLock { $0.running[key] != nil } }

    /// How many callers wait for the attempt running for a key, its starter included (0 when none runs).
    public func callers(of key: String) -> Int { state.withLock { $0.running[key]?.callers ?? 0 } }

    private func finish(_ key: String, token: UInt64) {
        state.withLock { state in
            if state.running[key]?.token == token { state.running[key] = nil }
        }
    }
}

import Foundation
import OpenCatCore
import Synchronization

/// Wakes the SDK at the next expiry so that `customerInfoUpdates` reports an entitlement ending at that moment,
/// on the injected clock. One timer at a time: arming replaces the previous one.
final class ExpiryScheduler: Sendable {
    private let clock: any WallClock
    private let timer = Mutex<Task<Void, Never>?>(nil)

    init(clock: any WallClock) { self.clock = clock }

    /// Arms the timer for a date (or only disarms it, for nil).
    func arm(at date: Date?, _ action: @escaping @Sendable () async -> Void) {
        let task = date.map { date in
            Task { [clock] in
                do { try await clock.sleep(untilDate: date) } catch { return }
                await action()
            }
        }
        timer.withLock { current in
            current?.cancel()
            current = task
        }
    }

    /// Stops the timer.
    func cancel() { arm(at: nil) {} }

    deinit { timer.withLock { $0?.cancel() } }
}

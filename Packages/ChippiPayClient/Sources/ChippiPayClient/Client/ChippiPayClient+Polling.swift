import Logging
import OpenCatCore

/// How a purchase is polled: the design's "every 2–10 seconds, at most 10 attempts".
public struct PollingPolicy: Sendable, Hashable {
    /// Attempts in all, the first one immediate.
    public var maxAttempts: Int
    /// The wait after the first attempt.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// How the wait grows after each attempt.
    public var multiplier: Int

    /// A policy.
    public init(
        maxAttempts: Int = 10,
        initialDelay: Duration = .seconds(2),
        maximumDelay: Duration = .seconds(10),
        multiplier: Int = 2
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
    }

    /// The design's policy: waits of 2, 4, 8, then 10 seconds; ten attempts.
    public static let `default` = PollingPolicy()

    /// Attempts in all, at least one (the fields are public and may be set to anything).
    var attempts: Int { max(1, maxAttempts) }

    /// The wait after attempt `attempt` (1-based), never negative, never above ``maximumDelay``, never overflowing.
    public func delay(after attempt: Int) -> Duration {
        let ceiling = max(.zero, maximumDelay)
        var delay = min(max(.zero, initialDelay), ceiling)
        let factor = max(1, multiplier)
        for _ in 1..<max(1, min(attempt, 64)) {
            // Stop before multiplying past the ceiling (Duration's multiplication traps on overflow).
            guard delay <= ceiling / factor else { return ceiling }
            delay = delay * factor
        }
        return min(delay, ceiling)
    }
}

extension ChippiPayClient {
    /// Polls `GET /sku-purchases/{id}` until the status is terminal (`SUCCESS`, `FAILED`, …) and returns the
    /// purchase; waits on the injected clock, stops when the task is cancelled, and after the last attempt throws
    /// ``ChippiPayError/Code/stillPending`` with the number of attempts. A transient failure (network, 5xx, 429
    /// after its own back-off) uses up an attempt; any other failure ends polling at once.
    public func pollPurchaseStatus(id: String, policy: PollingPolicy = .default) async throws(ChippiPayError)
        -> SkuPurchase
    {
        var last: SkuPurchase?
        for attempt in 1...policy.attempts {
            if attempt > 1 {
                do {
                    try await http.clock.sleep(for: policy.delay(after: attempt - 1))
                } catch {
                    throw ChippiPayError(.cancelled, "polling was cancelled", attempts: attempt - 1)
                }
            }
            if Task.isCancelled { throw ChippiPayError(.cancelled, "polling was cancelled", attempts: attempt - 1) }
            do {
                let purchase = try await skuPurchase(id: id)
                configuration.logger.debug(
                    "chippipay poll",
                    metadata: ["attempt": "\(attempt)", "status": "\(purchase.status)"]
                )
                if purchase.status.isTerminal { return purchase }
                last = purchase
            } catch  where error.isRetryable && attempt < policy.attempts {
                continue
            }
        }
        throw ChippiPayError(
            .stillPending,
            "purchase still \(last?.status.rawValue ?? "unconfirmed") after \(policy.attempts) attempts",
            attempts: policy.attempts
        )
    }
}

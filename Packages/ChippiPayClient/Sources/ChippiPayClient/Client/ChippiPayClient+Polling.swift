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

    /// The wait after attempt `attempt` (1-based).
    public func delay(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) {
            delay = delay * multiplier
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
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
        for attempt in 1...policy.maxAttempts {
            if attempt > 1 {
                do {
                    try await http.clock.sleep(for: policy.delay(after: attempt - 1))
                } catch {
                    throw ChippiPayError(.network, "polling was cancelled", attempts: attempt - 1)
                }
            }
            if Task.isCancelled { throw ChippiPayError(.network, "polling was cancelled", attempts: attempt - 1) }
            do {
                let purchase = try await skuPurchase(id: id)
                configuration.logger.debug(
                    "chippipay poll",
                    metadata: ["attempt": "\(attempt)", "status": "\(purchase.status)"]
                )
                if purchase.status.isTerminal { return purchase }
                last = purchase
            } catch  where error.isRetryable && attempt < policy.maxAttempts {
                continue
            }
        }
        throw ChippiPayError(
            .stillPending,
            "purchase still \(last?.status.rawValue ?? "unconfirmed") after \(policy.maxAttempts) attempts",
            attempts: policy.maxAttempts
        )
    }
}

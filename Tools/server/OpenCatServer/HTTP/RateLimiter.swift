import Foundation

/// A token bucket per key: `limit.requests` calls, refilled evenly over `limit.seconds`. In memory, per instance
/// (several instances each allow the limit).
actor RateLimiter {
    let limit: RateLimit
    let clock: @Sendable () -> Date
    private var buckets: [String: (tokens: Double, updated: Date)] = [:]

    init(limit: RateLimit, clock: @escaping @Sendable () -> Date) {
        self.limit = RateLimit(requests: max(limit.requests, 1), seconds: max(limit.seconds, 1))
        self.clock = clock
    }

    /// Takes one call for `key`: nil when allowed, else the whole seconds until the next call is.
    func take(_ key: String) -> Int? {
        let now = clock()
        let rate = Double(limit.requests) / Double(limit.seconds)
        var bucket = buckets[key] ?? (Double(limit.requests), now)
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(Double(limit.requests), bucket.tokens + elapsed * rate)
        bucket.updated = now
        defer {
            buckets[key] = bucket
            if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens < Double(limit.requests) } }
        }
        guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
        bucket.tokens -= 1
        return nil
    }
}

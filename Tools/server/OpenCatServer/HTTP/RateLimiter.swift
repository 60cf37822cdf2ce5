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

    /// Takes one call for `key` under the limiter's limit, or `limit` for this key: nil when allowed, else the whole
    /// seconds until the next call is. Each key keeps the limit it is taken with.
    func take(_ key: String, limit: RateLimit? = nil) -> Int? {
        let limit = limit.map { RateLimit(requests: max($0.requests, 1), seconds: max($0.seconds, 1)) } ?? self.limit
        let now = clock()
        let rate = Double(limit.requests) / Double(limit.seconds)
        var bucket = buckets[key] ?? (Double(limit.requests), now)
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(Double(limit.requests), bucket.tokens + elapsed * rate)
        bucket.updated = now
        defer {
            buckets[key] = bucket
            // Full buckets are forgotten first (a key at its limit's start is the same as a new one).
            if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens < Double(limit.requests) } }
        }
        guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
        bucket.tokens -= 1
        return nil
    }
}

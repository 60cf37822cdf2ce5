import Foundation
import HTTPTypes
import Hummingbird

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

/// The server's rate limits, shared by the controllers that call stores or send mail: one bucket store per instance,
/// the configured limits, and the client's address as a trusted proxy reports it.
struct RateLimits: Sendable {
    let store: RateLimiter
    let sync: RateLimiter
    /// Store-backed calls per user or app user (`storeRateLimit`).
    let storeLimit: RateLimit
    /// Receipts per client address with the public app key (`clientRateLimit`).
    let clientLimit: RateLimit
    /// Receipts per API key (`apiKeyRateLimit`).
    let apiKeyLimit: RateLimit
    /// The header a trusted proxy puts the client's address in (`clientAddressHeader`).
    let clientAddressHeader: String?

    init(settings: ServerSettings, clock: @escaping @Sendable () -> Date) {
        store = RateLimiter(limit: settings.storeRateLimit, clock: clock)
        sync = RateLimiter(limit: settings.syncRateLimit, clock: clock)
        storeLimit = settings.storeRateLimit
        clientLimit = settings.clientRateLimit
        apiKeyLimit = settings.apiKeyRateLimit
        clientAddressHeader = settings.clientAddressHeader
    }

    /// 429 with `Retry-After` when `key` (a user, an app user, an API key) called a store-backed endpoint too often.
    func limitStoreCalls(_ keys: String...) async throws {
        try await limit(keys.map { ($0, storeLimit) })
    }

    /// Takes one call from each bucket, in order: a 429 with `Retry-After` at the first that is empty.
    func limit(_ buckets: [(key: String, limit: RateLimit)]) async throws {
        if let wait = await wait(buckets) {
            throw APIError.retry(.tooManyRequests, "rate_limited", "too many requests; retry later", after: wait)
        }
    }

    /// Takes one call from each bucket, in order, up to the first that is empty: nil when every bucket allowed it,
    /// else the seconds until that one does.
    func wait(_ buckets: [(key: String, limit: RateLimit)]) async -> Int? {
        for bucket in buckets {
            if let wait = await store.take(bucket.key, limit: bucket.limit) { return wait }
        }
        return nil
    }

    /// 429 when a user synced keys too often (`syncRateLimit`).
    func limitSync(_ user: ServerUser) async throws {
        if let wait = await sync.take(user.userId) {
            throw APIError.retry(.tooManyRequests, "rate_limited", "too many key syncs; retry later", after: wait)
        }
    }

    /// The client's address: the first address of `clientAddressHeader` when a trusted proxy sets one, else the
    /// connection's peer (`unknown` when neither says).
    func clientAddress(_ request: Request, _ context: ServerRequestContext) -> String {
        if let header = clientAddressHeader, let name = HTTPField.Name(header),
            let first = request.headers[name]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces),
            !first.isEmpty
        {
            return String(first.prefix(64))
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }
}

public import Foundation
public import HTTPTypes

/// When and how long to wait before trying a request again.
///
/// Exponential back-off with full jitter (a random wait between zero and
/// `min(maximumDelay, baseDelay × 2^(attempt-1))`), up to ``maxAttempts`` attempts in all. Retried: 429, every
/// 5xx, and transport errors (timeouts, lost connections). Never retried: any other 4xx. A `Retry-After` header
/// (delta-seconds or HTTP-date) replaces the back-off; one that asks for more than ``retryAfterCap`` ends the
/// retries and hands the response to the caller, who can surface it as "rate limited, retry after N".
///
/// Requests that are not idempotent (a `POST` without an idempotency key) are retried only on 429, which
/// promises the request was not processed.
public struct RetryPolicy: Sendable {
    /// Produces the actual wait from the back-off ceiling.
    public struct Jitter: Sendable {
        let apply: @Sendable (Duration) -> Duration

        /// Creates a jitter from a function of the ceiling.
        public init(_ apply: @escaping @Sendable (Duration) -> Duration) { self.apply = apply }

        /// Full jitter: uniformly random in `0...ceiling` (the AWS architecture blog's recommendation).
        public static let full = Jitter { ceiling in
            let nanos = max(
                0,
                ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
            )
            return .nanoseconds(Int64.random(in: 0...nanos))
        }

        /// No jitter: always the ceiling. Deterministic; for tests and for callers who want plain exponential back-off.
        public static let none = Jitter { $0 }
    }

    /// Attempts in all, the first one included. `1` disables retries.
    public var maxAttempts: Int
    /// The back-off ceiling of the first retry; doubled for each later one.
    public var baseDelay: Duration
    /// The largest back-off ceiling.
    public var maximumDelay: Duration
    /// The longest `Retry-After` that is honoured by waiting; a longer one stops the retries.
    public var retryAfterCap: Duration
    /// How the wait is drawn from the ceiling.
    public var jitter: Jitter
    /// A response header whose `true`/`false` value overrides the status-based decision (for example Stripe's
    /// `Stripe-Should-Retry`). `nil`: none.
    public var overrideHeader: HTTPField.Name?

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(8),
        retryAfterCap: Duration = .seconds(60),
        jitter: Jitter = .full,
        overrideHeader: HTTPField.Name? = nil
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.retryAfterCap = retryAfterCap
        self.jitter = jitter
        self.overrideHeader = overrideHeader
    }

    /// The default policy: 3 attempts, 0.5 s base, 8 s ceiling, `Retry-After` honoured up to 60 s, full jitter.
    public static let `default` = RetryPolicy()

    /// One attempt, no retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// What to do after an attempt.
    public enum Decision: Sendable, Equatable {
        /// Wait this long, then try again.
        case retry(after: Duration)
        /// Stop and hand the outcome to the caller.
        case stop
    }

    /// Decides what follows a response.
    /// - Parameters:
    ///   - response: the response received.
    ///   - attempt: the number of the attempt that produced it (1 for the first).
    ///   - idempotent: whether the request may be repeated safely.
    ///   - now: the current date, to read an HTTP-date `Retry-After`.
    public func decision(after response: HTTPResponse, attempt: Int, idempotent: Bool, now: Date) -> Decision {
        guard attempt < maxAttempts else { return .stop }
        let status = response.status.code
        var retryable = status == 429 || (idempotent && (500...599).contains(status))
        if let name = overrideHeader, let value = response.headerFields[name]?.lowercased() {
            if value == "false" {
                retryable = false
            } else if value == "true" {
                retryable = idempotent || status == 429
            }
        }
        guard retryable else { return .stop }
        if let retryAfter = Self.retryAfter(in: response.headerFields, now: now) {
            return retryAfter > retryAfterCap ? .stop : .retry(after: retryAfter)
        }
        return .retry(after: backoff(afterAttempt: attempt))
    }

    /// Decides what follows a transport error (no response).
    public func decision(after error: HTTPTransportError, attempt: Int, idempotent: Bool) -> Decision {
        guard attempt < maxAttempts, idempotent else { return .stop }
        switch error.code {
        case .timeout, .connectionFailed: return .retry(after: backoff(afterAttempt: attempt))
        default: return .stop
        }
    }

    /// The jittered back-off after a failed attempt.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        var ceiling = baseDelay
        for _ in 1..<max(1, attempt) where ceiling < maximumDelay { ceiling *= 2 }
        return jitter.apply(min(ceiling, maximumDelay))
    }

    /// Reads `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    /// - Returns: the wait it asks for (zero for a date in the past), or `nil` if absent or unreadable.
    public static func retryAfter(in fields: HTTPFields, now: Date) -> Duration? {
        guard let raw = fields[.retryAfter]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if let seconds = Int64(raw) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = HTTPDate.parse(raw) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}

/// HTTP-date parsing (IMF-fixdate, plus the obsolete RFC 850 and asctime forms RFC 9110 asks recipients to accept).
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]

    static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

}

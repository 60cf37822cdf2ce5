import Foundation
import HTTPTypes
import OpenCatCore

/// An OAuth 2.0 access token kept until shortly before it expires, refreshed by one shared fetch, and replaced once
/// when the API refuses it: the token plumbing of every store that calls its API with a bearer token (Google's
/// service-account grant, PayPal's client-credentials grant).
///
/// Times are read from the injected clock. Callers that arrive while a refresh runs wait for it instead of starting
/// another. ``invalidate(_:)`` drops only the token that was refused, so a newer one fetched meanwhile stays.
actor AccessTokenCache {
    /// A token as the token endpoint issued it.
    struct Issued: Sendable {
        /// The bearer token.
        var token: Secret<String>
        /// Its `expires_in`, in seconds.
        var lifetimeSeconds: Int64
        /// When it was asked for, on the cache's clock.
        var requestedAt: Date
    }

    private struct Cached: Sendable {
        var token: Secret<String>
        var refreshAfter: Date
    }

    private let clock: any WallClock
    private let marginSeconds: Int64
    private let fetch: @Sendable () async throws -> Issued
    private var cached: Cached?
    private var refresh: (id: UInt64, task: Task<Cached, any Error>)?
    private var nextRefreshID: UInt64 = 0
    /// Callers currently waiting for a refresh (tests check that a refresh is shared).
    private(set) var refreshWaiterCount = 0

    /// Creates a cache.
    /// - Parameters:
    ///   - clock: decides when a token is stale.
    ///   - refreshMargin: how long before its expiry a token is replaced (half its lifetime when that is shorter).
    ///   - fetch: asks the token endpoint for a new token.
    init(clock: any WallClock, refreshMargin: Duration, fetch: @escaping @Sendable () async throws -> Issued) {
        self.clock = clock
        self.marginSeconds = max(0, refreshMargin.components.seconds)
        self.fetch = fetch
    }

    /// A valid token: the cached one, or a fresh one (one fetch at a time).
    func token() async throws -> Secret<String> {
        if let cached, clock.currentDate < cached.refreshAfter { return cached.token }
        let current: (id: UInt64, task: Task<Cached, any Error>)
        if let refresh {
            current = refresh
        } else {
            let id = nextRefreshID
            nextRefreshID += 1
            let fetch = self.fetch
            let margin = marginSeconds
            current = (id, Task { Self.cached(try await fetch(), marginSeconds: margin) })
            refresh = current
        }
        refreshWaiterCount += 1
        defer { refreshWaiterCount -= 1 }
        do {
            let token = try await current.task.value
            if refresh?.id == current.id {
                refresh = nil
                cached = token
            }
            return token.token
        } catch {
            if refresh?.id == current.id { refresh = nil }
            throw error
        }
    }

    /// Forgets a token the API refused, unless a newer one has replaced it already.
    func invalidate(_ token: Secret<String>) {
        if cached?.token == token { cached = nil }
    }

    /// Sends a request with a token; when the API answers 401, drops that token and sends once more with a fresh
    /// one. The second answer is returned whatever it is.
    /// - Parameters:
    ///   - onRefused: called before the retry (to log it).
    ///   - send: sends the request with the given bearer token.
    nonisolated func sendAuthorized(
        onRefused: @Sendable () -> Void = {},
        _ send: @Sendable (Secret<String>) async throws -> HTTPTransportResponse
    ) async throws -> HTTPTransportResponse {
        let token = try await token()
        let response = try await send(token)
        guard response.status.code == 401 else { return response }
        onRefused()
        await invalidate(token)
        return try await send(try await self.token())
    }

    /// When an issued token is replaced: its lifetime less the margin, or half its lifetime when that is shorter.
    private static func cached(_ issued: Issued, marginSeconds: Int64) -> Cached {
        let lifetime = max(0, issued.lifetimeSeconds)
        let usable = lifetime > marginSeconds * 2 ? lifetime - marginSeconds : lifetime / 2
        return Cached(token: issued.token, refreshAfter: issued.requestedAt.addingTimeInterval(TimeInterval(usable)))
    }
}

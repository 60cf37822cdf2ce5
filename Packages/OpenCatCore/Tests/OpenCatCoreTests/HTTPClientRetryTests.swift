import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Synchronization
import Testing

struct HTTPClientRetryTests {
    static let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/thing")

    func client(_ transport: ScriptedTransport, clock: ManualClock, policy: RetryPolicy = RetryPolicy(jitter: .none))
        -> HTTPClient
    {
        HTTPClient(transport: transport, retryPolicy: policy, clock: clock, timeout: .seconds(5))
    }

    @Test func a429WithRetryAfterSecondsWaitsExactlyThatLong() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.status(429, ["Retry-After": "7"]), .status(200)])
        let response = try await client(transport, clock: clock).send(Self.request)
        #expect(response.status.code == 200)
        #expect(transport.requests.count == 2)
        #expect(clock.recordedSleeps.filter { $0 != .seconds(5) } == [.seconds(7)])
    }

    @Test func a429WithAnHTTPDateRetryAfterWaitsUntilThatDate() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_700_000_000), autoAdvance: true)
        // 1_700_000_012 = Tue, 14 Nov 2023 22:13:32 GMT: 12 seconds after the clock's start.
        let transport = ScriptedTransport(answering: [
            .status(429, ["Retry-After": "Tue, 14 Nov 2023 22:13:32 GMT"]), .status(200),
        ])
        _ = try await client(transport, clock: clock).send(Self.request)
        #expect(transport.requests.count == 2)
        #expect(clock.recordedSleeps.contains(.seconds(12)))
    }

    @Test func a503IsRetriedWithExponentialBackoff() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.status(503), .status(503), .status(200)])
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(500), jitter: .none)
        let response = try await client(transport, clock: clock, policy: policy).send(Self.request)
        #expect(response.status.code == 200)
        #expect(transport.requests.count == 3)
        let backoffs = clock.recordedSleeps.filter { $0 != .seconds(5) }
        #expect(backoffs == [.milliseconds(500), .seconds(1)])
    }

    @Test func fullJitterStaysWithinTheCeiling() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(4), jitter: .full)
        for attempt in 1...6 {
            let ceiling: Duration = min(.seconds(1) * (1 << (attempt - 1)), .seconds(4))
            let wait = policy.backoff(afterAttempt: attempt)
            #expect(wait >= .zero && wait <= ceiling)
        }
    }

    @Test func aTimeoutIsRetriedAndThenReported() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.hang, .hang])
        let policy = RetryPolicy(maxAttempts: 2, jitter: .none)
        let error = await #expect(throws: HTTPTransportError.self) {
            try await client(transport, clock: clock, policy: policy).send(Self.request)
        }
        #expect(error?.code == .timeout)
        #expect(transport.requests.count == 2)
    }

    @Test func aTimeoutThenSuccessSucceeds() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.hang, .status(200)])
        let response = try await client(transport, clock: clock).send(Self.request)
        #expect(response.status.code == 200)
        #expect(transport.requests.count == 2)
    }

    @Test func a400IsNeverRetried() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.status(400), .status(200)])
        let response = try await client(transport, clock: clock).send(Self.request)
        #expect(response.status.code == 400)
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [401, 403, 404, 409, 422])
    func otherClientErrorsAreNeverRetried(status: Int) async throws {
        let transport = ScriptedTransport(answering: [.status(status)])
        let response = try await client(transport, clock: ManualClock(autoAdvance: true)).send(Self.request)
        #expect(response.status.code == status)
        #expect(transport.requests.count == 1)
    }

    @Test func aRetryAfterAboveTheCapStopsRetryingAndReturnsThe429() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: [.status(429, ["Retry-After": "3600"]), .status(200)])
        let policy = RetryPolicy(retryAfterCap: .seconds(60), jitter: .none)
        let response = try await client(transport, clock: clock, policy: policy).send(Self.request)
        #expect(response.status.code == 429)
        #expect(transport.requests.count == 1)
        #expect(clock.recordedSleeps.allSatisfy { $0 == .seconds(5) })  // only the attempt's timeout timer
    }

    @Test func theAttemptLimitIsRespected() async throws {
        let clock = ManualClock(autoAdvance: true)
        let transport = ScriptedTransport(answering: Array(repeating: .status(502), count: 10))
        let policy = RetryPolicy(maxAttempts: 4, jitter: .none)
        let response = try await client(transport, clock: clock, policy: policy).send(Self.request)
        #expect(response.status.code == 502)
        #expect(transport.requests.count == 4)
    }

    @Test func aPostWithoutIdempotencyKeyIsNotRetriedOn503ButIsOn429() async throws {
        let post = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/v1/charge")
        let failing = ScriptedTransport(answering: [.status(503), .status(200)])
        #expect(try await client(failing, clock: ManualClock(autoAdvance: true)).send(post).status.code == 503)
        let limited = ScriptedTransport(answering: [.status(429, ["Retry-After": "1"]), .status(200)])
        #expect(try await client(limited, clock: ManualClock(autoAdvance: true)).send(post).status.code == 200)
        var keyed = post
        keyed.headerFields[HTTPField.Name("Idempotency-Key")!] = "abc"
        let retried = ScriptedTransport(answering: [.status(503), .status(200)])
        #expect(try await client(retried, clock: ManualClock(autoAdvance: true)).send(keyed).status.code == 200)
    }

    @Test func aConnectionFailureIsRetried() async throws {
        let transport = ScriptedTransport(answering: [.transportError(.connectionFailed), .status(200)])
        #expect(
            try await client(transport, clock: ManualClock(autoAdvance: true)).send(Self.request).status.code == 200
        )
        #expect(transport.requests.count == 2)
    }

    @Test func anOverrideHeaderCanForbidARetry() async throws {
        let transport = ScriptedTransport(answering: [.status(500, ["Stripe-Should-Retry": "false"]), .status(200)])
        let policy = RetryPolicy(jitter: .none, overrideHeader: HTTPField.Name("Stripe-Should-Retry"))
        #expect(
            try await client(transport, clock: ManualClock(autoAdvance: true), policy: policy).send(Self.request).status
                .code == 500
        )
        #expect(transport.requests.count == 1)
    }

    @Test func retryAfterParsingAcceptsSecondsAndDatesAndRejectsGarbage() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var fields = HTTPFields()
        fields[.retryAfter] = "120"
        #expect(RetryPolicy.retryAfter(in: fields, now: now) == .seconds(120))
        fields[.retryAfter] = "Tue, 14 Nov 2023 22:13:10 GMT"  // in the past
        #expect(RetryPolicy.retryAfter(in: fields, now: now) == .zero)
        fields[.retryAfter] = "soon"
        #expect(RetryPolicy.retryAfter(in: fields, now: now) == nil)
        fields[.retryAfter] = "-5"
        #expect(RetryPolicy.retryAfter(in: fields, now: now) == nil)
    }
}

import Foundation
import MockStores
import MockStoresServer
import OpenCatCore
import StoreAdapters
import Testing

/// Cancel, reactivate, cancel again within a day, replayed from the committed cancel cassette: each cancellation is
/// its own request with its own `Idempotency-Key` (the caller's request id), so the second reaches Stripe as a new
/// call and cancels again instead of Stripe replaying the first answer. The mock answers a POST only when its key is
/// the one the cassette names, so a repeated key would find no answer.
struct StripeCancelAgainTests {
    static let secretKey = "sk_test_cancelAgain0123456789"
    static let subscription = "sub_OpenCatActive01"

    @Test func cancellingAgainAfterAReactivationSendsAnotherKeyAndCancelsAgain() async throws {
        let file = ConformanceSuiteTests.fixtures.appendingPathComponent("operations/stripe/cancel-success.json")
        let recorded = try Cassette.decode(
            try Data(contentsOf: file),
            file: "cancel-success.json",
            variables: ["stripe.secretKey": Self.secretKey]
        )
        let post = try #require(recorded.interactions.first { $0.request.method == "POST" })
        let read = try #require(recorded.interactions.first { $0.request.method == "GET" })
        var interactions: [Cassette.Interaction] = []
        for requestId in ["req-cancel-1", "req-cancel-2"] {
            var cancel = post
            cancel.request.headers?["Idempotency-Key"] = "opencat-cancel-\(Self.subscription)-true-\(requestId)"
            interactions += [cancel, read]
        }
        let cassette = Cassette(
            store: .stripe,
            scenario: "cancel-again",
            input: recorded.input,
            interactions: interactions,
            expect: recorded.expect
        )
        let credentials = MockCredentials(stripeSecretKey: Secret(Self.secretKey))
        try await MockStoreServer.withRunningServer(cassettes: [cassette], credentials: credentials) { server in
            let stripe = StripeAdapter(
                configuration: .init(
                    secretKey: Secret(Self.secretKey),
                    apiVersion: "2024-06-20",
                    baseURL: server.baseURL,
                    // The mock answers from this busy (maybe one-core) test process: 30 s can pass before it does.
                    httpClient: HTTPClient(retryPolicy: .never, timeout: .seconds(600))
                )
            )
            let first = try await stripe.cancelSubscription(
                id: Self.subscription,
                atPeriodEnd: true,
                requestId: "req-cancel-1"
            )
            #expect(!first.willRenew)
            // The subscriber reactivates on Stripe's side; the app cancels again the same day.
            let again = try await stripe.cancelSubscription(
                id: Self.subscription,
                atPeriodEnd: true,
                requestId: "req-cancel-2"
            )
            #expect(!again.willRenew)
            let keys = server.receivedRequests.compactMap { $0.header("Idempotency-Key") }
            #expect(keys.count == 2 && Set(keys).count == 2, "\(keys)")
            try server.verify()
        }
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct GooglePlayErrorTests {
    typealias Support = GoogleTestSupport

    @Test(
        arguments: [
            (400, "purchaseTokenDoesNotMatchProductId", nil, StoreAdapterError.Code.productMismatch),
            (410, "purchaseTokenNoLongerValid", nil, .notFound),
            (404, "purchaseTokenNotFound", nil, .notFound),
            (404, "notFound", "NOT_FOUND", .notFound),
            (404, "applicationNotFound", nil, .wrongApplication),
            (400, "invalid", "INVALID_ARGUMENT", .invalidProof),
            (401, "permissionDenied", nil, .unauthorized),
            (403, "projectNotLinked", "PERMISSION_DENIED", .unauthorized),
            (429, "rateLimitExceeded", "RESOURCE_EXHAUSTED", .rateLimited),
            (500, "backendError", "INTERNAL", .storeUnavailable),
            (503, nil, "UNAVAILABLE", .storeUnavailable),
            (410, nil, nil, .notFound),
        ] as [(Int, String?, String?, StoreAdapterError.Code)]
    )
    func googleErrorEnvelopesMapToSharedCodes(
        status: Int,
        reason: String?,
        statusName: String?,
        expected: StoreAdapterError.Code
    ) async throws {
        let logs = LogCapture()
        let harness = try Support.harness(logs: logs)
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            status: status,
            headers: status == 429 ? ["Retry-After": "30"] : [:],
            json: Support.errorEnvelope(
                code: status,
                reason: reason,
                status: statusName,
                message: "token \(Support.purchaseToken) rejected"
            )
        )

        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == expected)
        #expect(error?.storeReason == reason ?? statusName)
        #expect(error?.httpStatus == status)
        if status == 429 { #expect(error?.retryAfter == .seconds(30)) }
        let description = error.map { "\($0) \($0.message)" } ?? ""
        #expect(!description.contains(Support.purchaseToken))
        #expect(!description.contains(Support.accessToken))
        #expect(!logs.contains(Support.purchaseToken))
    }

    @Test func aTransportFailureIsANetworkError() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.productPath("coins_100"), reply: .transportError(.connectionFailed))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .network)
    }

    @Test func fiveHundredsAreRetriedBeforeTheStoreIsDeclaredUnavailable() async throws {
        let harness = try Support.harness(maxAttempts: 3)
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            status: 503,
            json: Support.errorEnvelope(code: 503, reason: "backendError")
        )
        let adapter = harness.adapter
        let outcome = Task { try await adapter.verify(Support.productProof()) }
        // Release each back-off (0.5 s, then 1 s) once it is requested; attempt timeouts (10 s) never fire.
        for (index, backoff) in [Duration.milliseconds(500), .seconds(1)].enumerated() {
            try await waitUntil("back-off \(index + 1) requested") {
                harness.clock.recordedSleeps.filter({ $0 < .seconds(10) }).count > index
            }
            harness.clock.advance(by: backoff)
        }
        let error = await #expect(throws: StoreAdapterError.self) { try await outcome.value }
        #expect(error?.code == .storeUnavailable)
        #expect(error?.storeReason == "backendError")
        #expect(harness.transport.requests(matching: "/purchases/products/").count == 3)
        #expect(harness.clock.recordedSleeps.filter { $0 < .seconds(10) } == [.milliseconds(500), .seconds(1)])
    }

    @Test func noSecretReachesALogLineOrAnErrorDescription() async throws {
        let logs = LogCapture()
        let harness = try Support.harness(logs: logs)
        harness.transport.on(
            .post,
            Support.tokenPath,
            times: 1,
            status: 400,
            json: #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
        )
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            times: 1,
            json: Support.productPurchase(acknowledgement: 0)
        )
        harness.transport.on(.post, Support.productPath("coins_100") + ":acknowledge", json: "")
        harness.transport.on(
            .get,
            Support.subscriptionPath(),
            times: 1,
            status: 410,
            json: Support.errorEnvelope(code: 410, reason: "purchaseTokenNoLongerValid")
        )
        harness.transport.on(
            .get,
            Support.subscriptionPath(),
            json: Support.subscription(acknowledgement: "ACKNOWLEDGEMENT_STATE_PENDING")
        )
        harness.transport.on(.post, Support.subscriptionAcknowledgePath("premium_monthly"), json: "")

        var texts: [String] = []
        for proof in [
            Support.productProof(), Support.productProof(), Support.subscriptionProof(), Support.subscriptionProof(),
        ] {
            do {
                let purchase = try await harness.adapter.verify(proof)
                texts.append("\(purchase)")
            } catch {
                texts.append("\(error)")
                texts.append(String(reflecting: error))
                texts.append((error as? StoreAdapterError)?.message ?? "")
            }
        }
        texts.append("\(Support.productProof())")
        texts.append("\(harness.adapter.configuration.tokenProvider.serviceAccount)")

        #expect(texts.contains { $0.contains("invalid_grant") })
        #expect(logs.all.contains { $0.contains("google play purchase verified") })
        #expect(logs.all.contains { $0.contains("google access token fetched") })
        let secrets = [Support.purchaseToken, Support.accessToken, Support.privateKeyFragment, "PRIVATE KEY"]
        for secret in secrets {
            #expect(!texts.contains { $0.contains(secret) }, "an error or result shows a secret")
            #expect(!logs.contains(secret), "a log line shows a secret")
        }
        #expect(!logs.contains("/purchases/"), "a log line shows a request path")
    }
}

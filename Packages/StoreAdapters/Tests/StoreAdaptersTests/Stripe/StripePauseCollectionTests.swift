import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// A subscription whose payment collection OpenCat paused (`suspend`) is resumed by clearing `pause_collection`:
/// Stripe's Resume a subscription only takes a subscription whose status is `paused`.
struct StripePauseCollectionTests {
    private typealias Fixtures = StripeTestFixtures
    static let subscriptionId = "sub_OpenCatPausedColl02"
    static let path = "/stripe/v1/subscriptions/\(subscriptionId)"

    static func subscription(paused: Bool) -> String {
        """
        {"id":"\(subscriptionId)","object":"subscription","status":"active","livemode":true,"created":1700000000,
         "start_date":1700000000,"current_period_start":1700000000,"current_period_end":1702592000,
         "cancel_at_period_end":false,"pause_collection":\(paused ? #"{"behavior":"void","resumes_at":null}"# : "null"),
         "metadata":{"product_id":"pro","app_user_id":"u1"},
         "items":{"data":[{"id":"si_1","quantity":1,"price":{"id":"price_1","currency":"usd","unit_amount":999}}]},
         "latest_invoice":{"id":"in_1","status":"paid"}}
        """
    }

    @Test func resumingACollectionPausedSubscriptionClearsPauseCollection() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .post,
            Self.path + "/resume",
            exact: true,
            status: 400,
            json: #"{"error":{"type":"invalid_request_error","message":"Only a paused subscription can be resumed."}}"#
        )
        transport.on(.get, Self.path, exact: true, times: 1, json: Self.subscription(paused: true))
        transport.on(.post, Self.path, exact: true, times: 1, json: Self.subscription(paused: false))
        transport.on(.get, Self.path, exact: true, times: 1, json: Self.subscription(paused: false))
        let resumed = try await Fixtures.adapter(transport).resumeSubscription(id: Self.subscriptionId, reason: "")
        #expect(resumed.state == .active && resumed.willRenew && resumed.storeStatus == "active")
        let update = try #require(transport.requests.first { $0.request.method == .post && $0.path == Self.path })
        #expect(update.bodyText == "pause_collection=")
        #expect(update.request.headerFields[HTTPField.Name("Idempotency-Key")!]?.hasPrefix("opencat-resume-") == true)
    }

    @Test func pausingACancelledSubscriptionIsRefusedWithItsStatus() async throws {
        let transport = ScriptedTransport()
        let cancelled = Self.subscription(paused: false).replacingOccurrences(of: #""active""#, with: #""canceled""#)
        transport.on(.get, Self.path, exact: true, json: cancelled)
        let error = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).suspendSubscription(id: Self.subscriptionId, reason: "")
        }
        #expect(error.code == .invalidProof && error.storeReason == "canceled")
        #expect(transport.requests.allSatisfy { $0.request.method == .get })
    }
}

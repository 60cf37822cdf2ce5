import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct GooglePlaySubscriptionTests {
    typealias Support = GoogleTestSupport

    /// The harness clock starts at 2023-11-14T22:13:20Z; these expiries lie either side of it.
    static let future = "2023-12-14T22:13:20.123456789Z"
    static let past = "2023-11-01T00:00:00Z"

    private func verify(_ body: String, proof: PurchaseProof = Support.subscriptionProof()) async throws -> (
        VerifiedPurchase, GoogleTestSupport.Harness
    ) {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.subscriptionPath(), json: body)
        harness.transport.on(.post, Support.subscriptionAcknowledgePath("premium_monthly"), json: "")
        return (try await harness.adapter.verify(proof), harness)
    }

    @Test(arguments: [
        ("SUBSCRIPTION_STATE_ACTIVE", future, VerifiedPurchase.State.active, true),
        ("SUBSCRIPTION_STATE_IN_GRACE_PERIOD", future, .gracePeriod, true),
        ("SUBSCRIPTION_STATE_ON_HOLD", past, .billingRetry, true),
        ("SUBSCRIPTION_STATE_PAUSED", past, .expired, false),
        ("SUBSCRIPTION_STATE_CANCELED", future, .active, false),
        ("SUBSCRIPTION_STATE_CANCELED", past, .expired, false),
        ("SUBSCRIPTION_STATE_EXPIRED", past, .expired, false),
        ("SUBSCRIPTION_STATE_PENDING", future, .pending, false),
    ])
    func everySubscriptionStateMapsToItsNormalizedState(
        rawState: String,
        expiry: String,
        expected: VerifiedPurchase.State,
        willRenew: Bool
    ) async throws {
        let (purchase, _) = try await verify(Support.subscription(state: rawState, expiry: expiry))
        #expect(purchase.state == expected)
        #expect(purchase.willRenew == willRenew)
        #expect(purchase.storeStatus == rawState)
        #expect(purchase.expirationDate == RFC3339Timestamp.date(from: expiry))
    }

    @Test func aPendingPurchaseThatWasCanceledIsNotPaid() async throws {
        let error = await #expect(throws: StoreAdapterError.self) {
            try await verify(
                Support.subscription(state: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", startTime: nil)
            )
        }
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED")
    }

    @Test(arguments: ["SUBSCRIPTION_STATE_UNSPECIFIED", "SUBSCRIPTION_STATE_SOMETHING_NEW"])
    func anUnspecifiedOrUnknownStateIsAMalformedResponse(rawState: String) async throws {
        let error = await #expect(throws: StoreAdapterError.self) {
            try await verify(Support.subscription(state: rawState))
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.storeReason == rawState)
    }

    @Test func anActiveSubscriptionCarriesItsOrderPurchaserPriceAndDates() async throws {
        let (purchase, _) = try await verify(
            Support.subscription(lineItemOrderId: "GPA.3349-4454-9294-38157..4", price: ("6", 990_000_000, "usd"))
        )
        #expect(purchase.transactionId == "GPA.3349-4454-9294-38157..4")
        #expect(purchase.originalTransactionId == "GPA.3349-4454-9294-38157")
        #expect(purchase.productId == "premium_monthly")
        #expect(purchase.purchaser == "acct-7f3a")
        #expect(purchase.environment == .production)
        #expect(purchase.price == Money(amount: Decimal(string: "6.99")!, currency: "USD"))
        #expect(purchase.price?.minorUnits() == 699)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_700_000_000.5))
        let expiry = try #require(purchase.expirationDate)
        #expect(abs(expiry.timeIntervalSince1970 - 1_702_592_000.123456789) < 0.000_001)
    }

    @Test func theDeprecatedLatestOrderIdIsUsedWhenTheLineItemHasNone() async throws {
        let (purchase, _) = try await verify(Support.subscription(latestOrderId: "GPA.1111-2222-3333-44444"))
        #expect(purchase.transactionId == "GPA.1111-2222-3333-44444")
        #expect(purchase.originalTransactionId == "GPA.1111-2222-3333-44444")
    }

    @Test func moneyUnitsAndNanosAreExact() async throws {
        let (large, _) = try await verify(Support.subscription(price: ("9007199254740993", 1, "JPY")))
        #expect(large.price?.amount == Decimal(string: "9007199254740993.000000001")!)
        let (fraction, _) = try await verify(Support.subscription(price: ("0", 10_000_000, "EUR")))
        #expect(fraction.price == Money(amount: Decimal(string: "0.01")!, currency: "EUR"))
    }

    @Test func aTestPurchaseIsSandbox() async throws {
        let (purchase, _) = try await verify(Support.subscription(test: true))
        #expect(purchase.environment == .sandbox)
    }

    @Test func aPendingSubscriptionWithoutStartTimeIsDatedWhenVerified() async throws {
        let (purchase, harness) = try await verify(
            Support.subscription(state: "SUBSCRIPTION_STATE_PENDING", startTime: nil, latestOrderId: nil)
        )
        #expect(purchase.state == .pending)
        #expect(purchase.purchaseDate == harness.clock.currentDate)
        #expect(purchase.transactionId == Support.subscriptionProof().fingerprint)
    }

    @Test(arguments: [
        ("SUBSCRIPTION_STATE_ACTIVE", future, true),
        ("SUBSCRIPTION_STATE_IN_GRACE_PERIOD", future, true),
        ("SUBSCRIPTION_STATE_CANCELED", future, true),
        ("SUBSCRIPTION_STATE_CANCELED", past, false),
        ("SUBSCRIPTION_STATE_ON_HOLD", past, false),
        ("SUBSCRIPTION_STATE_PAUSED", past, false),
        ("SUBSCRIPTION_STATE_EXPIRED", past, false),
        ("SUBSCRIPTION_STATE_PENDING", future, false),
    ])
    func onlyAPendingAcknowledgementOfAnEntitlingSubscriptionIsAcknowledged(
        rawState: String,
        expiry: String,
        acknowledges: Bool
    ) async throws {
        let (purchase, harness) = try await verify(
            Support.subscription(state: rawState, acknowledgement: "ACKNOWLEDGEMENT_STATE_PENDING", expiry: expiry)
        )
        #expect(purchase.finalizedByAdapter == acknowledges)
        let acks = harness.transport.requests(matching: ":acknowledge")
        #expect(acks.count == (acknowledges ? 1 : 0))
        if acknowledges {
            #expect(acks.first?.path == Support.subscriptionAcknowledgePath("premium_monthly"))
            #expect(acks.first?.request.method == .post)
        }
    }

    @Test func anAcknowledgedSubscriptionIsNotAcknowledgedAgain() async throws {
        let (purchase, harness) = try await verify(
            Support.subscription(acknowledgement: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
        )
        #expect(!purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aLineItemForAnotherProductIsAProductMismatch() async throws {
        let error = await #expect(throws: StoreAdapterError.self) {
            try await verify(Support.subscription(productId: "premium_yearly"))
        }
        #expect(error?.code == .productMismatch)
    }

    @Test func withoutAnExpectedProductTheFirstLineItemIsTheProduct() async throws {
        let (purchase, _) = try await verify(
            Support.subscription(productId: "premium_yearly"),
            proof: Support.subscriptionProof(nil)
        )
        #expect(purchase.productId == "premium_yearly")
    }

    @Test func anUnparsableExpiryIsAMalformedResponse() async throws {
        let error = await #expect(throws: StoreAdapterError.self) {
            try await verify(Support.subscription(expiry: "2023-12-14 22:13:20"))
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test func aSubscriptionWithoutLineItemsIsAMalformedResponse() async throws {
        let error = await #expect(throws: StoreAdapterError.self) {
            try await verify(#"{"subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","lineItems":[]}"#)
        }
        #expect(error?.code == .malformedResponse)
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// Security issue items 10, 11 and 12 for Google Play.
struct GoogleSecurityTests {
    typealias Support = GoogleTestSupport
    static let storeDate = "Wed, 15 Nov 2023 08:00:00 GMT"

    private func product(
        _ body: String = Support.productPurchase(),
        headers: [String: String] = ["Date": storeDate],
        expectedPurchaser: String? = nil
    ) async throws -> (Result<VerifiedPurchase, StoreAdapterError>, Support.Harness) {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.productPath("coins_100"), headers: headers, json: body)
        harness.transport.on(.post, Support.productPath("coins_100") + ":acknowledge", json: "")
        var proof = Support.productProof()
        proof.expectedPurchaser = expectedPurchaser
        do {
            return (.success(try await harness.adapter.verify(proof)), harness)
        } catch let error as StoreAdapterError {
            return (.failure(error), harness)
        }
    }

    private func subscription(_ body: String, expectedPurchaser: String? = nil) async throws -> Result<
        VerifiedPurchase, StoreAdapterError
    > {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.subscriptionPath(), headers: ["Date": Self.storeDate], json: body)
        harness.transport.on(.post, Support.subscriptionAcknowledgePath("premium_monthly"), json: "")
        var proof = Support.subscriptionProof()
        proof.expectedPurchaser = expectedPurchaser
        do {
            return .success(try await harness.adapter.verify(proof))
        } catch let error as StoreAdapterError {
            return .failure(error)
        }
    }

    @Test func verifiedAtIsGooglesDateHeaderNotTheDeviceClock() async throws {
        let (result, harness) = try await product()
        let purchase = try result.get()
        #expect(purchase.verifiedAt == HTTPDate.parse(Self.storeDate))
        #expect(purchase.verifiedAt != harness.clock.currentDate)
        #expect(purchase.transactionInfo.purchaser == "acct-7f3a")
        let (unreadable, _) = try await product(headers: ["Date": "15 Nov 2023 08:00:00"])
        #expect(try unreadable.get().verifiedAt == nil)
        #expect(try await subscription(Support.subscription()).get().verifiedAt == HTTPDate.parse(Self.storeDate))
    }

    @Test func inGraceSubscriptionReportsItsExpiryAsTheGraceEnd() async throws {
        let purchase = try await subscription(Support.subscription(state: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD")).get()
        #expect(purchase.state == .gracePeriod)
        #expect(purchase.gracePeriodExpirationDate != nil)
        #expect(purchase.gracePeriodExpirationDate == purchase.expirationDate)
        #expect(purchase.transactionInfo.gracePeriodExpirationDate == purchase.expirationDate)
        let active = try await subscription(Support.subscription()).get()
        #expect(active.gracePeriodExpirationDate == nil)
    }

    @Test func expectedPurchaserMustMatchTheObfuscatedAccountId() async throws {
        #expect(try await product(expectedPurchaser: "acct-7f3a").0.get().purchaser == "acct-7f3a")
        let (other, harness) = try await product(
            Support.productPurchase(acknowledgement: 0),
            expectedPurchaser: "acct-someone-else"
        )
        #expect(throws: StoreAdapterError.self) { try other.get() }
        if case .failure(let error) = other { #expect(error.code == .purchaserMismatch) }
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)  // never acknowledged for them
        let (missing, _) = try await product(Support.productPurchase(accountId: nil), expectedPurchaser: "acct-7f3a")
        if case .failure(let error) = missing {
            #expect(error.code == .purchaserMismatch)
        } else {
            Issue.record("accepted")
        }
        let (unbound, _) = try await product(Support.productPurchase(accountId: nil))
        #expect(try unbound.get().purchaser == nil)
    }

    @Test func subscriptionPurchaserIsCompared() async throws {
        let mismatch = try await subscription(Support.subscription(), expectedPurchaser: "acct-other")
        if case .failure(let error) = mismatch {
            #expect(error.code == .purchaserMismatch)
        } else {
            Issue.record("accepted")
        }
        let missing = try await subscription(Support.subscription(accountId: nil), expectedPurchaser: "acct-7f3a")
        if case .failure(let error) = missing {
            #expect(error.code == .purchaserMismatch)
        } else {
            Issue.record("accepted")
        }
        #expect(
            try await subscription(Support.subscription(), expectedPurchaser: "acct-7f3a").get().purchaser
                == "acct-7f3a"
        )
    }
}

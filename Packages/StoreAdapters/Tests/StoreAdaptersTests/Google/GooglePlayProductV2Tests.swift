import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// A product token verified without its product id: `purchases.productsv2.getproductpurchasev2` (the request Google
/// describes), the purchase read from its line items and state context, and the acknowledgement sent for the product
/// the answer names.
struct GooglePlayProductV2Tests {
    typealias Support = GoogleTestSupport

    static let path =
        "/androidpublisher/v3/applications/\(Support.packageName)/purchases/productsv2/tokens/\(Support.purchaseToken)"

    static func purchase(
        state: String = "PURCHASED",
        acknowledgement: String = "ACKNOWLEDGEMENT_STATE_PENDING",
        consumption: String = "CONSUMPTION_STATE_YET_TO_BE_CONSUMED",
        completed: Bool = true,
        test: Bool = false
    ) -> String {
        let item = { (quantity: Int) in
            #"{"productId":"coins_100","productOfferDetails":{"quantity":\#(quantity),"refundableQuantity":\#(quantity),"#
                + #""consumptionState":"\#(consumption)","purchaseOptionId":"default"}}"#
        }
        return #"{"kind":"androidpublisher#productPurchaseV2","productLineItem":[\#(item(2)),\#(item(1))],"#
            + #""purchaseStateContext":{"purchaseState":"\#(state)"},"orderId":"GPA.3301-2222-3333-55555","#
            + #""obfuscatedExternalAccountId":"acct-7f3a","regionCode":"US","acknowledgementState":"\#(acknowledgement)""#
            + (completed ? #","purchaseCompletionTime":"2026-11-21T12:00:00.250Z""# : "")
            + (test ? #","testPurchaseContext":{"fopType":"TEST"}"# : "") + "}"
    }

    private func harness(_ body: String) throws -> GoogleTestSupport.Harness {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Self.path, json: body)
        harness.transport.on(.post, Support.productPath("coins_100") + ":acknowledge", json: "")
        return harness
    }

    @Test func aPurchasedTokenIsReadWithoutItsProductIdAndAcknowledgedForTheProductItNames() async throws {
        let harness = try harness(Self.purchase())
        let purchase = try await harness.adapter.verify(Support.productProof(nil))
        #expect(purchase.state == .active && purchase.productId == "coins_100" && purchase.quantity == 3)
        #expect(purchase.transactionId == "GPA.3301-2222-3333-55555" && purchase.purchaser == "acct-7f3a")
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_795_262_400.25))
        #expect(purchase.environment == .production && purchase.finalizedByAdapter)
        let read = try #require(harness.transport.requests(matching: "/productsv2/").first)
        #expect(read.request.method == .get && read.path == Self.path)
        #expect(read.body == nil || read.body?.isEmpty == true)
        let acknowledge = try #require(harness.transport.requests(matching: ":acknowledge").first)
        #expect(acknowledge.request.method == .post)
        #expect(acknowledge.path == Support.productPath("coins_100") + ":acknowledge")
        #expect(harness.transport.requests(matching: "/purchases/products/coins_100/tokens/").count == 1)
    }

    @Test func aPendingPurchaseIsPendingDatedByTheClockAndNotAcknowledged() async throws {
        let harness = try harness(Self.purchase(state: "PENDING", completed: false))
        let purchase = try await harness.adapter.verify(Support.productProof(nil))
        #expect(purchase.state == .pending && purchase.storeStatus == "pending")
        #expect(purchase.purchaseDate == harness.clock.currentDate)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aTestPurchaseIsSandboxAndAConsumedOneIsNotAcknowledged() async throws {
        let harness = try harness(Self.purchase(consumption: "CONSUMPTION_STATE_CONSUMED", test: true))
        let purchase = try await harness.adapter.verify(Support.productProof(nil))
        #expect(purchase.environment == .sandbox && !purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test(arguments: [("CANCELLED", StoreAdapterError.Code.notPaid), ("SOMETHING_NEW", .malformedResponse)])
    func aCancelledOrUnknownStateIsRefused(_ state: String, _ code: StoreAdapterError.Code) async throws {
        let harness = try harness(Self.purchase(state: state))
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof(nil))
        }
        #expect(error.code == code)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aPurchasedTokenWithoutACompletionTimeIsMalformed() async throws {
        let harness = try harness(Self.purchase(completed: false))
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof(nil))
        }
        #expect(error.code == .malformedResponse)
    }
}

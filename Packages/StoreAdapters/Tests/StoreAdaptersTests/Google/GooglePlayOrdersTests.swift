import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// `orders.batchget`: the request Google describes (repeated `orderIds`), the orders mapped in the order asked, and
/// Google's limits refused before anything is sent.
struct GooglePlayOrdersTests {
    typealias Support = GoogleTestSupport

    static func order(_ id: String, state: String = "PROCESSED", product: String = "coins_100") -> String {
        """
        {"orderId":"\(id)","purchaseToken":"token-\(id)","state":"\(state)","createTime":"2026-11-21T12:00:00Z",
         "total":{"currencyCode":"USD","units":"1","nanos":990000000},
         "lineItems":[{"productId":"\(product)","oneTimePurchaseDetails":{"quantity":1}}]}
        """
    }

    @Test func severalOrdersAreReadInOneCallAndKeepTheirOrder() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        let batch = "/androidpublisher/v3/applications/\(Support.packageName)/orders:batchGet"
        harness.transport.on(
            .get,
            batch,
            json:
                #"{"orders":[\#(Self.order("GPA.3301-0000-0000-00302", state: "REFUNDED")),\#(Self.order("GPA.3301-0000-0000-00301"))]}"#
        )
        let purchases = try await harness.adapter.lookUpOrders(orderIds: [
            "GPA.3301-0000-0000-00301", "GPA.3301-0000-0000-00302",
        ])
        #expect(purchases.map(\.transactionId) == ["GPA.3301-0000-0000-00301", "GPA.3301-0000-0000-00302"])
        #expect(purchases.map(\.state) == [.active, .refunded])
        let request = try #require(harness.transport.requests(matching: "orders:batchGet").first)
        #expect(request.request.method == .get)
        #expect(request.path == batch + "?orderIds=GPA.3301-0000-0000-00301&orderIds=GPA.3301-0000-0000-00302")
    }

    @Test(arguments: [[], ["GPA.1", "GPA.1"], ["not-an-order"]])
    func googlesLimitsAreCheckedBeforeSending(_ ids: [String]) async throws {
        let harness = try Support.harness()
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.lookUpOrders(orderIds: ids)
        }
        #expect(error.code == .invalidProof && harness.transport.requests.isEmpty)
    }

    /// An order Google refunded in part, as `orders.get` documents it: no refunded amount of its own, the processed
    /// partial refund events sum to the figure (a pending one refunded nothing yet).
    static let partlyRefunded = #"""
        {"orderId":"GPA.3301-0000-0000-00401","purchaseToken":"token-401","state":"PARTIALLY_REFUNDED",
         "createTime":"2026-11-21T12:00:00Z","lastEventTime":"2026-11-25T09:30:00Z",
         "total":{"currencyCode":"EUR","units":"11","nanos":990000000},
         "tax":{"currencyCode":"EUR","units":"1","nanos":910000000},
         "lineItems":[{"productId":"coins_1200","productTitle":"1200 coins",
           "listingPrice":{"currencyCode":"EUR","units":"11","nanos":990000000},
           "total":{"currencyCode":"EUR","units":"11","nanos":990000000},
           "tax":{"currencyCode":"EUR","units":"1","nanos":910000000},
           "oneTimePurchaseDetails":{"quantity":1}}],
         "orderHistory":{
           "processedEvent":{"eventTime":"2026-11-21T12:00:05Z"},
           "partialRefundEvents":[
             {"createTime":"2026-11-23T08:00:00Z","processTime":"2026-11-23T08:05:00Z","state":"PROCESSED_SUCCESSFULLY",
              "refundDetails":{"total":{"currencyCode":"EUR","units":"4"},"tax":{"currencyCode":"EUR","nanos":640000000}}},
             {"createTime":"2026-11-25T09:00:00Z","processTime":"2026-11-25T09:30:00Z","state":"PROCESSED_SUCCESSFULLY",
              "refundDetails":{"total":{"currencyCode":"EUR","units":"1","nanos":940000000}}},
             {"createTime":"2026-11-26T10:00:00Z","state":"PENDING",
              "refundDetails":{"total":{"currencyCode":"EUR","units":"2"}}}]}}
        """#

    @Test func aPartlyRefundedOrderReportsTheSumOfItsProcessedPartialRefunds() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            "/androidpublisher/v3/applications/\(Support.packageName)/orders/GPA.3301-0000-0000-00401",
            json: Self.partlyRefunded
        )
        let purchase = try #require(try await harness.adapter.lookUpOrder(orderId: "GPA.3301-0000-0000-00401").first)
        #expect(purchase.state == .refunded && purchase.storeStatus == "PARTIALLY_REFUNDED")
        #expect(purchase.refundedAmount == Money(decimalString: "5.94", currency: "EUR"))
        #expect(purchase.price == Money(decimalString: "11.99", currency: "EUR"))
    }

    @Test func anItemOfASeveralItemOrderCarriesItsShareOfThePartialRefund() {
        let refund = Money(decimalString: "6.00", currency: "EUR")!
        let share = GooglePlayAdapter.share(
            of: refund,
            for: Money(decimalString: "10.00", currency: "EUR"),
            in: Money(decimalString: "30.00", currency: "EUR")
        )
        #expect(share == Money(decimalString: "2.00", currency: "EUR"))
        #expect(GooglePlayAdapter.share(of: refund, for: nil, in: nil) == refund)
    }

    @Test func anOrderLeftOutOfTheAnswerIsMalformed() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, "/androidpublisher/v3/applications/", json: #"{"orders":[\#(Self.order("GPA.1"))]}"#)
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.lookUpOrders(orderIds: ["GPA.1", "GPA.2"])
        }
        #expect(error.code == .malformedResponse)
    }
}

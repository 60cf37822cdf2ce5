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

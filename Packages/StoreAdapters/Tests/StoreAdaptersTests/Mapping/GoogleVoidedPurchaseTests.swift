import Foundation
import OpenCatCore
import Testing

@testable import StoreAdapters

/// The Voided Purchases API's entries and pages (the paging itself runs in the conformance matrix: the refunded
/// Google cassette answers two pages).
struct GoogleVoidedPurchaseTests {
    @Test func entriesNameTheirSourceAndReason() throws {
        let page = try JSONDecoder().decode(
            GoogleVoidedPurchasePage.self,
            from: Data(
                #"{"tokenPagination":{"nextPageToken":"next"},"voidedPurchases":[{"purchaseToken":"t1","orderId":"GPA.1","voidedSource":2,"voidedReason":7},{"purchaseToken":"t2","voidedSource":9,"voidedReason":42,"voidedQuantity":1}]}"#
                    .utf8
            )
        )
        #expect(page.nextPageToken == "next")
        #expect(page.voidedPurchases.map(\.statusText) == ["voided/google/chargeback", "voided/9/42"])
        #expect(page.voidedPurchases[0].reason == .chargeback && page.voidedPurchases[0].source == .google)
        #expect(page.voidedPurchases[1].voidedQuantity == 1)
        let empty = try JSONDecoder().decode(GoogleVoidedPurchasePage.self, from: Data("{}".utf8))
        #expect(empty.voidedPurchases.isEmpty && empty.nextPageToken == nil)
    }

    @Test func timesAreMilliseconds() {
        #expect(GooglePlayAdapter.millis(Date(timeIntervalSince1970: 1_795_348_800.5)) == 1_795_348_800_500)
        // A hostile purchase time never traps.
        _ = GooglePlayAdapter.millis(Date(timeIntervalSince1970: -9.3e15))
        _ = GooglePlayAdapter.millis(Date(timeIntervalSince1970: 9.3e15))
    }
}

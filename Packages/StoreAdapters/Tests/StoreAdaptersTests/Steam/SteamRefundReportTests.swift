import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// `ISteamMicroTxn/GetReport/v5` as a refund report: only reversed orders, partial refunds with their refunded
/// items, exact cents, and the cursor a reconciliation job pages forward with.
struct SteamRefundReportTests {
    typealias Support = SteamTestSupport

    static let path = "/ISteamMicroTxn/GetReport/v5/"
    static let since = RFC3339Timestamp.date(from: "2025-03-01T09:00:00Z")!

    static func order(
        orderId: String,
        status: String,
        time: String,
        items: [(id: Int, amount: Int, vat: Int, status: String)],
        currency: String = "EUR"
    ) -> String {
        let itemsJSON = items.map { item in
            #"{"itemid":\#(item.id),"qty":1,"amount":\#(item.amount),"vat":\#(item.vat),"itemstatus":"\#(item.status)"}"#
        }.joined(separator: ",")
        return
            #"{"orderid":"\#(orderId)","transid":"9\#(orderId)","steamid":"\#(Support.steamId)","status":"\#(status)","currency":"\#(currency)","time":"\#(time)","timecreated":"2025-03-01T08:00:00Z","country":"DE","usstate":"","items":[\#(itemsJSON)]}"#
    }

    static func report(_ orders: [String]) -> String {
        #"{"response":{"result":"OK","params":{"count":\#(orders.count),"orders":[\#(orders.joined(separator: ","))]}}}"#
    }

    /// A batch with every kind of order: a partial refund of one of two items, a failure, a success, a
    /// chargeback and a fraud refund.
    static let mixedBatch = report([
        order(
            orderId: "5001",
            status: "PartialRefund",
            time: "2025-03-01T09:10:00Z",
            items: [(2001, 450, 86, "Refunded"), (2002, 1_999, 380, "Succeeded")]
        ),
        order(orderId: "5002", status: "Failed", time: "2025-03-01T09:20:00Z", items: [(2001, 450, 86, "Failed")]),
        order(
            orderId: "5003",
            status: "Succeeded",
            time: "2025-03-01T11:45:30Z",
            items: [(2002, 1_999, 380, "Succeeded")]
        ),
        order(
            orderId: "5004",
            status: "Chargedback",
            time: "2025-03-01T10:05:00Z",
            items: [(2003, 4_999, 950, "Chargedback"), (2001, 450, 86, "Chargedback")]
        ),
        order(
            orderId: "5005",
            status: "RefundedFriendlyFraud",
            time: "2025-03-01T10:30:00Z",
            items: [(2001, 450, 86, "RefundedFriendlyFraud")]
        ),
    ])

    @Test func onlyReversedOrdersAreReturnedWithTheirRefundedItemsInExactCents() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.mixedBatch)

        let report = try await harness.adapter.refundReport(since: Self.since)
        #expect(report.scannedOrders == 5)
        #expect(report.orders.map(\.orderId) == ["5001", "5004", "5005"])

        let partial = try #require(report.orders.first)
        #expect(partial.isPartial && !partial.isChargeback)
        #expect(partial.status == "PartialRefund")
        #expect(partial.transactionId == "95001" && partial.steamId == Support.steamId)
        #expect(partial.time == RFC3339Timestamp.date(from: "2025-03-01T09:10:00Z"))
        #expect(partial.refundedItems.map(\.itemId) == ["2001"])
        #expect(partial.refundedItems.first?.amount == Money(minorUnits: 450, currency: "EUR"))
        #expect(partial.refundedItems.first?.vat == Money(minorUnits: 86, currency: "EUR"))
        #expect(partial.refundedItems.first?.status == "Refunded")
        #expect(partial.refundedAmount == Money(minorUnits: 450, currency: "EUR"))
        #expect(partial.refundedAmount?.amountString == "4.50")

        let chargeback = report.orders[1]
        #expect(chargeback.isChargeback && !chargeback.isPartial)
        #expect(chargeback.refundedItems.map(\.itemId) == ["2003", "2001"])
        #expect(chargeback.refundedAmount == Money(minorUnits: 5_449, currency: "EUR"))

        #expect(report.orders[2].status == "RefundedFriendlyFraud")
        #expect(report.orders[2].refundedAmount == Money(minorUnits: 450, currency: "EUR"))
    }

    @Test func theCursorIsTheLatestUpdateOfAnyOrderInTheBatch() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.mixedBatch)
        let report = try await harness.adapter.refundReport(since: Self.since)
        // The succeeded order (not returned) is the latest: the next batch must start after it all the same.
        #expect(report.cursor == RFC3339Timestamp.date(from: "2025-03-01T11:45:30Z"))
        #expect(report.since == Self.since)
    }

    @Test func anEmptyBatchKeepsTheCursor() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: #"{"response":{"result":"OK","params":{"count":0,"orders":[]}}}"#)
        let report = try await harness.adapter.refundReport(since: Self.since)
        #expect(report.orders.isEmpty && report.scannedOrders == 0)
        #expect(report.cursor == Self.since)
    }

    @Test func theRequestNamesTheAppTypeTimeAndLimitAndSendsTheKeyOnlyAsAHeader() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.report([]))
        _ = try await harness.adapter.refundReport(since: Self.since.addingTimeInterval(0.75), maxResults: 5_000)

        let request = try #require(harness.transport.requests.first)
        #expect(request.request.method == .get)
        let path = request.path
        #expect(path.hasPrefix(Self.path + "?"))
        let query = Support.fields(String(path.split(separator: "?", maxSplits: 1)[1]))
        #expect(
            query == ["appid": "480", "type": "GAMESALES", "time": "2025-03-01T09:00:00Z", "maxresults": "5000"]
        )
        #expect(request.request.headerFields[HTTPField.Name("x-webapi-key")!] == Support.publisherKey)
        #expect(!path.contains(Support.publisherKey) && !path.contains("key="))
    }

    @Test func anotherReportTypeCanBeAskedFor() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.report([]))
        _ = try await harness.adapter.refundReport(since: Self.since, type: .chargeback)
        let path = try #require(harness.transport.requests.first?.path)
        #expect(Support.fields(String(path.split(separator: "?")[1]))["type"] == "CHARGEBACK")
    }

    @Test func theSandboxReadsTheSandboxReport() async throws {
        let harness = Support.harness(sandbox: true)
        harness.transport.on(.get, "/ISteamMicroTxnSandbox/GetReport/v5/", exact: true, json: Self.mixedBatch)
        let report = try await harness.adapter.refundReport(since: Self.since)
        #expect(report.orders.count == 3)
    }

    @Test(arguments: [0, -1, 50_001])
    func aLimitOutOfRangeIsRefusedWithoutAskingSteam(maxResults: Int) async throws {
        let harness = Support.harness()
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.refundReport(since: Self.since, maxResults: maxResults)
        }
        #expect(error.code == .misconfigured)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test(arguments: [
        ("3", StoreAdapterError.Code.misconfigured), ("2", .storeUnavailable), ("4", .storeUnavailable),
        ("100", .malformedResponse),
    ])
    func aFailureIsATypedError(code: String, expected: StoreAdapterError.Code) async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Support.failure(code: code))
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.refundReport(since: Self.since)
        }
        #expect(error.code == expected && error.storeReason == "errorcode \(code)")
    }

    @Test func anOrderWithoutATimeMakesTheBatchMalformedSoNoRefundIsSkipped() async throws {
        let harness = Support.harness()
        let body = Self.report([
            Self.order(orderId: "5001", status: "Refunded", time: "yesterday", items: [(2001, 450, 86, "Refunded")])
        ])
        harness.transport.on(.get, Self.path, json: body)
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.refundReport(since: Self.since)
        }
        #expect(error.code == .malformedResponse)
    }

    @Test func aPartialRefundWithoutItemStatusesCountsEveryItemAsRefunded() throws {
        let json = #"""
            {"count":1,"orders":[{"orderid":"7","status":"PartialRefund","currency":"USD","time":"2025-03-02T00:00:00Z",
              "items":[{"itemid":"1","qty":2,"amount":300},{"itemid":"2","qty":1,"amount":100,"itemstatus":"Succeeded"}]}]}
            """#
        let params = try JSONDecoder().decode(GetReportParams.self, from: Data(json.utf8))
        let report = try SteamAdapter.refundReport(params, since: Self.since)
        let order = try #require(report.orders.first)
        #expect(order.refundedItems.map(\.itemId) == ["1"])
        #expect(order.refundedItems.first?.quantity == 2)
        #expect(order.refundedItems.first?.vat == nil)
        #expect(order.refundedAmount == Money(minorUnits: 300, currency: "USD"))
    }
}

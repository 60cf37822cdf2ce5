import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// Steam sends no refund notifications: the server reads Steam's refund report (`GetReport`), reads each reversed
/// order again (`QueryTxn`) and takes the key pack back like a notification would, once per order.
struct SteamRefundReconciliationTests {
    /// A `QueryTxn` answer for an order of two lines of one item (999 + 1 cents), each with its own status.
    static func order(_ transaction: String, status: String, itemStatuses: (String, String)) -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/ISteamMicroTxn/QueryTxn/v3/",
            exact: true,
            json: """
                {"response":{"result":"OK","params":{"orderid":"9\(transaction)","transid":"\(transaction)",
                "steamid":"76561198000000001","status":"\(status)","currency":"USD","country":"US","usstate":"",
                "time":"2026-09-21T14:12:20Z","items":[
                {"itemid":"1001","qty":1,"amount":999,"vat":0,"itemstatus":"\(itemStatuses.0)"},
                {"itemid":"1001","qty":1,"amount":1,"vat":0,"itemstatus":"\(itemStatuses.1)"}]}}}
                """
        )
        return transport
    }

    static func reportOrder(_ transaction: String, status: String, refunded: String) -> String {
        """
        {"orderid":"9\(transaction)","transid":"\(transaction)","steamid":"76561198000000001","status":"\(status)",
        "currency":"USD","time":"2026-11-20T10:00:00Z","items":[{"itemid":"1002","qty":1,"amount":\(refunded),
        "vat":0,"itemstatus":"\(status == "PartialRefund" ? "Refunded" : status)"}]}
        """
    }

    @Test(arguments: Backend.allCases)
    func refundsInSteamsReportTakeTheKeyPacksBackOnceAndAPartOneOnlyItsShare(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        let others = ScriptedTransport()
        others.on(
            .get,
            "/ISteamMicroTxn/GetReport/v5/",
            exact: true,
            json: """
                {"response":{"result":"OK","params":{"count":2,"orders":[
                \(Self.reportOrder("3001", status: "Refunded", refunded: "1")),
                \(Self.reportOrder("3002", status: "PartialRefund", refunded: "1"))]}}}
                """
        )
        let steam = SteamAdapter(
            configuration: .init(
                appId: 480,
                publisherKey: Secret("PUBLISHERKEY-reconciliation"),
                baseURL: URL(string: "https://partner.test.invalid")!,
                httpClient: HTTPClient(
                    // `QueryTxn` answered per `transid`, everything else by `others`.
                    transport: QueryRoutedTransport(
                        routingBy: "transid",
                        routes: [
                            "3001": Self.order("3001", status: "Refunded", itemStatuses: ("Refunded", "Refunded")),
                            "3002": Self.order(
                                "3002",
                                status: "PartialRefund",
                                itemStatuses: ("Succeeded", "Refunded")
                            ),
                        ],
                        others: others
                    ),
                    clock: clock.manual
                )
            )
        )
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [steam])
            for (transaction, user) in [("3001", "user-1"), ("3002", "user-2")] {
                _ = try await fixture.ledger.redeem(
                    store: "steam",
                    transactionId: transaction,
                    userId: user,
                    grant: KeyGrant(keys: 10, bonusKeys: 2)
                )
            }
            #expect(fixture.server.storesWithoutRefunds.isEmpty)
            let first = try #require(try await fixture.server.reconcileSteamRefunds())
            // The whole of order 3001 (12 keys) and 1 cent of 10.00 of order 3002 (1 key, rounded up).
            #expect(first.reversedOrders == 2)
            #expect(first.applied == 2)
            #expect(first.clawedBack == 13)
            #expect(try await fixture.ledger.balance(of: "user-1") == 0)
            #expect(try await fixture.ledger.balance(of: "user-2") == 11)
            // The next pass sees the same orders again (Steam's report starts at the cursor): nothing changes.
            let second = try #require(try await fixture.server.reconcileSteamRefunds())
            #expect(second.applied == 0 && second.clawedBack == 0)
            #expect(try await fixture.ledger.balance(of: "user-1") == 0)
            #expect(try await fixture.ledger.balance(of: "user-2") == 11)
        }
    }
}

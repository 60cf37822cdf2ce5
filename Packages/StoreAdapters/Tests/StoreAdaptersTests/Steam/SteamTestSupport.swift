import Foundation
import Logging
import OpenCatCore
import OpenCatTesting

@testable import StoreAdapters

/// Fixtures for the Steam tests: an adapter over a ScriptedTransport on a manual clock, and QueryTxn/FinalizeTxn
/// bodies written from the ISteamMicroTxn reference (64-bit ids as strings, amounts in cents).
enum SteamTestSupport {
    static let appId: UInt32 = 480
    /// Distinctive, so that a leak is easy to find.
    static let publisherKey = "PUBLISHERKEY0123456789ABCDEFleak"
    static let orderId = "938474000000000123"
    static let transId = "374839000000000456"
    static let steamId = "76561197960434622"
    static let queryPath = "/ISteamMicroTxn/QueryTxn/v3/"
    static let finalizePath = "/ISteamMicroTxn/FinalizeTxn/v2/"

    struct Harness {
        var transport: ScriptedTransport
        var clock: ManualClock
        var adapter: SteamAdapter
    }

    static func harness(
        sandbox: Bool = false,
        finalizeApproved: Bool = true,
        logs: LogCapture? = nil,
        maxAttempts: Int = 1
    ) -> Harness {
        let transport = ScriptedTransport()
        let clock = ManualClock()
        let logger = logs?.logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = HTTPClient(
            transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: maxAttempts, jitter: .none),
            clock: clock,
            timeout: .seconds(10),
            logger: logger
        )
        let adapter = SteamAdapter(
            configuration: .init(
                appId: appId,
                publisherKey: Secret(publisherKey),
                sandbox: sandbox,
                baseURL: URL(string: "https://partner.test.invalid")!,
                finalizeApproved: finalizeApproved,
                httpClient: client
            ),
            logger: logger
        )
        return Harness(transport: transport, clock: clock, adapter: adapter)
    }

    static func orderProof(_ id: String = orderId, productId: String? = nil, context: [String: String] = [:])
        -> PurchaseProof
    {
        PurchaseProof(store: .steam, kind: .steamOrder, token: Secret(id), productId: productId, context: context)
    }

    static func transactionProof(_ id: String = transId) -> PurchaseProof {
        PurchaseProof(store: .steam, kind: .steamTransaction, token: Secret(id))
    }

    struct Item {
        var itemid: String = "1001"
        var qty: Int = 1
        var amount: Int = 199
        var vat: Int = 38
        var itemstatus: String? = nil
    }

    /// A QueryTxn v3 `OK` answer.
    static func query(
        status: String,
        items: [Item] = [Item()],
        currency: String = "GBP",
        time: String? = "2023-11-14T22:00:00Z",
        numericIDs: Bool = false
    ) -> String {
        func id(_ value: String) -> String { numericIDs ? value : "\"\(value)\"" }
        let itemsJSON = items.map { item in
            var fields = [
                #""itemid":\#(numericIDs ? item.itemid : "\"\(item.itemid)\"")"#, #""qty":\#(item.qty)"#,
                #""amount":\#(item.amount)"#, #""vat":\#(item.vat)"#,
            ]
            fields.append(#""itemstatus":"\#(item.itemstatus ?? status)""#)
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: ",")
        var params = [
            #""orderid":\#(id(orderId))"#, #""transid":\#(id(transId))"#, #""steamid":\#(id(steamId))"#,
            #""status":"\#(status)""#, #""currency":"\#(currency)""#, #""country":"GB""#, #""usstate":"""#,
            #""items":[\#(itemsJSON)]"#,
        ]
        if let time { params.append(#""time":"\#(time)""#) }
        return #"{"response":{"result":"OK","params":{\#(params.joined(separator: ","))}}}"#
    }

    /// A `Failure` answer.
    static func failure(code: String, description: String = "failure") -> String {
        #"{"response":{"result":"Failure","params":{},"error":{"errorcode":\#(code),"errordesc":"\#(description)"}}}"#
    }

    /// A FinalizeTxn v2 `OK` answer.
    static var finalized: String {
        #"{"response":{"result":"OK","params":{"orderid":"\#(orderId)","transid":"\#(transId)"}}}"#
    }

    /// Splits a query string or form body.
    static func fields(_ text: String) -> [String: String] {
        Dictionary(
            text.split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            },
            uniquingKeysWith: { $1 }
        )
    }
}

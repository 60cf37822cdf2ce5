extension Cassette.Interaction {
    /// `GET /ISteamUserAuth/AuthenticateUserTicket/v1/` vouching for a player, as Steam answers a valid ticket:
    /// `{"response":{"params":{"result":"OK","steamid":…,"ownersteamid":…,"vacbanned":…,"publisherbanned":…}}}`.
    ///
    /// The request must carry exactly `appid`, `ticket` and (when given) `identity` in its query; the publisher key
    /// is checked by the Steam auth check of a cassette whose store is `steam` (`x-webapi-key` header or `key`
    /// parameter), so it is not part of the pattern.
    /// - Parameters:
    ///   - ticket: the hex ticket the client sends.
    ///   - appId: the app id the client names.
    ///   - identity: the identity the client must send (`nil`: it must send none).
    ///   - steamId: the player's SteamID64 the ticket stands for.
    ///   - ownerSteamId: the license owner (default: the player; another id for Family Sharing).
    ///   - vacBanned: Steam's `vacbanned`.
    ///   - publisherBanned: Steam's `publisherbanned`.
    ///   - times: how many requests it answers.
    /// - Returns: the interaction.
    public static func steamAuthenticateUserTicket(
        _ ticket: String,
        appId: UInt32,
        identity: String? = nil,
        steamId: String,
        ownerSteamId: String? = nil,
        vacBanned: Bool = false,
        publisherBanned: Bool = false,
        times: Int = 1
    ) -> Cassette.Interaction {
        Cassette.Interaction(
            request: steamTicketRequest(ticket, appId: appId, identity: identity),
            response: .init(
                status: 200,
                json: [
                    "response": [
                        "params": [
                            "result": "OK", "steamid": .string(steamId),
                            "ownersteamid": .string(ownerSteamId ?? steamId), "vacbanned": .bool(vacBanned),
                            "publisherbanned": .bool(publisherBanned),
                        ]
                    ]
                ]
            ),
            times: times
        )
    }

    /// `GET /ISteamUserAuth/AuthenticateUserTicket/v1/` refusing a ticket, as Steam does (HTTP 200 with
    /// `{"response":{"error":{"errorcode":101,"errordesc":"Invalid ticket"}}}`; 102 is "Ticket for other app").
    /// - Parameters:
    ///   - ticket: the hex ticket the client sends.
    ///   - appId: the app id the client names.
    ///   - identity: the identity the client must send (`nil`: it must send none).
    ///   - errorCode: Steam's `errorcode`.
    ///   - description: Steam's `errordesc`.
    ///   - times: how many requests it answers.
    /// - Returns: the interaction.
    public static func steamAuthenticateUserTicket(
        _ ticket: String,
        appId: UInt32,
        identity: String? = nil,
        refusedWith errorCode: Int64 = 101,
        description: String = "Invalid ticket",
        times: Int = 1
    ) -> Cassette.Interaction {
        Cassette.Interaction(
            request: steamTicketRequest(ticket, appId: appId, identity: identity),
            response: .init(
                status: 200,
                json: ["response": ["error": ["errorcode": .integer(errorCode), "errordesc": .string(description)]]]
            ),
            times: times
        )
    }

    /// `GET /ISteamMicroTxn/GetReport/v5/` (or `ISteamMicroTxnSandbox`) answering one batch:
    /// `{"response":{"result":"OK","params":{"count":N,"orders":[…]}}}`.
    ///
    /// With `since`, the request's query must be exactly `appid`, `type`, `time` = `since` and `maxresults`;
    /// without it, any query is accepted (a client whose cursor the test does not pin).
    /// - Parameters:
    ///   - appId: the app id the client names.
    ///   - orders: the batch, built with ``steamReportOrder(orderId:transactionId:steamId:status:time:currency:itemId:quantity:amount:vat:itemStatus:)``
    ///     or written as JSON.
    ///   - since: the RFC 3339 `time` the client must ask from (`"2025-03-01T09:00:00Z"`), or `nil` for any query.
    ///   - type: the report type the client must ask for (with `since`).
    ///   - maxResults: the `maxresults` the client must send (with `since`).
    ///   - sandbox: serve `ISteamMicroTxnSandbox` instead of `ISteamMicroTxn`.
    ///   - times: how many requests it answers.
    /// - Returns: the interaction.
    public static func steamGetReport(
        appId: UInt32,
        orders: [JSONValue],
        since: String? = nil,
        type: String = "GAMESALES",
        maxResults: Int = 1000,
        sandbox: Bool = false,
        times: Int = 1
    ) -> Cassette.Interaction {
        let query = since.map { time in
            Cassette.NameValues(single: [
                "appid": String(appId), "type": type, "time": time, "maxresults": String(maxResults),
            ])
        }
        let interface = sandbox ? "ISteamMicroTxnSandbox" : "ISteamMicroTxn"
        return Cassette.Interaction(
            request: .init(method: "GET", path: "/\(interface)/GetReport/v5/", query: query),
            response: .init(
                status: 200,
                json: [
                    "response": [
                        "result": "OK",
                        "params": ["count": .integer(Int64(orders.count)), "orders": .array(orders)],
                    ]
                ]
            ),
            times: times
        )
    }

    /// One `GetReport` order with one item, as Steam writes it (64-bit ids as strings, amounts in cents).
    /// - Parameters:
    ///   - orderId: the partner's order id.
    ///   - transactionId: Steam's transaction id (default: none).
    ///   - steamId: the buyer's SteamID64.
    ///   - status: the order's status (`Refunded`, `PartialRefund`, `Chargedback`, `Succeeded`, …).
    ///   - time: its latest update, RFC 3339 UTC (`"2025-03-01T10:05:00Z"`).
    ///   - currency: ISO 4217 code.
    ///   - itemId: the item's id.
    ///   - quantity: units.
    ///   - amount: the line's total without VAT, in cents.
    ///   - vat: the line's VAT, in cents.
    ///   - itemStatus: the item's own status (default: the order's).
    /// - Returns: the order as JSON.
    public static func steamReportOrder(
        orderId: String,
        transactionId: String? = nil,
        steamId: String,
        status: String,
        time: String,
        currency: String = "USD",
        itemId: String,
        quantity: Int64 = 1,
        amount: Int64,
        vat: Int64 = 0,
        itemStatus: String? = nil
    ) -> JSONValue {
        var order: [String: JSONValue] = [
            "orderid": .string(orderId), "steamid": .string(steamId), "status": .string(status),
            "currency": .string(currency), "time": .string(time), "timecreated": .string(time),
            "items": [
                [
                    "itemid": .string(itemId), "qty": .integer(quantity), "amount": .integer(amount),
                    "vat": .integer(vat), "itemstatus": .string(itemStatus ?? status),
                ]
            ],
        ]
        if let transactionId { order["transid"] = .string(transactionId) }
        return .object(order)
    }

    private static func steamTicketRequest(_ ticket: String, appId: UInt32, identity: String?)
        -> Cassette.RequestPattern
    {
        var query = ["appid": String(appId), "ticket": ticket]
        if let identity { query["identity"] = identity }
        return .init(
            method: "GET",
            path: "/ISteamUserAuth/AuthenticateUserTicket/v1/",
            query: Cassette.NameValues(single: query)
        )
    }
}

import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing

/// The Steam interaction builders on a real loopback server: a ticket → player mapping, a refused ticket and a
/// refund report, each behind Steam's publisher-key check.
struct SteamInteractionTests {
    static let ticket = "14000000aabbccddeeff00112233445566778899"
    static let player = "76561197960434622"
    static let lender = "76561197960265731"
    static let key = ["x-webapi-key": TestKeys.steamKey]

    static func run(_ interactions: [Cassette.Interaction], _ body: (MockStoreServer) async throws -> Void)
        async throws
    {
        try await MockStoreServer.withRunningServer(
            cassettes: [.script(.steam, interactions)],
            credentials: TestKeys.credentials,
            body
        )
    }

    @Test func aTicketMapsToItsPlayer() async throws {
        let interactions: [Cassette.Interaction] = [
            .steamAuthenticateUserTicket(Self.ticket, appId: 480, identity: "opencat", steamId: Self.player),
            .steamAuthenticateUserTicket("00ff", appId: 480, steamId: Self.player, ownerSteamId: Self.lender),
        ]
        try await Self.run(interactions) { server in
            let path = "/ISteamUserAuth/AuthenticateUserTicket/v1/"
            let denied = try await Loopback.send(
                .get,
                server,
                "\(path)?appid=480&ticket=\(Self.ticket)&identity=opencat"
            )
            #expect(denied.status.code == 403)

            let first = try await Loopback.send(
                .get,
                server,
                "\(path)?appid=480&ticket=\(Self.ticket)&identity=opencat",
                headers: Self.key
            )
            #expect(first.status.code == 200)
            let params = first.json?["response"]?["params"]
            #expect(params?["result"] == "OK")
            #expect(params?["steamid"] == .string(Self.player))
            #expect(params?["ownersteamid"] == .string(Self.player))
            #expect(params?["vacbanned"] == false && params?["publisherbanned"] == false)

            let borrowed = try await Loopback.send(.get, server, "\(path)?appid=480&ticket=00ff", headers: Self.key)
            #expect(borrowed.json?["response"]?["params"]?["ownersteamid"] == .string(Self.lender))
            try server.verify()
        }
    }

    @Test func theTicketAndIdentityMustMatch() async throws {
        let interactions: [Cassette.Interaction] = [
            .steamAuthenticateUserTicket(Self.ticket, appId: 480, identity: "opencat", steamId: Self.player)
        ]
        try await Self.run(interactions) { server in
            let path = "/ISteamUserAuth/AuthenticateUserTicket/v1/"
            let noIdentity = try await Loopback.send(
                .get,
                server,
                "\(path)?appid=480&ticket=\(Self.ticket)",
                headers: Self.key
            )
            #expect(noIdentity.status.code == 599)
            #expect(server.unusedInteractions.count == 1)
        }
    }

    @Test func aRefusedTicketAnswersSteamsError() async throws {
        let interactions: [Cassette.Interaction] = [
            .steamAuthenticateUserTicket(Self.ticket, appId: 480, refusedWith: 102, description: "Ticket for other app")
        ]
        try await Self.run(interactions) { server in
            let response = try await Loopback.send(
                .get,
                server,
                "/ISteamUserAuth/AuthenticateUserTicket/v1/?appid=480&ticket=\(Self.ticket)",
                headers: Self.key
            )
            #expect(response.status.code == 200)
            #expect(response.json?["response"]?["error"]?["errorcode"] == 102)
            #expect(response.json?["response"]?["error"]?["errordesc"] == "Ticket for other app")
            #expect(response.json?["response"]?["params"] == nil)
            try server.verify()
        }
    }

    @Test func aReportListsARefundedOrderForTheAskedTime() async throws {
        let refunded = Cassette.Interaction.steamReportOrder(
            orderId: "5001",
            transactionId: "95001",
            steamId: Self.player,
            status: "Refunded",
            time: "2025-03-01T10:05:00Z",
            currency: "EUR",
            itemId: "2001",
            amount: 450,
            vat: 86
        )
        let interactions: [Cassette.Interaction] = [
            .steamGetReport(appId: 480, orders: [refunded], since: "2025-03-01T09:00:00Z"),
            .steamGetReport(appId: 480, orders: [], sandbox: true),
        ]
        try await Self.run(interactions) { server in
            let report = try await Loopback.send(
                .get,
                server,
                "/ISteamMicroTxn/GetReport/v5/?appid=480&type=GAMESALES&time=2025-03-01T09%3A00%3A00Z&maxresults=1000",
                headers: Self.key
            )
            #expect(report.status.code == 200)
            let params = report.json?["response"]?["params"]
            #expect(report.json?["response"]?["result"] == "OK")
            #expect(params?["count"] == 1)
            let order = params?["orders"]?[0]
            #expect(order?["orderid"] == "5001" && order?["transid"] == "95001")
            #expect(order?["status"] == "Refunded" && order?["time"] == "2025-03-01T10:05:00Z")
            #expect(order?["items"]?[0]?["amount"] == 450 && order?["items"]?[0]?["itemstatus"] == "Refunded")
            #expect(order?["items"]?[0]?["itemid"] == "2001")

            let sandbox = try await Loopback.send(
                .get,
                server,
                "/ISteamMicroTxnSandbox/GetReport/v5/?appid=480&type=GAMESALES&time=2030-01-01T00:00:00Z&maxresults=10",
                headers: Self.key
            )
            #expect(sandbox.json?["response"]?["params"]?["count"] == 0)
            try server.verify()
        }
    }
}

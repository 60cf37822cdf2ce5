import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// `ISteamUserAuth/AuthenticateUserTicket/v1`: the player a session ticket vouches for, and every refusal as a
/// typed error without the ticket or the key.
struct SteamUserAuthTests {
    typealias Support = SteamTestSupport

    static let path = "/ISteamUserAuth/AuthenticateUserTicket/v1/"
    /// A distinctive hex ticket, so that a leak is easy to find.
    static let ticket = "140000000a0b0c0d0e0f1011deadbeefcafef00d0123456789abcdef"
    static let lender = "76561197960265731"

    static func ok(
        steamId: String = Support.steamId,
        owner: String? = nil,
        vac: Bool = false,
        publisher: Bool = false
    ) -> String {
        #"{"response":{"params":{"result":"OK","steamid":"\#(steamId)","ownersteamid":"\#(owner ?? steamId)","vacbanned":\#(vac),"publisherbanned":\#(publisher)}}}"#
    }

    static func refused(_ code: Int, _ description: String) -> String {
        #"{"response":{"error":{"errorcode":\#(code),"errordesc":"\#(description)"}}}"#
    }

    @Test func aValidTicketNamesThePlayer() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.ok())

        let user = try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        #expect(user.steamId == Support.steamId)
        #expect(user.ownerSteamId == Support.steamId)
        #expect(!user.isBorrowed && !user.vacBanned && !user.publisherBanned)

        let request = try #require(harness.transport.requests.first)
        #expect(request.request.method == .get)
        #expect(request.request.authority == "partner.test.invalid")
        let path = request.path
        #expect(path.hasPrefix(Self.path + "?"))
        let query = Support.fields(String(path.split(separator: "?", maxSplits: 1)[1]))
        #expect(query == ["appid": "480", "ticket": Self.ticket])
        #expect(request.request.headerFields[HTTPField.Name("x-webapi-key")!] == Support.publisherKey)
        #expect(!path.contains(Support.publisherKey) && !path.contains("key="))
    }

    @Test func theIdentityIsSentEncoded() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.ok())
        _ = try await harness.adapter.authenticateUserTicket(Secret(Self.ticket), identity: "opencat server/1")
        let path = try #require(harness.transport.requests.first?.path)
        let query = Support.fields(String(path.split(separator: "?", maxSplits: 1)[1]))
        #expect(query["identity"] == "opencat%20server%2F1")
    }

    @Test func aBorrowedGameReportsTheOwnerButReturnsThePlayer() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.ok(owner: Self.lender, vac: true, publisher: true))
        let user = try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        #expect(user.steamId == Support.steamId)
        #expect(user.ownerSteamId == Self.lender)
        #expect(user.isBorrowed)
        #expect(user.vacBanned && user.publisherBanned)
    }

    @Test func theSandboxAdapterStillAsksISteamUserAuth() async throws {
        let harness = Support.harness(sandbox: true)
        harness.transport.on(.get, Self.path, exact: true, json: Self.ok())
        let user = try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        #expect(user.steamId == Support.steamId)
    }

    @Test(arguments: [
        (101, "Invalid ticket", StoreAdapterError.Code.invalidProof),
        (102, "Ticket for other app", .wrongApplication),
        (3, "Invalid parameter", .invalidProof),
        (100, "Ticket expired", .invalidProof),
    ])
    func aRefusedTicketIsATypedErrorWithSteamsCode(code: Int, description: String, expected: StoreAdapterError.Code)
        async throws
    {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: Self.refused(code, description))
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        }
        #expect(error.code == expected)
        #expect(error.store == .steam)
        #expect(error.storeReason == "errorcode \(code)")
        #expect(!error.description.contains(Self.ticket))
        #expect(!error.description.contains(Support.publisherKey))
    }

    @Test(arguments: ["", "xyz0", "abc", String(repeating: "ab", count: 4_097)])
    func aTicketThatIsNotHexIsRefusedWithoutAskingSteam(ticket: String) async throws {
        let harness = Support.harness()
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(ticket))
        }
        #expect(error.code == .invalidProof)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func anEmptyIdentityIsRefusedWithoutAskingSteam() async throws {
        let harness = Support.harness()
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(Self.ticket), identity: "")
        }
        #expect(error.code == .invalidProof)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func aRefusedKeyIsUnauthorized() async throws {
        let harness = Support.harness()
        harness.transport.on(
            .get,
            Self.path,
            reply: .response(status: 403, headers: ["Content-Type": "text/html"], body: Data("Forbidden".utf8))
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        }
        #expect(error.code == .unauthorized && error.httpStatus == 403)
        #expect(!error.description.contains(Support.publisherKey))
    }

    @Test(arguments: [
        #"{"response":{"params":{"result":"OK","ownersteamid":"76561197960434622"}}}"#,
        #"{"response":{"params":{"result":"OK","steamid":"not-a-number"}}}"#,
        #"{"response":{"params":{"result":"OK","steamid":"0"}}}"#,
        #"{"response":{}}"#,
    ])
    func anOKWithoutAValidSteamIdIsMalformed(body: String) async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: body)
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        }
        #expect(error.code == .malformedResponse)
    }

    @Test func aResultOtherThanOKIsRefused() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Self.path, json: #"{"response":{"params":{"result":"Failure"}}}"#)
        let error = try await #require(throws: StoreAdapterError.self) {
            try await harness.adapter.authenticateUserTicket(Secret(Self.ticket))
        }
        #expect(error.code == .invalidProof && error.storeReason == "Failure")
    }
}

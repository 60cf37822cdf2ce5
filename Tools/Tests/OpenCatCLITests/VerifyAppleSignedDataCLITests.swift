import Foundation
import MockStores
import OpenCatTesting
import Testing

/// `opencat verify apple --jws` on every payload the App Store signs, minted with `MockAppleCA` in Apple's shapes.
@Suite(.serialized)
struct VerifyAppleSignedDataCLITests {
    static let ca = try! MockAppleCA()
    static let bundleId = "dev.opencat.cli"
    static let signedDate: Int64 = 1_700_000_000_000

    private func transaction(revoked: Bool = false) -> String {
        let revocation =
            revoked ? #","revocationDate":1699999000000,"revocationReason":0,"revocationType":"REFUND_FULL""# : ""
        return Self.ca.signJWS(
            payload: Data(
                """
                {"bundleId":"\(Self.bundleId)","currency":"USD","environment":"Production",\
                "expiresDate":2000000000000,"originalPurchaseDate":1699990000000,\
                "originalTransactionId":"2000000000000001","price":2990,"productId":"dev.opencat.pro.monthly",\
                "purchaseDate":1699990000933,"quantity":1,"signedDate":\(Self.signedDate),\
                "transactionId":"2000000000000002","type":"Auto-Renewable Subscription"\(revocation)}
                """.utf8
            )
        )
    }

    private func renewalInfo() -> String {
        Self.ca.signJWS(
            payload: Data(
                """
                {"autoRenewProductId":"dev.opencat.pro.monthly","autoRenewStatus":1,"environment":"Production",\
                "originalTransactionId":"2000000000000001","productId":"dev.opencat.pro.monthly",\
                "renewalDate":1702592000000,"signedDate":\(Self.signedDate)}
                """.utf8
            )
        )
    }

    private func notification(_ type: String, subtype: String?, environment: String = "Production", nested: Bool)
        -> String
    {
        let subtypeField = subtype.map { #""subtype":"\#($0)","# } ?? ""
        let nestedFields =
            nested
            ? #","signedTransactionInfo":"\#(transaction(revoked: type == "REFUND"))","signedRenewalInfo":"\#(renewalInfo())""#
            : ""
        return Self.ca.signJWS(
            payload: Data(
                """
                {"notificationType":"\(type)",\(subtypeField)"notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",\
                "data":{"appAppleId":1234567890,"bundleId":"\(Self.bundleId)","bundleVersion":"42",\
                "environment":"\(environment)"\(nestedFields)},"version":"2.0","signedDate":\(Self.signedDate)}
                """.utf8
            )
        )
    }

    private func verify(_ contents: String, root: Data = ca.rootCertificateDER, _ extra: [String] = []) async throws
        -> OpenCatCLI.Result
    {
        let folder = try ScratchFolder()
        let file = try folder.write("signed.txt", Data(contents.utf8))
        let rootFile = try folder.write("root.der", root)
        return try await OpenCatCLI.run(
            ["verify", "apple", "--jws", file, "--root", rootFile, "--bundle-id", Self.bundleId] + extra
        )
    }

    private func json(_ result: OpenCatCLI.Result) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test func aSubscribedNotificationPrintsItsTypeAppAndNestedPurchase() async throws {
        let signedPayload = notification("SUBSCRIBED", subtype: "INITIAL_BUY", nested: true)
        for contents in [signedPayload, #"{"signedPayload":"\#(signedPayload)"}"#] {
            let result = try await verify(contents)
            #expect(result.status == 0, "\(result.standardError)")
            let object = try json(result)
            #expect(object["kind"] as? String == "notification")
            #expect(object["notificationType"] as? String == "SUBSCRIBED")
            #expect(object["subtype"] as? String == "INITIAL_BUY")
            #expect(object["bundleId"] as? String == Self.bundleId)
            #expect(object["environment"] as? String == "Production")
            let purchase = try #require(object["purchase"] as? [String: Any])
            #expect(purchase["transactionId"] as? String == "2000000000000002")
            #expect(purchase["state"] as? String == "active")
            #expect(purchase["willRenew"] as? Bool == true)
            // Milliseconds and the currency's minor-unit digits survive printing.
            #expect(purchase["purchaseDate"] as? String == "2023-11-14T19:26:40.933Z")
            #expect((purchase["price"] as? [String: Any])?["amount"] as? String == "2.99")
        }
    }

    @Test func aRefundNotificationCarriesARefundedPurchase() async throws {
        let result = try await verify(notification("REFUND", subtype: nil, nested: true))
        #expect(result.status == 0, "\(result.standardError)")
        let purchase = try #require(try json(result)["purchase"] as? [String: Any])
        #expect(purchase["state"] as? String == "refunded")
        #expect((purchase["refundedAmount"] as? [String: Any])?["amount"] as? String == "2.99")
    }

    @Test func aTestNotificationFromTheSandboxVerifiesWhenTheSandboxIsAccepted() async throws {
        let test = notification("TEST", subtype: nil, environment: "Sandbox", nested: false)
        #expect(try await verify(test).status == 2)
        let result = try await verify(test, ["--environment", "sandbox"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try json(result)["notificationType"] as? String == "TEST")
        #expect(try json(result)["purchase"] == nil)
    }

    @Test func renewalInfoVerifiesOnItsOwn() async throws {
        let result = try await verify(renewalInfo())
        #expect(result.status == 0, "\(result.standardError)")
        let object = try json(result)
        #expect(object["kind"] as? String == "renewalInfo")
        #expect(object["willRenew"] as? Bool == true)
        #expect(object["renewalDate"] as? String == "2023-12-14T22:13:20.000Z")
    }

    @Test func alteredPayloadsAndForeignRootsExitTwo() async throws {
        let other = try MockAppleCA()
        for signed in [notification("SUBSCRIBED", subtype: "RESUBSCRIBE", nested: true), renewalInfo(), transaction()] {
            let parts = signed.split(separator: ".").map(String.init)
            let foreign = other.signJWS(payload: Data(#"{"notificationType":"TEST","signedDate":1700000000000}"#.utf8))
            let altered = [parts[0], String(foreign.split(separator: ".")[1]), parts[2]].joined(separator: ".")
            let alteredResult = try await verify(altered)
            #expect(alteredResult.status == 2)
            #expect(alteredResult.standardError.contains("invalidSignature"))
            let foreignRoot = try await verify(signed, root: other.rootCertificateDER)
            #expect(foreignRoot.status == 2)
            #expect(foreignRoot.standardError.contains("untrustedChain"))
        }
    }

    @Test func garbageIsNotVerifiedRatherThanAUsageError() async throws {
        for contents in ["garbage", String(repeating: "A", count: 2_000_000), #"{"signedPayload": 3}"#, "a.b.c"] {
            let result = try await verify(contents)
            #expect(!result.trapped)
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.hasPrefix("not verified:"))
        }
    }
}

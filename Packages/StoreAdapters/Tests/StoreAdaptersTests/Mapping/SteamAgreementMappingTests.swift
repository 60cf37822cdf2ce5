import Foundation
import OpenCatCore
import Testing

@testable import StoreAdapters

/// Steam recurring billing agreements → ``VerifiedPurchase``, and the agreement calls' requests.
struct SteamAgreementMappingTests {
    static func agreement(_ status: String, failed: Int = 0, outstanding: Int = 0) throws -> SteamAgreement {
        try JSONDecoder().decode(
            SteamAgreement.self,
            from: Data(
                #"{"agreementid":"44","itemid":2001,"status":"\#(status)","period":"Month","frequency":1,"billingtype":"Steam","startdate":"20261101","enddate":"20261201","recurringamt":"999","currency":"USD","nextpayment":"20261201","lastpayment":"20261101","outstanding":\#(outstanding),"failedattempts":"\#(failed)"}"#
                    .utf8
            )
        )
    }

    static let proof = PurchaseProof(
        store: .steam,
        kind: .steamAgreement,
        token: "44",
        productId: "2001",
        context: ["steamid": "76561197960287930"]
    )

    static let table: [(String, Int, Int, VerifiedPurchase.State?)] = [
        ("Active", 0, 0, .active), ("Active", 1, 0, .billingRetry), ("Active", 0, 999, .billingRetry),
        ("Inactive", 0, 0, .expired), ("Canceled", 0, 0, .expired), ("Frozen", 0, 0, nil),
    ]

    @Test(arguments: table)
    func everyStatusMaps(_ status: String, _ failed: Int, _ outstanding: Int, _ expected: VerifiedPurchase.State?)
        throws
    {
        let agreement = try Self.agreement(status, failed: failed, outstanding: outstanding)
        guard let expected else {
            #expect {
                try SteamAdapter.purchase(
                    from: agreement,
                    steamId: "76561197960287930",
                    proof: Self.proof,
                    sandbox: false,
                    verifiedAt: nil,
                    now: Date(timeIntervalSince1970: 1_796_100_000)
                )
            } throws: { ($0 as? StoreAdapterError)?.code == .malformedResponse }
            return
        }
        let purchase = try SteamAdapter.purchase(
            from: agreement,
            steamId: "76561197960287930",
            proof: Self.proof,
            sandbox: false,
            verifiedAt: nil,
            now: Date(timeIntervalSince1970: 1_796_100_000)
        )
        #expect(purchase.state == expected)
        #expect(purchase.price == Money(minorUnits: 999, currency: "USD", exponent: 2))
        #expect(purchase.productId == "2001" && purchase.purchaser == "76561197960287930")
        if expected == .active {
            #expect(purchase.expirationDate == SteamDay.parse("20261201") && purchase.willRenew)
        }
    }

    @Test func datesAreCheckedAndAnotherItemIsAMismatch() throws {
        #expect(SteamDay.parse("20261341") == nil)
        #expect(SteamDay.parse("2026120") == nil)
        #expect(SteamDay.parse("20261201") == Date(timeIntervalSince1970: 1_796_083_200))
        let other = PurchaseProof(
            store: .steam,
            kind: .steamAgreement,
            token: "44",
            productId: "9",
            context: ["steamid": "76561197960287930"]
        )
        #expect {
            try SteamAdapter.purchase(
                from: try Self.agreement("Active"),
                steamId: "76561197960287930",
                proof: other,
                sandbox: false,
                verifiedAt: nil,
                now: Date(timeIntervalSince1970: 1_796_100_000)
            )
        } throws: { ($0 as? StoreAdapterError)?.code == .productMismatch }
    }

    @Test func aCancelledAgreementLastsUntilItsEndDate() throws {
        let purchase = try SteamAdapter.purchase(
            from: try Self.agreement("Canceled"),
            steamId: "76561197960287930",
            proof: Self.proof,
            sandbox: false,
            verifiedAt: nil,
            now: Date(timeIntervalSince1970: 1_795_000_000)
        )
        #expect(purchase.state == .active && !purchase.willRenew)
        #expect(purchase.expirationDate == SteamDay.parse("20261201"))
    }
}

import Foundation
import OpenCatCore
import OpenCatTesting
import Testing

struct EntitlementEngineTests {
    static let now = Fixture.epoch
    static let hour: TimeInterval = 3600
    static let map: EntitlementMap = [
        "pro.monthly": ["pro"], "pro.yearly": ["pro"], "pro.lifetime": ["pro", "extras"], "extras.pack": ["extras"],
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var transactions: [TransactionInfo]
        var reference: Date = EntitlementEngineTests.now
        var expectActive: Bool
        var expectExpiration: Date?? = .none
        var expectProduct: String? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "an active subscription before its expiry grants",
            transactions: [Fixture.transaction("1", product: "pro.monthly", expires: now + hour)],
            expectActive: true,
            expectExpiration: .some(now + hour)
        ),
        Case(
            name: "an active subscription at exactly its expiry does not grant",
            transactions: [Fixture.transaction("1", product: "pro.monthly", expires: now)],
            expectActive: false
        ),
        Case(
            name: "an expiry one second ahead still grants (no arbitrary offline timeout)",
            transactions: [Fixture.transaction("1", product: "pro.monthly", expires: now + 1)],
            expectActive: true
        ),
        Case(
            name: "an expiry far in the future grants with no offline timeout",
            transactions: [Fixture.transaction("1", product: "pro.yearly", expires: now + 300 * 24 * hour)],
            expectActive: true
        ),
        Case(
            name: "an expired status grants nothing",
            transactions: [Fixture.transaction("1", product: "pro.monthly", expires: now + hour, status: .expired)],
            expectActive: false
        ),
        Case(
            name: "a refund revokes even before the expiry",
            transactions: [Fixture.transaction("1", product: "pro.monthly", expires: now + hour, status: .refunded)],
            expectActive: false
        ),
        Case(
            name: "a refunded lifetime purchase revokes",
            transactions: [Fixture.transaction("1", product: "pro.lifetime", status: .refunded)],
            expectActive: false
        ),
        Case(
            name: "a grace period grants past the expiry until the grace end",
            transactions: [
                Fixture.transaction(
                    "1",
                    product: "pro.monthly",
                    expires: now - hour,
                    status: .gracePeriod,
                    grace: now + hour
                )
            ],
            expectActive: true,
            expectExpiration: .some(now + hour)
        ),
        Case(
            name: "a grace period that has ended does not grant",
            transactions: [
                Fixture.transaction(
                    "1",
                    product: "pro.monthly",
                    expires: now - 2 * hour,
                    status: .gracePeriod,
                    grace: now - hour
                )
            ],
            expectActive: false
        ),
        Case(
            name: "billing retry does not grant",
            transactions: [
                Fixture.transaction("1", product: "pro.monthly", expires: now + hour, status: .billingRetry)
            ],
            expectActive: false
        ),
        Case(
            name: "a pending payment does not grant",
            transactions: [Fixture.transaction("1", product: "pro.monthly", status: .pending)],
            expectActive: false
        ),
        Case(
            name: "a lifetime purchase grants with no expiration",
            transactions: [Fixture.transaction("1", product: "pro.lifetime")],
            expectActive: true,
            expectExpiration: .some(nil)
        ),
        Case(
            name: "lifetime beats a later-expiring subscription",
            transactions: [
                Fixture.transaction("1", product: "pro.yearly", expires: now + 9000 * hour),
                Fixture.transaction("2", product: "pro.lifetime"),
            ],
            expectActive: true,
            expectExpiration: .some(nil),
            expectProduct: "pro.lifetime"
        ),
        Case(
            name: "the latest expiry wins across products",
            transactions: [
                Fixture.transaction("1", product: "pro.yearly", expires: now + 5 * hour),
                Fixture.transaction("2", product: "pro.monthly", expires: now + 9 * hour),
            ],
            expectActive: true,
            expectExpiration: .some(now + 9 * hour),
            expectProduct: "pro.monthly"
        ),
        Case(
            name: "an active subscription wins over a refunded one",
            transactions: [
                Fixture.transaction("1", product: "pro.yearly", expires: now + 90 * hour, status: .refunded),
                Fixture.transaction("2", product: "pro.monthly", expires: now + 2 * hour),
            ],
            expectActive: true,
            expectProduct: "pro.monthly"
        ),
        Case(
            name: "a product that maps to no entitlement grants nothing",
            transactions: [Fixture.transaction("1", product: "unmapped.product")],
            expectActive: false
        ),
    ]

    @Test(arguments: cases)
    func proEntitlement(_ testCase: Case) {
        let result = EntitlementEngine.entitlements(for: testCase.transactions, map: Self.map, at: testCase.reference)
        #expect((result["pro"]?.isActive ?? false) == testCase.expectActive)
        if case .some(let expected) = testCase.expectExpiration {
            #expect(result["pro"]?.expirationDate == expected)
        }
        if let product = testCase.expectProduct {
            #expect(result["pro"]?.productId == product)
        }
    }

    @Test func oneProductCanGrantSeveralEntitlements() {
        let result = EntitlementEngine.entitlements(
            for: [Fixture.transaction("1", product: "pro.lifetime")],
            map: Self.map,
            at: Self.now
        )
        #expect(Set(result.keys) == ["pro", "extras"])
        #expect(result.values.allSatisfy { $0.isActive })
    }

    @Test func windingTheDeviceClockBackDoesNotReviveAnExpiredEntitlement() {
        let transactions = [Fixture.transaction("1", product: "pro.monthly", expires: Self.now + Self.hour)]
        let confirmed = Self.now + 2 * Self.hour  // the server saw a time after the expiry
        let deviceRolledBack = Self.now  // the user set the device clock back
        let reference = EntitlementEngine.referenceTime(deviceNow: deviceRolledBack, lastConfirmed: confirmed)
        #expect(reference == confirmed)
        #expect(
            EntitlementEngine.entitlements(for: transactions, map: Self.map, at: reference)["pro"]?.isActive == false
        )
        // Without the confirmed time the rolled-back clock would have revived it.
        #expect(
            EntitlementEngine.entitlements(for: transactions, map: Self.map, at: deviceRolledBack)["pro"]?.isActive
                == true
        )
    }

    @Test func aDeviceClockAheadOfTheConfirmedTimeIsUsed() {
        let later = Self.now + 10 * Self.hour
        #expect(EntitlementEngine.referenceTime(deviceNow: later, lastConfirmed: Self.now) == later)
        #expect(EntitlementEngine.referenceTime(deviceNow: later, lastConfirmed: nil) == later)
    }

    @Test func willRenewIsReportedOnlyForAnActiveRenewingSubscription() {
        let renewing = [
            Fixture.transaction("1", product: "pro.monthly", expires: Self.now + Self.hour, willRenew: true)
        ]
        #expect(EntitlementEngine.entitlements(for: renewing, map: Self.map, at: Self.now)["pro"]?.willRenew == true)
        #expect(
            EntitlementEngine.entitlements(for: renewing, map: Self.map, at: Self.now + 2 * Self.hour)["pro"]?.willRenew
                == false
        )
    }
}

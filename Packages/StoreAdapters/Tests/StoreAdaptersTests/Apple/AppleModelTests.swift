import Foundation
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

struct AppleModelTests {
    @Test func millisecondDatesAndMilliUnitPricesDecodeExactly() throws {
        let json =
            #"{"transactionId":"23456","purchaseDate":1698148900123,"expiresDate":1698149000000,"price":10990,"currency":"USD","quantity":2}"#
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(transaction.purchaseDate == Date(timeIntervalSince1970: 1_698_148_900.123))
        #expect(transaction.price == 10_990)
        #expect(transaction.quantity == 2)
        let encoded = try JSONEncoder().encode(transaction)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect((object["purchaseDate"] as? NSNumber)?.int64Value == 1_698_148_900_123)
    }

    @Test func unknownEnumeratedValuesSurviveARoundTrip() throws {
        let json =
            #"{"type":"Future Product Type","environment":"Staging","inAppOwnershipType":"BORROWED","offerType":9,"revocationReason":7,"transactionReason":"GIFT","offerDiscountType":"NEW","revocationType":"REFUND_PARTIAL"}"#
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(transaction.type == nil)
        #expect(transaction.rawType == "Future Product Type")
        #expect(transaction.environment == nil)
        #expect(transaction.rawEnvironment == "Staging")
        #expect(transaction.rawOfferType == 9)
        #expect(transaction.rawRevocationReason == 7)
        let again = try JSONDecoder().decode(
            JWSTransactionDecodedPayload.self,
            from: try JSONEncoder().encode(transaction)
        )
        #expect(again == transaction)
    }

    @Test func knownEnumeratedValuesAreTyped() throws {
        let json =
            #"{"type":"Consumable","environment":"Sandbox","inAppOwnershipType":"FAMILY_SHARED","offerType":4,"revocationReason":1,"transactionReason":"RENEWAL","offerDiscountType":"FREE_TRIAL","revocationType":"FAMILY_REVOKE"}"#
        var transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(transaction.type == .consumable)
        #expect(transaction.environment == .sandbox)
        #expect(transaction.inAppOwnershipType == .familyShared)
        #expect(transaction.offerType == .winBackOffer)
        #expect(transaction.revocationReason == .appIssue)
        #expect(transaction.transactionReason == .renewal)
        #expect(transaction.offerDiscountType == .freeTrial)
        #expect(transaction.revocationType == .familyRevoke)
        transaction.type = .nonConsumable
        #expect(transaction.rawType == "Non-Consumable")
    }

    @Test func renewalInfoDecodesEveryDocumentedField() throws {
        let json = #"""
            {"expirationIntent":1,"originalTransactionId":"12345","autoRenewProductId":"p2","productId":"p1","autoRenewStatus":1,
             "isInBillingRetryPeriod":true,"priceIncreaseStatus":0,"gracePeriodExpiresDate":1698148900000,"offerType":2,
             "offerIdentifier":"abc.123","signedDate":1698148800000,"environment":"LocalTesting",
             "recentSubscriptionStartDate":1698148800000,"renewalDate":1698148850000,"renewalPrice":9990,"currency":"USD",
             "offerDiscountType":"PAY_AS_YOU_GO","eligibleWinBackOfferIds":["a","b"],"appTransactionId":"71134",
             "offerPeriod":"P1Y","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","somethingNew":{"x":1}}
            """#
        let info = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: Data(json.utf8))
        #expect(info.expirationIntent == .customerCancelled)
        #expect(info.autoRenewStatus == .on)
        #expect(info.isInBillingRetryPeriod == true)
        #expect(info.priceIncreaseStatus == .customerHasNotResponded)
        #expect(info.gracePeriodExpiresDate == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(info.offerType == .promotionalOffer)
        #expect(info.environment == .localTesting)
        #expect(info.renewalPrice == 9990)
        #expect(info.offerDiscountType == .payAsYouGo)
        #expect(info.eligibleWinBackOfferIds == ["a", "b"])
        #expect(info.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(
            try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: try JSONEncoder().encode(info)) == info
        )
    }

    @Test func aNotificationPayloadDecodesItsDataAndKeepsTheSignedPartsSecret() throws {
        let json = #"""
            {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
             "data":{"environment":"Sandbox","appAppleId":41234,"bundleId":"com.example","bundleVersion":"1.2.3",
                     "signedTransactionInfo":"header.payload.signature","signedRenewalInfo":"h.p.s","status":1,
                     "consumptionRequestReason":"UNINTENDED_PURCHASE"},
             "version":"2.0","signedDate":1698148900000}
            """#
        let payload = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
        #expect(payload.notificationType == .subscribed)
        #expect(payload.subtype == .initialBuy)
        #expect(payload.data?.environment == .sandbox)
        #expect(payload.data?.appAppleId == 41234)
        #expect(payload.data?.status == .active)
        #expect(payload.data?.signedTransactionInfo?.revealed == "header.payload.signature")
        #expect(payload.data?.consumptionRequestReason == "UNINTENDED_PURCHASE")
        #expect(!String(describing: payload).contains("header.payload.signature"))
        #expect(
            !String(decoding: try JSONEncoder().encode(payload), as: UTF8.self).contains("header.payload.signature")
        )
    }

    @Test func summaryAndExternalPurchaseTokenNotificationsDecode() throws {
        let summary = try JSONDecoder().decode(
            ResponseBodyV2DecodedPayload.self,
            from: Data(
                #"""
                {"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","summary":{"environment":"LocalTesting","appAppleId":41234,
                 "bundleId":"com.example","productId":"p","requestIdentifier":"r","storefrontCountryCodes":["CAN","USA"],
                 "succeededCount":5,"failedCount":2},"version":"2.0","signedDate":1698148900000}
                """#.utf8
            )
        )
        #expect(summary.subtype == .summary)
        #expect(summary.summary?.storefrontCountryCodes == ["CAN", "USA"])
        #expect(summary.summary?.succeededCount == 5)
        let token = try JSONDecoder().decode(
            ResponseBodyV2DecodedPayload.self,
            from: Data(
                #"""
                {"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","externalPurchaseToken":
                 {"externalPurchaseId":"SANDBOX_b2158121","tokenCreationDate":1698148950000,"appAppleId":55555,"bundleId":"com.example"}}
                """#.utf8
            )
        )
        #expect(token.notificationType == .externalPurchaseToken)
        #expect(token.externalPurchaseToken?.environment == .sandbox)
        #expect(token.externalPurchaseToken?.tokenCreationDate == Date(timeIntervalSince1970: 1_698_148_950))
    }

    @Test func appleErrorBodiesDecode() throws {
        let body = try JSONDecoder().decode(
            AppStore.ErrorPayload.self,
            from: Data(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8)
        )
        #expect(body.errorCode == 4_040_010)
    }
}

import Foundation
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct GoogleWireFormatTests {
    @Test(
        arguments: [
            ("2023-04-05T05:44:29Z", 1_680_673_469, 0),
            ("2023-04-05T05:44:29.7Z", 1_680_673_469, 700_000_000),
            ("2023-04-05T05:44:29.723Z", 1_680_673_469, 723_000_000),
            ("2023-04-05T05:44:29.723456Z", 1_680_673_469, 723_456_000),
            ("2023-04-05T05:44:29.723456789Z", 1_680_673_469, 723_456_789),
            ("2023-04-05t05:44:29.000000001z", 1_680_673_469, 1),
            ("2014-10-02T15:01:23+05:30", 1_412_242_283, 0),
            ("2014-10-02T15:01:23.045123456-08:00", 1_412_290_883, 45_123_456),
            ("1970-01-01T00:00:00Z", 0, 0),
            ("1969-12-31T23:59:59.5Z", -1, 500_000_000),
            ("2000-02-29T12:00:00Z", 951_825_600, 0),
            ("2016-12-31T23:59:60Z", 1_483_228_800, 0),
        ] as [(String, Int64, Int32)]
    )
    func rfc3339TimestampsKeepUpToNineFractionDigits(text: String, seconds: Int64, nanoseconds: Int32) throws {
        let instant = try #require(RFC3339Timestamp.instant(from: text))
        #expect(instant == RFC3339Timestamp.Instant(seconds: seconds, nanoseconds: nanoseconds))
        let date = try #require(RFC3339Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - (Double(seconds) + Double(nanoseconds) / 1e9)) < 0.000_001)
    }

    @Test func rfc3339MillisecondsMatchTheISO8601Parser() throws {
        let text = "2022-11-21T01:54:51.937Z"
        let iso = try Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
        #expect(RFC3339Timestamp.date(from: text) == iso)
    }

    @Test(arguments: [
        "", "2023-04-05", "2023-04-05T05:44:29", "2023-04-05T05:44:29.Z", "2023-04-05T05:44:29.1234567891Z",
        "2023-13-05T05:44:29Z", "2023-02-29T05:44:29Z", "2023-04-31T00:00:00Z", "2023-04-05T24:00:00Z",
        "2023-04-05T05:60:00Z", "2023-04-05 05:44:29Z", "2023-04-05T05:44:29+0530", "2023-04-05T05:44:29Z ",
        "+2023-04-05T05:44:29Z", "2023-04-05T05:44:29+24:00", "２０２３-04-05T05:44:29Z",
    ])
    func invalidRFC3339TimestampsAreRejected(text: String) {
        #expect(RFC3339Timestamp.instant(from: text) == nil)
    }

    @Test func int64ValuesDecodeFromStringsAndNumbersAndEncodeAsStrings() throws {
        struct Box: Codable { var value: FlexibleInt64 }
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Box.self, from: Data(#"{"value":"9223372036854775807"}"#.utf8)).value.value == .max)
        #expect(try decoder.decode(Box.self, from: Data(#"{"value":-42}"#.utf8)).value.value == -42)
        #expect(throws: DecodingError.self) { try decoder.decode(Box.self, from: Data(#"{"value":"12abc"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Box.self, from: Data(#"{"value":1.5}"#.utf8)) }
        let encoded = String(
            decoding: try JSONEncoder().encode(Box(value: FlexibleInt64(1_410_835_105_408))),
            as: UTF8.self
        )
        #expect(encoded == #"{"value":"1410835105408"}"#)
    }

    @Test func unknownEnumValuesSurviveARoundTrip() throws {
        let json = #"{"purchaseState":9,"acknowledgementState":0,"purchaseType":5,"purchaseTimeMillis":"1"}"#
        let purchase = try JSONDecoder().decode(ProductPurchase.self, from: Data(json.utf8))
        #expect(purchase.purchaseState?.rawValue == 9)
        #expect(purchase.acknowledgementState == .yetToBeAcknowledged)
        let again = try JSONDecoder().decode(ProductPurchase.self, from: try JSONEncoder().encode(purchase))
        #expect(again == purchase)

        let subscription = try JSONDecoder().decode(
            SubscriptionPurchaseV2.self,
            from: Data(#"{"subscriptionState":"SUBSCRIPTION_STATE_FUTURE"}"#.utf8)
        )
        #expect(subscription.subscriptionState?.rawValue == "SUBSCRIPTION_STATE_FUTURE")
    }

    @Test func googleMoneyIsExactAndRejectsMixedSigns() {
        #expect(
            GooglePlayMoney(currencyCode: "USD", units: FlexibleInt64(-1), nanos: -750_000_000).money?.amount
                == Decimal(string: "-1.75")!
        )
        #expect(GooglePlayMoney(currencyCode: "USD", units: FlexibleInt64(1), nanos: -1).money == nil)
        #expect(GooglePlayMoney(currencyCode: nil, units: FlexibleInt64(1), nanos: 0).money == nil)
    }
}

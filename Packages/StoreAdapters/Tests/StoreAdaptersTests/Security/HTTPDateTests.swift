import Foundation
import HTTPTypes
import Testing

@testable import StoreAdapters

/// Security issue item 10: the store's `Date` header, parsed strictly, is the verification time.
struct HTTPDateTests {
    @Test func imfFixdateParsesExactly() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Tue, 14 Nov 2023 22:13:20 GMT") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: [
        "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Mon, 06 Nov 1994 08:49:37 GMT", "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ", "Fri, 29 Feb 2023 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3a GMT",
        "Wed, 31 Dec 1969 23:59:59 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT",
    ])
    func anythingElseIsNil(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func headerFieldsAreRead() {
        var fields = HTTPFields()
        #expect(HTTPDate.of(fields) == nil)
        fields[.date] = "Tue, 14 Nov 2023 22:13:20 GMT"
        #expect(HTTPDate.of(fields) == Date(timeIntervalSince1970: 1_700_000_000))
    }
}

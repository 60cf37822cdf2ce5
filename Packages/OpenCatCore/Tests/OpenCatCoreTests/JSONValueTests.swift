import Foundation
import OpenCatCore
import Testing

/// The kernel's one JSON value: exact numbers, stable wire form.
struct JSONValueTests {
    @Test func numbersKeepEveryDigitAndNeverPassThroughDouble() throws {
        let text =
            #"{"big":123456789012345678901234567890,"cents":0.1,"neg":-9223372036854775808,"max":18446744073709551615}"#
        let value = try JSONValue(parsing: Data(text.utf8))
        #expect(value["big"] == .number("123456789012345678901234567890"))
        #expect(value["cents"]?.decimalValue == Decimal(string: "0.1"))
        #expect(value["neg"]?.int64Value == Int64.min)
        #expect(value["max"] == .number("18446744073709551615"))
        // Encoding and decoding again gives the same value (0.1 stays 0.1, not 0.1000000000000000055…).
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
        #expect(String(decoding: try JSONEncoder().encode(value["cents"]), as: UTF8.self) == "0.1")
    }

    @Test func equalityIsByValueAndTheCanonicalTextIsSorted() throws {
        #expect(JSONValue.number("1.50") == .number("1.5"))
        #expect(Set([JSONValue.number("1.50"), .number("1.5")]).count == 1)
        let value: JSONValue = ["b": [true, nil, "x\n"], "a": 1]
        #expect(value.canonicalText == #"{"a":1,"b":[true,null,"x\n"]}"#)
        #expect(try JSONValue(parsing: value.serialized()) == value)
        #expect(value["b"]?[2]?.stringValue == "x\n" && value["a"]?.typeName == "number")
    }
}

import Foundation
import MockStores
import OpenCatTesting
import Testing

struct JSONValueTests {
    @Test func numbersKeepEveryDigitThroughDecodingAndSerialization() throws {
        let value = try JSONValue(
            parsing: Data(
                #"{"big": 12345678901234567890.123456789, "int": 9223372036854775807, "u": 18446744073709551615, "small": 0.1, "neg": -42}"#
                    .utf8
            )
        )
        #expect(
            value.canonicalText
                == #"{"big":12345678901234567890.123456789,"int":9223372036854775807,"neg":-42,"small":0.1,"u":18446744073709551615}"#
        )
    }

    @Test func numbersCompareByValueNotSpelling() throws {
        let a = try JSONValue(parsing: Data(#"{"amount": 1.50, "n": 1e2}"#.utf8))
        let b: JSONValue = ["amount": .number("1.5"), "n": 100]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(JSONValue.number("0.1") != JSONValue.number("0.10000000000000001"))
    }

    @Test func keyOrderAndWhitespaceAreIgnored() throws {
        let a = try JSONValue(parsing: Data(#"{ "b" : [true, null], "a": "x" }"#.utf8))
        let b = try JSONValue(parsing: Data(#"{"a":"x","b":[true,null]}"#.utf8))
        #expect(a == b)
        #expect(a.serialized() == b.serialized())
    }

    @Test func stringsAreEscapedForJSON() throws {
        let value: JSONValue = ["text": "a \"quote\"\n\\ and \u{01}"]
        #expect(value.canonicalText == #"{"text":"a \"quote\"\n\\ and \u0001"}"#)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func firstDifferenceNamesThePath() {
        let expected: JSONValue = ["a": ["b": [1, 2]], "c": "x"]
        let found: JSONValue = ["a": ["b": [1, 3]], "c": "x"]
        #expect(expected.firstDifference(from: found) == "$.a.b[1]: expected 2, found 3")
        #expect(expected.firstDifference(from: expected) == nil)
        #expect(JSONValue(["a": 1]).firstDifference(from: ["a": 1, "z": true]) == "$.z: not expected (found true)")
    }

    @Test func encodesThroughCodableWithExactNumbers() throws {
        let value: JSONValue = ["price": .number("12345678901234567890.5"), "n": 7, "ok": true, "none": nil]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(String(decoding: data, as: UTF8.self).contains("12345678901234567890.5"))
    }
}

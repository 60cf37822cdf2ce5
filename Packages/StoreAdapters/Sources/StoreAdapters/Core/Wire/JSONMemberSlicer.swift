import Foundation

/// Finds the exact bytes of a value nested in a JSON document, without re-encoding it.
///
/// Webhook payloads are signed byte for byte, so an event's `data.object` (Stripe) or `resource` (PayPal) is kept
/// exactly as received. The document must already be known to be valid JSON (it is decoded alongside); this
/// scanner only tracks strings, escapes and nesting to find where a value starts and ends.
enum JSONMemberSlicer {
    /// The raw bytes of the value at a path of object keys (`["data", "object"]`), or `nil` if there is none.
    static func value(at path: [String], in data: Data) -> Data? {
        let bytes = [UInt8](data)
        var range = 0..<bytes.count
        for key in path {
            guard let member = member(key, inObjectAt: range, of: bytes) else { return nil }
            range = member
        }
        return Data(bytes[range])
    }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    /// The range of `key`'s value in the object that `range` holds (surrounding whitespace allowed).
    private static func member(_ key: String, inObjectAt range: Range<Int>, of bytes: [UInt8]) -> Range<Int>? {
        var index = skipWhitespace(from: range.lowerBound, in: bytes, end: range.upperBound)
        guard index < range.upperBound, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while true {
            index = skipWhitespace(from: index, in: bytes, end: range.upperBound)
            guard index < range.upperBound, bytes[index] == quote else { return nil }
            guard let keyEnd = endOfString(startingAt: index, in: bytes, end: range.upperBound) else { return nil }
            let name = try? JSONDecoder().decode(String.self, from: Data(bytes[index..<keyEnd]))
            index = skipWhitespace(from: keyEnd, in: bytes, end: range.upperBound)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipWhitespace(from: index + 1, in: bytes, end: range.upperBound)
            guard let valueEnd = endOfValue(startingAt: valueStart, in: bytes, end: range.upperBound) else {
                return nil
            }
            if name == key { return valueStart..<valueEnd }
            index = skipWhitespace(from: valueEnd, in: bytes, end: range.upperBound)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    private static func skipWhitespace(from start: Int, in bytes: [UInt8], end: Int) -> Int {
        var index = start
        while index < end, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index just past the string that starts (with its quote) at `start`.
    private static func endOfString(startingAt start: Int, in bytes: [UInt8], end: Int) -> Int? {
        var index = start + 1
        while index < end {
            switch bytes[index] {
            case backslash: index += 2
            case quote: return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index just past the value that starts at `start`.
    private static func endOfValue(startingAt start: Int, in bytes: [UInt8], end: Int) -> Int? {
        guard start < end else { return nil }
        switch bytes[start] {
        case quote:
            return endOfString(startingAt: start, in: bytes, end: end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < end {
                switch bytes[index] {
                case quote:
                    guard let next = endOfString(startingAt: index, in: bytes, end: end) else { return nil }
                    index = next
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            let delimiters: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D]
            while index < end, !delimiters.contains(bytes[index]) { index += 1 }
            return index > start ? index : nil
        }
    }
}

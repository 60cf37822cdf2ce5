import Foundation

/// Finds the top-level `"signedDate"` integer of a JSON object without decoding the whole payload, so that
/// ``AppleJWSVerifier/verifyPayload(_:)`` can date the chain check cheaply.
///
/// Anything unusual (an escaped key, a repeated key, a non-integer value, malformed JSON) answers
/// ``Result/undetermined``, and the caller falls back to `JSONDecoder`, so the result always agrees with it.
enum AppleSignedDateScanner {
    enum Result: Equatable {
        /// The key is present with this integer value.
        case found(Int64)
        /// The key is absent (or `null`).
        case absent
        /// Not decided here; use a full JSON decoder.
        case undetermined
    }

    private static let key = Array("signedDate".utf8)

    static func scan(_ json: UnsafeBufferPointer<UInt8>) -> Result {
        var scanner = Scanner(bytes: json)
        return scanner.scanObject() ?? .undetermined
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// Scans the top-level object; `nil` means undetermined.
        mutating func scanObject() -> Result? {
            skipWhitespace()
            guard expect(UInt8(ascii: "{")) else { return nil }
            var result = Result.absent
            var seen = false
            skipWhitespace()
            if expect(UInt8(ascii: "}")) { return trailingIsEmpty() ? result : nil }
            while true {
                skipWhitespace()
                guard let (start, end, escaped) = scanString(), !escaped else { return nil }
                skipWhitespace()
                guard expect(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                if end - start == key.count, bytes[start..<end].elementsEqual(key) {
                    guard !seen else { return nil }
                    seen = true
                    guard let value = scanSignedDateValue() else { return nil }
                    result = value
                } else {
                    guard skipValue(depth: 0) else { return nil }
                }
                skipWhitespace()
                if expect(UInt8(ascii: ",")) { continue }
                if expect(UInt8(ascii: "}")) { return trailingIsEmpty() ? result : nil }
                return nil
            }
        }

        mutating func trailingIsEmpty() -> Bool {
            skipWhitespace()
            return index == bytes.count
        }

        /// Scans a string starting at `"`; returns the content range and whether it holds escapes.
        mutating func scanString() -> (Int, Int, Bool)? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var escaped = false
            while let byte = current {
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return (start, index - 1, escaped)
                }
                if byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// The value of `signedDate`: a plain integer, or `null`.
        mutating func scanSignedDateValue() -> Result? {
            if current == UInt8(ascii: "n") {
                guard skipLiteral("null") else { return nil }
                return .absent
            }
            let negative = expect(UInt8(ascii: "-"))
            var value: Int64 = 0
            var digits = 0
            while let byte = current, byte >= 0x30, byte <= 0x39 {
                let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (added, overflow2) = multiplied.addingReportingOverflow(Int64(byte - 0x30))
                guard !overflow1, !overflow2 else { return nil }
                value = added
                digits += 1
                index += 1
            }
            guard digits > 0, current != UInt8(ascii: "."), current != UInt8(ascii: "e"), current != UInt8(ascii: "E")
            else { return nil }
            return .found(negative ? -value : value)
        }

        mutating func skipLiteral(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// Skips any JSON value (strings, numbers, literals, nested arrays and objects).
        mutating func skipValue(depth: Int) -> Bool {
            guard depth < 64, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                return scanString() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipWhitespace()
                if expect(close) { return true }
                while true {
                    skipWhitespace()
                    if byte == UInt8(ascii: "{") {
                        guard scanString() != nil else { return false }
                        skipWhitespace()
                        guard expect(UInt8(ascii: ":")) else { return false }
                        skipWhitespace()
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipWhitespace()
                    if expect(UInt8(ascii: ",")) { continue }
                    return expect(close)
                }
            default:
                // Numbers and literals run to the next delimiter.
                let start = index
                while let next = current, next != UInt8(ascii: ","), next != UInt8(ascii: "}"),
                    next != UInt8(ascii: "]"),
                    next != 0x20, next != 0x0A, next != 0x0D, next != 0x09
                {
                    index += 1
                }
                return index > start
            }
        }
    }
}

extension AppleSignedDateScanner {
    /// The payload's `signedDate`, scanned cheaply, or decoded when the scan cannot decide.
    static func signedDate(in payload: [UInt8]) throws -> Date? {
        switch payload.withUnsafeBufferPointer(AppleSignedDateScanner.scan) {
        case .found(let milliseconds): return AppleMilliseconds.date(milliseconds)
        case .absent: return nil
        case .undetermined:
            struct SignedDateOnly: DecodedSignedData {
                var signedDate: Date?
                init(from decoder: any Decoder) throws {
                    signedDate = try decoder.container(keyedBy: CodingKeys.self).decodeAppStoreDateIfPresent(
                        forKey: .signedDate
                    )
                }
                enum CodingKeys: String, CodingKey { case signedDate }
            }
            do {
                return try JSONDecoder().decode(SignedDateOnly.self, from: Data(payload)).signedDate
            } catch {
                throw AppleJWSCheck.malformedJWS.error(
                    "the JWS payload is not a readable JSON object: \(StoreHTTP.summary(of: error))"
                )
            }
        }
    }
}

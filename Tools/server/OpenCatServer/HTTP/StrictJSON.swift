import Foundation

/// Checks a request body is JSON as the server's APIs define it, before it is decoded: UTF-8 text (RFC 8259), no
/// object with the same member name twice (compared after unescaping: decoders silently keep one of them), numbers
/// that are integers (no fraction or exponent: every number the APIs take is a count or an amount in minor units),
/// nesting at most 64 deep.
struct StrictJSON {
    /// Why a body is not strict JSON (no byte of the body is quoted).
    struct Problem: Error, Equatable {
        var message: String
    }

    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Throws the first problem found.
    static func check(_ data: Data) throws(Problem) {
        guard String(data: data, encoding: .utf8) != nil else { throw Problem(message: "the body is not UTF-8 JSON") }
        var scanner = StrictJSON(Array(data))
        scanner.skipWhitespace()
        try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.index == scanner.bytes.count else { throw Problem(message: "the body has text after its JSON") }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) throws(Problem) {
        guard depth < Self.maximumDepth else { throw Problem(message: "the body nests deeper than 64") }
        guard let byte = current else { throw Problem(message: "the body is not JSON") }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw Problem(message: "the body is not JSON")
        }
    }

    private mutating func object(depth: Int) throws(Problem) {
        index += 1
        var names = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw Problem(message: "an object member has no name") }
            let name = try string()
            guard names.insert(name).inserted else {
                throw Problem(message: "the member \"\(name.prefix(64))\" appears twice")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw Problem(message: "the body is not JSON") }
            index += 1
            skipWhitespace()
            try value(depth: depth + 1)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw Problem(message: "the body is not JSON")
            }
        }
    }

    private mutating func array(depth: Int) throws(Problem) {
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try value(depth: depth + 1)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw Problem(message: "the body is not JSON")
            }
        }
    }

    private mutating func literal(_ word: String) throws(Problem) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw Problem(message: "the body is not JSON") }
        index += expected.count
    }

    private mutating func number() throws(Problem) {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw Problem(message: "the body is not JSON")
        }
        index += 1
        if first != UInt8(ascii: "0") {
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        }
        if current == UInt8(ascii: ".") || current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            throw Problem(message: "numbers are integers (no fraction or exponent)")
        }
    }

    /// A string, unescaped.
    private mutating func string() throws(Problem) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var start = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars)
        }
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                flush(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(index)
                index += 1
                scalars.append(try escape())
                start = index
            case 0..<0x20:
                throw Problem(message: "a string holds a control character")
            default:
                index += 1
            }
        }
        throw Problem(message: "a string is not closed")
    }

    private mutating func escape() throws(Problem) -> Unicode.Scalar {
        guard let byte = current else { throw Problem(message: "a string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw Problem(message: "a string holds half a surrogate pair") }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw Problem(message: "a string holds half a surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw Problem(message: "a string holds half a surrogate pair")
            }
            return scalar
        default: throw Problem(message: "a string holds an unknown escape")
        }
    }

    private mutating func hex4() throws(Problem) -> UInt32 {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
            bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw Problem(message: "a string holds a bad \\u escape") }
        index += 4
        return value
    }
}

public import Foundation

/// A JSON value whose numbers are exact, never `Double`: OpenCat's one typed JSON (MockStores' cassette bodies,
/// the key server's `serverMetadata`, SNIP-12 typed data, store adapter settings).
///
/// Numbers are kept as decimal text (``number(_:)``). Decoding with `JSONDecoder` reads an integer as `Int64` (or
/// `UInt64`) and any other number as `Decimal`, which keeps every significant digit (up to 38) of the source text;
/// only the *spelling* is normalised: `1.50` becomes `1.5`, `1e3` becomes `1000`, `1.0` becomes `1`. Two numbers are
/// equal when their decimal values are equal, whatever their spelling.
public enum JSONValue: Sendable {
    /// An object. Key order carries no meaning; ``serialized()`` writes keys sorted.
    case object([String: JSONValue])
    /// An array.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// A number, as JSON number text (`"42"`, `"-0.5"`, `"12345678901234567890"`). Must be valid JSON number
    /// syntax: it is written out verbatim.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// A number from an integer.
    public static func integer(_ value: Int64) -> JSONValue { .number(String(value)) }

    /// A number from a decimal value (exact; no binary floating point involved).
    public static func decimal(_ value: Decimal) -> JSONValue { .number(value.description) }

    /// Parses JSON text (an object, array or scalar at the top level).
    /// - Parameter data: UTF-8 JSON.
    /// - Throws: `DecodingError` when the data is not JSON.
    public init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The member of an object, or `nil` (also for values that are not objects).
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The exact decimal value, when this is a number.
    public var decimalValue: Decimal? {
        if case .number(let text) = self { return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
        return nil
    }

    /// The value as an `Int64`, when this is an integral number in range.
    public var int64Value: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A short name of the value's JSON type, for messages.
    public var typeName: String {
        switch self {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }
}

extension JSONValue: Equatable, Hashable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.number, .number):
            if let a = lhs.decimalValue, let b = rhs.decimalValue { return a == b }
            return lhs.numberText == rhs.numberText
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .object(let members):
            hasher.combine(0)
            hasher.combine(members)
        case .array(let elements):
            hasher.combine(1)
            hasher.combine(elements)
        case .string(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .number(let text):
            hasher.combine(3)
            if let value = decimalValue { hasher.combine(value) } else { hasher.combine(text) }
        case .bool(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .null:
            hasher.combine(5)
        }
    }

    private var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value.description)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let members): try container.encode(members)
        case .array(let elements): try container.encode(elements)
        case .string(let value): try container.encode(value)
        case .number(let text):
            if let value = Int64(text) {
                try container.encode(value)
            } else if let value = UInt64(text) {
                try container.encode(value)
            } else if let value = decimalValue {
                try container.encode(value)
            } else {
                throw EncodingError.invalidValue(
                    text,
                    .init(codingPath: encoder.codingPath, debugDescription: "not a JSON number")
                )
            }
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// The value as compact JSON text with object keys sorted: the canonical form used for comparison messages and
    /// for response bodies. Numbers are written as their exact text.
    /// - Returns: UTF-8 JSON.
    public func serialized() -> Data {
        var text = ""
        write(into: &text)
        return Data(text.utf8)
    }

    /// ``serialized()`` as a string.
    public var canonicalText: String {
        var text = ""
        write(into: &text)
        return text
    }

    private func write(into text: inout String) {
        switch self {
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(key, into: &text)
                text += ":"
                members[key]!.write(into: &text)
            }
            text += "}"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(into: &text)
            }
            text += "]"
        case .string(let value): Self.writeString(value, into: &text)
        case .number(let value): text += value
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        }
    }

    private static func writeString(_ value: String, into text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            default:
                if scalar.value < 0x20 {
                    text += "\\u" + String(format: "%04x", scalar.value)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}

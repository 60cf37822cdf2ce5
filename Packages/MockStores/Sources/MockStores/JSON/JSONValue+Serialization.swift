public import Foundation

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

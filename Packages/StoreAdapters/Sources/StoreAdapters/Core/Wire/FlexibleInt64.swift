import Foundation

/// A 64-bit integer that the wire carries either as a JSON string (`"1410835105408"`, the Google APIs' and
/// Steam's form for int64) or as a JSON number. Decodes both; encodes the string form.
struct FlexibleInt64: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value.
    var value: Int64

    init(_ value: Int64) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
            return
        }
        let text = try container.decode(String.self)
        guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a 64-bit integer")
        }
        value = number
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }

    var description: String { String(value) }
}

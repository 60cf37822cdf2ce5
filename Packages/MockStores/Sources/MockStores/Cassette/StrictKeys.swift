/// A coding key for any member name: lets a cassette type list the keys it was given and refuse unknown ones, so a
/// typo (`"stauts"`) is reported with its path instead of being silently ignored.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws `DecodingError.dataCorrupted` at the first member not in `allowed` (sorted by name).
    func rejectUnknownKeys(allowed: Set<String>) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        let unknown = container.allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
        if let first = unknown.first {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [AnyCodingKey(first)],
                    debugDescription: "unknown field (allowed: \(allowed.sorted().joined(separator: ", ")))"
                )
            )
        }
    }
}

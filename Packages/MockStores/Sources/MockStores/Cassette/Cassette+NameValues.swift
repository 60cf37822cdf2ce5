extension Cassette {
    /// Query or form fields: each name maps to one value (`"expand[]": "latest_charge"`) or to several in order
    /// (`"expand[]": ["latest_charge", "customer"]`) for a repeated name. Values are decoded (not percent-encoded).
    public struct NameValues: Sendable, Hashable, Codable {
        /// Name → values, in the order they are expected.
        public var fields: [String: [String]]

        /// Creates fields.
        public init(_ fields: [String: [String]] = [:]) { self.fields = fields }

        /// Creates fields with one value per name.
        public init(single fields: [String: String]) { self.fields = fields.mapValues { [$0] } }

        /// Every `(name, value)` pair, names sorted, values in order.
        public var pairs: [(name: String, value: String)] {
            fields.keys.sorted().flatMap { name in fields[name]!.map { (name: name, value: $0) } }
        }

        private enum Value: Codable, Hashable {
            case one(String)
            case many([String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let value = try? container.decode(String.self) {
                    self = .one(value)
                } else if let values = try? container.decode([String].self) {
                    self = .many(values)
                } else {
                    throw DecodingError.typeMismatch(
                        String.self,
                        .init(
                            codingPath: decoder.codingPath,
                            debugDescription: "expected a string or an array of strings"
                        )
                    )
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .one(let value): try container.encode(value)
                case .many(let values): try container.encode(values)
                }
            }
        }

        public init(from decoder: any Decoder) throws {
            let raw = try decoder.singleValueContainer().decode([String: Value].self)
            fields = raw.mapValues {
                switch $0 {
                case .one(let value): return [value]
                case .many(let values): return values
                }
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(fields.mapValues { $0.count == 1 ? Value.one($0[0]) : Value.many($0) })
        }
    }
}

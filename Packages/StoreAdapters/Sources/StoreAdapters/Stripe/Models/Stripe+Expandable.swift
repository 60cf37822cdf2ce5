extension Stripe {
    /// A field that Stripe returns either as an object id or, when requested with `expand[]`, as the object.
    ///
    /// See <https://docs.stripe.com/api/expanding_objects>.
    public enum Expandable<Object: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        /// The object's id only (not expanded).
        case id(String)
        /// The expanded object.
        case object(Object)

        /// The expanded object, or `nil` if only the id was returned.
        public var expanded: Object? {
            if case .object(let object) = self { return object }
            return nil
        }

        /// Decodes a string as ``id(_:)`` and anything else as ``object(_:)``.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let id = try? container.decode(String.self) {
                self = .id(id)
            } else {
                self = .object(try container.decode(Object.self))
            }
        }

        /// Encodes the id as a string, or the object.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .id(let id): try container.encode(id)
            case .object(let object): try container.encode(object)
            }
        }
    }
}

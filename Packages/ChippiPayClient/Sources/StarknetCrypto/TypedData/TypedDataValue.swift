/// A JSON value inside SNIP-12 typed data. Numbers keep their exact text, so large integers are not rounded.
public enum TypedDataValue: Sendable, Hashable, Codable {
    case string(String)
    case number(String)
    case bool(Bool)
    case array([TypedDataValue])
    case object([String: TypedDataValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([TypedDataValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: TypedDataValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "typed data numbers must be integers of at most 64 bits or strings"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value):
            if let integer = UInt64(value) {
                try container.encode(integer)
            } else if let integer = Int64(value) {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

/// One member of a SNIP-12 type: a name, a type, and for `enum` and `merkletree` the type it contains.
public struct TypedDataField: Sendable, Hashable, Codable {
    public var name: String
    public var type: String
    public var contains: String?

    /// A member.
    public init(name: String, type: String, contains: String? = nil) {
        self.name = name
        self.type = type
        self.contains = contains
    }
}

/// SNIP-12 typed data: the types, the primary type, the domain and the message.
public struct TypedData: Sendable, Hashable, Codable {
    public var types: [String: [TypedDataField]]
    public var primaryType: String
    public var domain: [String: TypedDataValue]
    public var message: [String: TypedDataValue]

    /// Typed data from its four parts.
    public init(
        types: [String: [TypedDataField]],
        primaryType: String,
        domain: [String: TypedDataValue],
        message: [String: TypedDataValue]
    ) {
        self.types = types
        self.primaryType = primaryType
        self.domain = domain
        self.message = message
    }
}

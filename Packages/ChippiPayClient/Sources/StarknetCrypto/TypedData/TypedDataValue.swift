public import OpenCatCore

// The kernel's JSON value, re-exported with its members so code that imports only StarknetCrypto keeps using it.
@_exported public import enum OpenCatCore.JSONValue

/// A JSON value inside SNIP-12 typed data: the kernel's one JSON value (`JSONValue`), whose numbers keep
/// their exact text, so large integers are not rounded. Typed data's own rules (numbers are integers of at most 64
/// bits, larger ones travel as strings) are applied where ``TypedData`` is read and written.
public typealias TypedDataValue = JSONValue

/// One member of a SNIP-12 type: a name, a type, and for `enum` and `merkletree` the type it contains.
public struct TypedDataField: Sendable, Hashable, Codable {
    /// The member's name.
    public var name: String
    /// Its type: a basic type (`felt`, `u128`, `string`, …), a preset, or another type of the typed data.
    public var type: String
    /// For `enum` and `merkletree` members, the type they contain; otherwise `nil`.
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
    /// Every type by name, each a list of members, including the domain's type.
    public var types: [String: [TypedDataField]]
    /// The type of `message`.
    public var primaryType: String
    /// The domain separator's values (name, version, chain id, revision).
    public var domain: [String: TypedDataValue]
    /// The message to sign, a value of `primaryType`.
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

extension TypedData {
    enum CodingKeys: String, CodingKey { case types, primaryType, domain, message }

    /// Reads typed data: a number must be an integer of at most 64 bits (a larger one is sent as a string).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        types = try container.decode([String: [TypedDataField]].self, forKey: .types)
        primaryType = try container.decode(String.self, forKey: .primaryType)
        domain = try container.decode([String: TypedDataValue].self, forKey: .domain)
        message = try container.decode([String: TypedDataValue].self, forKey: .message)
        for value in domain.values where !Self.hasOnlyWordNumbers(value) {
            throw Self.numberError(.domain, container)
        }
        for value in message.values where !Self.hasOnlyWordNumbers(value) {
            throw Self.numberError(.message, container)
        }
    }

    /// Writes typed data: numbers of at most 64 bits as JSON numbers, larger ones as strings.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(types, forKey: .types)
        try container.encode(primaryType, forKey: .primaryType)
        try container.encode(domain.mapValues(Self.wire), forKey: .domain)
        try container.encode(message.mapValues(Self.wire), forKey: .message)
    }

    /// Whether every number in `value` is an integer of at most 64 bits.
    private static func hasOnlyWordNumbers(_ value: TypedDataValue) -> Bool {
        switch value {
        case .number(let text): UInt64(text) != nil || Int64(text) != nil
        case .array(let elements): elements.allSatisfy(hasOnlyWordNumbers)
        case .object(let members): members.values.allSatisfy(hasOnlyWordNumbers)
        case .string, .bool, .null: true
        }
    }

    /// The value as typed data sends it: a number beyond 64 bits as its text.
    private static func wire(_ value: TypedDataValue) -> TypedDataValue {
        switch value {
        case .number(let text) where UInt64(text) == nil && Int64(text) == nil: .string(text)
        case .array(let elements): .array(elements.map(wire))
        case .object(let members): .object(members.mapValues(wire))
        default: value
        }
    }

    private static func numberError(_ key: CodingKeys, _ container: KeyedDecodingContainer<CodingKeys>)
        -> DecodingError
    {
        DecodingError.dataCorruptedError(
            forKey: key,
            in: container,
            debugDescription: "typed data numbers must be integers of at most 64 bits or strings"
        )
    }
}

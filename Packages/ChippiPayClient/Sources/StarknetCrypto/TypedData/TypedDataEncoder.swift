import OpenCatCore

/// The SNIP-12 encoding rules, one value at a time (a struct is the hash of its type hash and member encodings).
struct TypedDataEncoder {
    let types: [String: [TypedDataField]]
    let revision: TypedData.Revision
    /// Every struct type, presets included for revision 1.
    let allTypes: [String: [TypedDataField]]
    /// Nesting depth of values (structs, arrays, enum payloads), bounded so hostile data cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 64
    /// Type hashes already computed (an array of structs hashes its type once).
    var typeHashes: [String: Felt] = [:]

    init(types: [String: [TypedDataField]], revision: TypedData.Revision) {
        self.types = types
        self.revision = revision
        allTypes =
            revision == .active ? types.merging(TypedData.presets, uniquingKeysWith: { own, _ in own }) : types
    }

    static func invalid(_ reason: String) -> StarknetCryptoError {
        StarknetCryptoError(.invalidTypedData, reason)
    }

    // MARK: Type strings

    func encodeType(_ type: String) throws(StarknetCryptoError) -> String {
        var found: [String] = []
        try collectDependencies(type, into: &found, level: 0)
        guard let primary = found.first else { throw Self.invalid("unknown type \(type)") }
        return ([primary] + found.dropFirst().sorted()).map { name in
            let members = (allTypes[name] ?? []).map { field in
                let target = field.type == "enum" && revision == .active ? field.contains ?? "" : field.type
                let typeText =
                    target.hasPrefix("(") && target.hasSuffix(")")
                    ? "("
                        + target.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
                        .map { $0.isEmpty ? "" : revision.escape(String($0)) }.joined(separator: ",") + ")"
                    : revision.escape(target)
                return "\(revision.escape(field.name)):\(typeText)"
            }
            return "\(revision.escape(name))(\(members.joined(separator: ",")))"
        }.joined()
    }

    /// Struct types reachable from `type`, `type` first, each once.
    private func collectDependencies(_ type: String, into found: inout [String], contains: String? = nil, level: Int)
        throws(StarknetCryptoError)
    {
        guard found.count < 1024, level <= Self.maximumDepth else {
            throw Self.invalid("too many or too deeply nested types")
        }
        var candidates = [type]
        if type.hasSuffix("*") {
            candidates = [String(type.dropLast())]
        } else if revision == .active, type == "enum" {
            candidates = [contains ?? ""]
        } else if revision == .active, type.hasPrefix("("), type.hasSuffix(")") {
            candidates = type.dropFirst().dropLast().split(separator: ",").map {
                $0.hasSuffix("*") ? String($0.dropLast()) : String($0)
            }
        }
        for candidate in candidates where !found.contains(candidate) {
            guard let members = allTypes[candidate] else { continue }
            found.append(candidate)
            for member in members {
                try collectDependencies(member.type, into: &found, contains: member.contains, level: level + 1)
            }
        }
    }

    // MARK: Values

    mutating func structHash(_ type: String, _ value: TypedDataValue) throws(StarknetCryptoError) -> Felt {
        guard let members = allTypes[type] else { throw Self.invalid("unknown type \(type)") }
        guard case .object(let object) = value else { throw Self.invalid("\(type) expects an object") }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Self.invalid("typed data nested too deeply") }
        let typeHash: Felt
        if let known = typeHashes[type] {
            typeHash = known
        } else {
            typeHash = StarknetKeccak.hash(Array(try encodeType(type).utf8))
            typeHashes[type] = typeHash
        }
        var elements = [typeHash]
        for member in members {
            guard let memberValue = object[member.name] else {
                throw Self.invalid("\(type).\(member.name) is missing")
            }
            elements.append(try encode(member.type, memberValue, member: member))
        }
        return revision.hash(elements)
    }

    mutating func encode(_ type: String, _ value: TypedDataValue, member: TypedDataField? = nil)
        throws(StarknetCryptoError) -> Felt
    {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth * 2 else { throw Self.invalid("typed data nested too deeply") }
        if allTypes[type] != nil { return try structHash(type, value) }
        if type.hasSuffix("*") {
            guard case .array(let items) = value else { throw Self.invalid("\(type) expects an array") }
            var hashes: [Felt] = []
            for item in items { hashes.append(try encode(String(type.dropLast()), item)) }
            return revision.hash(hashes)
        }
        switch type {
        case "felt", "shortstring", "ContractAddress", "ClassHash":
            return try Self.felt(value, type)
        case "bool":
            if case .bool(let flag) = value { return flag ? .one : .zero }
            // Revision 0 signers also wrote booleans as 0/1 or "true"/"false".
            guard revision == .legacy else { throw Self.invalid("bool expects true or false") }
            switch value {
            case .number("0"), .string("0"), .string("false"): return .zero
            case .number("1"), .string("1"), .string("true"): return .one
            default: throw Self.invalid("bool expects true or false")
            }
        case "u128", "timestamp":
            let felt = try Self.felt(value, type, allowShortString: revision == .legacy)
            guard revision == .legacy || felt.value.bitLength <= 128 else { throw Self.invalid("\(type) out of range") }
            return felt
        case "i128":
            return try Self.signed128(value)
        case "selector":
            guard case .string(let text) = value else { return try Self.felt(value, type) }
            if text.hasPrefix("0x") { return try Self.felt(value, type) }
            return StarknetKeccak.selector(text)
        case "string":
            guard case .string(let text) = value else { throw Self.invalid("string expects text") }
            if revision == .legacy { return try Felt(shortString: text) }
            return revision.hash(Self.byteArray(text))
        case "merkletree":
            guard let leafType = member?.contains else { throw Self.invalid("merkletree needs contains") }
            guard case .array(let leaves) = value, !leaves.isEmpty else {
                throw Self.invalid("merkletree expects a non-empty array")
            }
            var hashes: [Felt] = []
            for leaf in leaves { hashes.append(try encode(leafType, leaf)) }
            return merkleRoot(hashes)
        case "enum" where revision == .active:
            return try encodeEnum(value, member: member)
        default:
            throw Self.invalid("unsupported type \(type)")
        }
    }

    private mutating func encodeEnum(_ value: TypedDataValue, member: TypedDataField?) throws(StarknetCryptoError)
        -> Felt
    {
        guard let enumName = member?.contains, let variants = allTypes[enumName] else {
            throw Self.invalid("enum needs contains naming its variants")
        }
        guard case .object(let object) = value, object.count == 1, let (name, payload) = object.first else {
            throw Self.invalid("an enum value is an object with exactly one variant")
        }
        guard let index = variants.firstIndex(where: { $0.name == name }) else {
            throw Self.invalid("\(enumName) has no variant \(name)")
        }
        let signature = variants[index].type
        guard signature.hasPrefix("("), signature.hasSuffix(")") else { throw Self.invalid("bad variant type") }
        let parameterTypes = signature.dropFirst().dropLast().split(separator: ",").map(String.init)
        guard case .array(let arguments) = payload, arguments.count == parameterTypes.count else {
            throw Self.invalid("\(enumName).\(name) expects \(parameterTypes.count) value(s)")
        }
        var elements = [Felt(UInt64(index))]
        for (parameterType, argument) in zip(parameterTypes, arguments) {
            elements.append(try encode(parameterType, argument))
        }
        // A unit variant `()` hashes as [index, 0], as starknet.js (which wallets and ChipiPay sign with) does;
        // starknet-py hashes [index] alone. See docs/DECISIONS.md.
        if parameterTypes.isEmpty { elements.append(.zero) }
        return revision.hash(elements)
    }

    /// The Merkle root with sorted pairs, an odd node paired with zero.
    func merkleRoot(_ leaves: [Felt]) -> Felt {
        var level = leaves
        while level.count > 1 {
            var next: [Felt] = []
            var index = 0
            while index < level.count {
                let a = level[index]
                let b = index + 1 < level.count ? level[index + 1] : .zero
                next.append(a <= b ? revision.hashPair(a, b) : revision.hashPair(b, a))
                index += 2
            }
            level = next
        }
        return level[0]
    }

    /// A Cairo ByteArray's serialisation: full 31-byte words, the pending word and its length.
    static func byteArray(_ text: String) -> [Felt] {
        let bytes = Array(text.utf8)
        let fullWords = bytes.count / 31
        var elements = [Felt(UInt64(fullWords))]
        for word in 0..<fullWords {
            elements.append(
                Felt(unchecked: (try? UInt256(bigEndianBytes: bytes[(word * 31)..<(word * 31 + 31)])) ?? .zero)
            )
        }
        let pending = bytes[(fullWords * 31)...]
        elements.append(Felt(unchecked: (try? UInt256(bigEndianBytes: pending)) ?? .zero))
        elements.append(Felt(UInt64(pending.count)))
        return elements
    }

    /// A number (decimal or `0x`) or, failing that, a short string, as starknet.js's `getHex` reads values.
    static func felt(_ value: TypedDataValue, _ type: String, allowShortString: Bool = true)
        throws(StarknetCryptoError) -> Felt
    {
        switch value {
        case .number(let text):
            guard let number = UInt256(text) else { throw invalid("\(type) is not a non-negative integer") }
            return try Felt(number)
        case .string(let text):
            if let number = UInt256(text) { return try Felt(number) }
            guard allowShortString, !text.isEmpty else { throw invalid("\(type) is not a number") }
            return try Felt(shortString: text)
        case .bool(let flag):
            return flag ? .one : .zero
        default:
            throw invalid("\(type) expects a number or a string")
        }
    }

    /// An i128, negative values as P − |value|.
    static func signed128(_ value: TypedDataValue) throws(StarknetCryptoError) -> Felt {
        let text: String
        switch value {
        case .number(let number), .string(let number): text = number
        default: throw invalid("i128 expects an integer")
        }
        let negative = text.hasPrefix("-")
        guard let magnitude = UInt256(negative ? String(text.dropFirst()) : text) else {
            throw invalid("i128 expects an integer")
        }
        guard negative ? magnitude <= (UInt256.one << 127) : magnitude < (UInt256.one << 127) else {
            throw invalid("i128 out of range")
        }
        if !negative || magnitude.isZero { return try Felt(magnitude) }
        return Felt(unchecked: FieldElement.modulus &- magnitude)
    }
}

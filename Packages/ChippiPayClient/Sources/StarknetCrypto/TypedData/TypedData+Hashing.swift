import OpenCatCore

/// SNIP-12 message hashing. Revision 1 (Poseidon, `StarknetDomain`, quoted type strings, presets `u256`,
/// `TokenAmount`, `NftId`, `enum`, `string` as a ByteArray) is what ChipiPay and SNIP-9 outside executions use;
/// revision 0 (Pedersen, `StarkNetDomain`) is kept for older signers.
extension TypedData {
    /// The SNIP-12 revision.
    public enum Revision: Int, Sendable, Hashable {
        /// Revision 0: Pedersen hashing and the `StarkNetDomain` type.
        case legacy = 0
        /// Revision 1: Poseidon hashing and the `StarknetDomain` type (what ChipiPay and SNIP-9 use).
        case active = 1

        var domainType: String { self == .active ? "StarknetDomain" : "StarkNetDomain" }

        func hash(_ elements: [Felt]) -> Felt {
            self == .active ? Poseidon.hash(many: elements) : Pedersen.hash(array: elements)
        }

        func hashPair(_ a: Felt, _ b: Felt) -> Felt {
            self == .active ? Poseidon.hash(a, b) : Pedersen.hash(a, b)
        }

        func escape(_ text: String) -> String { self == .active ? "\"\(text)\"" : text }
    }

    static let presets: [String: [TypedDataField]] = [
        "u256": [TypedDataField(name: "low", type: "u128"), TypedDataField(name: "high", type: "u128")],
        "TokenAmount": [
            TypedDataField(name: "token_address", type: "ContractAddress"),
            TypedDataField(name: "amount", type: "u256"),
        ],
        "NftId": [
            TypedDataField(name: "collection_address", type: "ContractAddress"),
            TypedDataField(name: "token_id", type: "u256"),
        ],
    ]

    /// The revision the domain declares: 1 with a `StarknetDomain` type and `revision: 1`, else 0 with
    /// `StarkNetDomain`.
    public func revision() throws(StarknetCryptoError) -> Revision {
        let declared = domain["revision"].flatMap { value -> String? in
            switch value {
            case .number(let text), .string(let text): text
            default: nil
            }
        }
        if types["StarknetDomain"] != nil, declared == "1" { return .active }
        if types["StarkNetDomain"] != nil, declared == nil || declared == "0" { return .legacy }
        throw StarknetCryptoError(.invalidTypedData, "the domain names no known SNIP-12 revision")
    }

    /// The message hash an account signs: `h("StarkNet Message", h(domain), account, h(message))`.
    public func messageHash(account: Felt) throws(StarknetCryptoError) -> Felt {
        let revision = try revision()
        var encoder = TypedDataEncoder(types: types, revision: revision)
        let prefix = try Felt(shortString: "StarkNet Message")
        return revision.hash([
            prefix,
            try encoder.structHash(revision.domainType, .object(domain)),
            account,
            try encoder.structHash(primaryType, .object(message)),
        ])
    }

    /// The type string of `type` (with its dependencies sorted), as hashed into its type hash.
    public func encodeType(_ type: String) throws(StarknetCryptoError) -> String {
        let encoder = TypedDataEncoder(types: types, revision: try revision())
        return try encoder.encodeType(type)
    }

    /// `starknet_keccak` of ``encodeType(_:)``.
    public func typeHash(_ type: String) throws(StarknetCryptoError) -> Felt {
        StarknetKeccak.hash(Array(try encodeType(type).utf8))
    }

    /// The struct hash of `type` for a value.
    public func structHash(_ type: String, _ value: [String: TypedDataValue]) throws(StarknetCryptoError) -> Felt {
        var encoder = TypedDataEncoder(types: types, revision: try revision())
        return try encoder.structHash(type, .object(value))
    }
}

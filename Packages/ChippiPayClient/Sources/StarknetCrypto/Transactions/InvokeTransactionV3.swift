/// A Starknet chain id: `SN_MAIN`, `SN_SEPOLIA`, or any felt (a short string's encoding).
public struct StarknetChainID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The felt the transaction hash commits to.
    public let felt: Felt

    /// A chain id from its felt.
    public init(_ felt: Felt) { self.felt = felt }

    /// Starknet mainnet, `'SN_MAIN'`.
    public static let mainnet = StarknetChainID(Felt(unchecked: UInt256(0x534E_5F4D_4149_4E)))
    /// Starknet Sepolia, `'SN_SEPOLIA'`.
    public static let sepolia = StarknetChainID(
        Felt(unchecked: UInt256(w0: 0x5f53_4550_4f4c_4941, w1: 0x534e, w2: 0, w3: 0))
    )

    /// `SN_MAIN`, `SN_SEPOLIA`, another short-string name, or `0x` hex.
    public init(parsing text: String) throws(StarknetCryptoError) {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            self.init(try Felt(hex: text))
        } else {
            self.init(try Felt(shortString: text))
        }
    }

    /// `SN_MAIN`, `SN_SEPOLIA`, or the felt in `0x` hex for any other chain.
    public var description: String {
        switch self {
        case .mainnet: "SN_MAIN"
        case .sepolia: "SN_SEPOLIA"
        default: felt.hexString
        }
    }

    /// Encodes the felt as `0x` hex, as JSON-RPC writes a chain id.
    public func encode(to encoder: any Encoder) throws { try felt.encode(to: encoder) }
    /// Decodes a felt (`0x` hex or decimal); a value at or above P is an error.
    public init(from decoder: any Decoder) throws { self.init(try Felt(from: decoder)) }
}

/// Where a transaction's nonce or fee data lives.
public enum DataAvailabilityMode: String, Sendable, Hashable, Codable {
    /// The data lives on L1 (hashed as 0).
    case l1 = "L1"
    /// The data lives on L2 (hashed as 1).
    case l2 = "L2"

    var felt: UInt64 { self == .l1 ? 0 : 1 }

    /// `"L1"`/`"L2"` as the JSON-RPC specification writes them; the feeder gateway's `0`/`1` also read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self), number == 0 || number == 1 {
            self = number == 0 ? .l1 : .l2
            return
        }
        let text = try container.decode(String.self)
        guard let mode = DataAvailabilityMode(rawValue: text.uppercased()) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "a data availability mode is L1 or L2"
            )
        }
        self = mode
    }
}

/// The most a transaction may spend on one resource.
public struct ResourceBounds: Sendable, Hashable, Codable {
    /// The most units (a u64).
    public var maxAmount: Felt
    /// The most per unit, in fri (a u128).
    public var maxPricePerUnit: Felt

    /// Bounds from a maximum amount and a maximum unit price.
    public init(maxAmount: Felt, maxPricePerUnit: Felt) {
        self.maxAmount = maxAmount
        self.maxPricePerUnit = maxPricePerUnit
    }

    /// No allowance.
    public static let zero = ResourceBounds(maxAmount: .zero, maxPricePerUnit: .zero)

    enum CodingKeys: String, CodingKey {
        case maxAmount = "max_amount"
        case maxPricePerUnit = "max_price_per_unit"
    }
}

/// The three resources of JSON-RPC 0.8: L1 gas, L2 gas and L1 data gas.
public struct ResourceBoundsMapping: Sendable, Hashable, Codable {
    /// The bounds on L1 gas (`l1_gas`).
    public var l1Gas: ResourceBounds
    /// The bounds on L2 gas (`l2_gas`).
    public var l2Gas: ResourceBounds
    /// The bounds on L1 data gas (`l1_data_gas`, blob data).
    public var l1DataGas: ResourceBounds

    /// Bounds for the three resources.
    public init(l1Gas: ResourceBounds, l2Gas: ResourceBounds, l1DataGas: ResourceBounds) {
        self.l1Gas = l1Gas
        self.l2Gas = l2Gas
        self.l1DataGas = l1DataGas
    }

    enum CodingKeys: String, CodingKey {
        case l1Gas = "l1_gas"
        case l2Gas = "l2_gas"
        case l1DataGas = "l1_data_gas"
    }
}

/// An INVOKE v3 transaction as the JSON-RPC specification (v0.8) writes it.
public struct InvokeTransactionV3: Sendable, Hashable, Codable {
    /// The account contract that sends the transaction (`sender_address`).
    public var senderAddress: Felt
    /// The account's `__execute__` calldata (for a Cairo 1 account: the call count, then each call).
    public var calldata: [Felt]
    /// The account's nonce this transaction uses.
    public var nonce: Felt
    /// The most the transaction may spend on each resource.
    public var resourceBounds: ResourceBoundsMapping
    /// The tip to the sequencer, per unit of L2 gas, in fri (a u64); zero by default.
    public var tip: Felt
    /// Data for a paymaster that pays the fee (empty when the account pays).
    public var paymasterData: [Felt]
    /// Data to deploy the account in the same transaction (empty for a deployed account).
    public var accountDeploymentData: [Felt]
    /// Where the nonce lives (L1 by default).
    public var nonceDataAvailabilityMode: DataAvailabilityMode
    /// Where the fee is paid from (L1 by default).
    public var feeDataAvailabilityMode: DataAvailabilityMode
    /// The signature, not part of the hash.
    public var signature: [Felt]

    /// A transaction; the optional parts default to empty, L1 modes and a zero tip.
    public init(
        senderAddress: Felt,
        calldata: [Felt],
        nonce: Felt,
        resourceBounds: ResourceBoundsMapping,
        tip: Felt = .zero,
        paymasterData: [Felt] = [],
        accountDeploymentData: [Felt] = [],
        nonceDataAvailabilityMode: DataAvailabilityMode = .l1,
        feeDataAvailabilityMode: DataAvailabilityMode = .l1,
        signature: [Felt] = []
    ) {
        self.senderAddress = senderAddress
        self.calldata = calldata
        self.nonce = nonce
        self.resourceBounds = resourceBounds
        self.tip = tip
        self.paymasterData = paymasterData
        self.accountDeploymentData = accountDeploymentData
        self.nonceDataAvailabilityMode = nonceDataAvailabilityMode
        self.feeDataAvailabilityMode = feeDataAvailabilityMode
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case type, version, signature, calldata, nonce, tip
        case senderAddress = "sender_address"
        case resourceBounds = "resource_bounds"
        case paymasterData = "paymaster_data"
        case accountDeploymentData = "account_deployment_data"
        case nonceDataAvailabilityMode = "nonce_data_availability_mode"
        case feeDataAvailabilityMode = "fee_data_availability_mode"
    }

    /// Reads a JSON-RPC transaction object; a `version` other than 3 is an error, and missing optional fields take their
    /// defaults (zero tip, empty data, L1 modes, no signature).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let version = try container.decodeIfPresent(String.self, forKey: .version),
            (try? Felt(parsing: version)) != Felt(3)
        {
            throw DecodingError.dataCorruptedError(
                forKey: .version,
                in: container,
                debugDescription: "not a v3 transaction"
            )
        }
        senderAddress = try container.decode(Felt.self, forKey: .senderAddress)
        calldata = try container.decode([Felt].self, forKey: .calldata)
        nonce = try container.decode(Felt.self, forKey: .nonce)
        resourceBounds = try container.decode(ResourceBoundsMapping.self, forKey: .resourceBounds)
        tip = try container.decodeIfPresent(Felt.self, forKey: .tip) ?? .zero
        paymasterData = try container.decodeIfPresent([Felt].self, forKey: .paymasterData) ?? []
        accountDeploymentData = try container.decodeIfPresent([Felt].self, forKey: .accountDeploymentData) ?? []
        nonceDataAvailabilityMode =
            try container.decodeIfPresent(DataAvailabilityMode.self, forKey: .nonceDataAvailabilityMode) ?? .l1
        feeDataAvailabilityMode =
            try container.decodeIfPresent(DataAvailabilityMode.self, forKey: .feeDataAvailabilityMode) ?? .l1
        signature = try container.decodeIfPresent([Felt].self, forKey: .signature) ?? []
    }

    /// Writes the JSON-RPC transaction object: `"type": "INVOKE"`, `"version": "0x3"` and every field in snake case.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("INVOKE", forKey: .type)
        try container.encode("0x3", forKey: .version)
        try container.encode(senderAddress, forKey: .senderAddress)
        try container.encode(calldata, forKey: .calldata)
        try container.encode(nonce, forKey: .nonce)
        try container.encode(resourceBounds, forKey: .resourceBounds)
        try container.encode(tip, forKey: .tip)
        try container.encode(paymasterData, forKey: .paymasterData)
        try container.encode(accountDeploymentData, forKey: .accountDeploymentData)
        try container.encode(nonceDataAvailabilityMode, forKey: .nonceDataAvailabilityMode)
        try container.encode(feeDataAvailabilityMode, forKey: .feeDataAvailabilityMode)
        try container.encode(signature, forKey: .signature)
    }

    /// The transaction hash (SNIP-8):
    /// `h("invoke", 3, sender, h(tip, L1_GAS, L2_GAS, L1_DATA bounds), h(paymaster_data), chain_id, nonce,
    /// nonce_da << 32 | fee_da, h(account_deployment_data), h(calldata))` with h = Poseidon over many felts, and
    /// each bound packed as `name << 192 | max_amount << 128 | max_price_per_unit`.
    public func hash(chainID: StarknetChainID, queryVersion: Bool = false) throws(StarknetCryptoError) -> Felt {
        guard tip.value.bitLength <= 64 else { throw StarknetCryptoError(.invalidTransaction, "tip exceeds 64 bits") }
        let bounds = [
            try Self.pack(resourceBounds.l1Gas, name: "L1_GAS"),
            try Self.pack(resourceBounds.l2Gas, name: "L2_GAS"),
            try Self.pack(resourceBounds.l1DataGas, name: "L1_DATA"),
        ]
        let version = queryVersion ? Felt(unchecked: (UInt256.one << 128) | UInt256(3)) : Felt(3)
        let modes = Felt(nonceDataAvailabilityMode.felt << 32 | feeDataAvailabilityMode.felt)
        return Poseidon.hash(many: [
            Felt(unchecked: UInt256(0x696E_766F_6B65)),  // 'invoke'
            version,
            senderAddress,
            Poseidon.hash(many: [tip] + bounds),
            Poseidon.hash(many: paymasterData),
            chainID.felt,
            nonce,
            modes,
            Poseidon.hash(many: accountDeploymentData),
            Poseidon.hash(many: calldata),
        ])
    }

    static func pack(_ bounds: ResourceBounds, name: String) throws(StarknetCryptoError) -> Felt {
        guard bounds.maxAmount.value.bitLength <= 64 else {
            throw StarknetCryptoError(.invalidTransaction, "\(name) max_amount exceeds 64 bits")
        }
        guard bounds.maxPricePerUnit.value.bitLength <= 128 else {
            throw StarknetCryptoError(.invalidTransaction, "\(name) max_price_per_unit exceeds 128 bits")
        }
        let nameValue = (try? Felt(shortString: name).value) ?? .zero
        return Felt(unchecked: (nameValue << 192) | (bounds.maxAmount.value << 128) | bounds.maxPricePerUnit.value)
    }
}

public import StarknetCrypto

/// Which block a read is made against.
public enum BlockID: Sendable, Hashable, Encodable {
    case latest
    case pending
    case number(UInt64)
    case hash(Felt)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .latest:
            var container = encoder.singleValueContainer()
            try container.encode("latest")
        case .pending:
            var container = encoder.singleValueContainer()
            try container.encode("pending")
        case .number(let number):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(number, forKey: .blockNumber)
        case .hash(let hash):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(hash, forKey: .blockHash)
        }
    }

    enum Keys: String, CodingKey {
        case blockNumber = "block_number"
        case blockHash = "block_hash"
    }
}

/// A read-only call (`starknet_call`).
public struct FunctionCall: Sendable, Hashable, Codable {
    public var contractAddress: Felt
    public var entryPointSelector: Felt
    public var calldata: [Felt]

    /// A call of `entrypoint` by name.
    public init(contractAddress: Felt, entrypoint: String, calldata: [Felt]) {
        self.contractAddress = contractAddress
        entryPointSelector = StarknetKeccak.selector(entrypoint)
        self.calldata = calldata
    }

    enum CodingKeys: String, CodingKey {
        case contractAddress = "contract_address"
        case entryPointSelector = "entry_point_selector"
        case calldata
    }
}

/// One call inside an account's `__execute__`.
public struct Call: Sendable, Hashable, Codable {
    public var to: Felt
    public var entrypoint: String
    public var calldata: [Felt]

    /// A call.
    public init(to: Felt, entrypoint: String, calldata: [Felt]) {
        self.to = to
        self.entrypoint = entrypoint
        self.calldata = calldata
    }
}

/// `starknet_estimateFee`'s answer (spec 0.8: three resources, fees in fri).
public struct FeeEstimate: Sendable, Hashable, Codable {
    public var l1GasConsumed: Felt
    public var l1GasPrice: Felt
    public var l2GasConsumed: Felt
    public var l2GasPrice: Felt
    public var l1DataGasConsumed: Felt
    public var l1DataGasPrice: Felt
    public var overallFee: Felt
    public var unit: String?

    enum CodingKeys: String, CodingKey {
        case l1GasConsumed = "l1_gas_consumed"
        case l1GasPrice = "l1_gas_price"
        case l2GasConsumed = "l2_gas_consumed"
        case l2GasPrice = "l2_gas_price"
        case l1DataGasConsumed = "l1_data_gas_consumed"
        case l1DataGasPrice = "l1_data_gas_price"
        case overallFee = "overall_fee"
        case unit
    }

    /// Resource bounds with a 50 % margin on every amount and price, as wallets set them.
    public var resourceBounds: ResourceBoundsMapping {
        func margin(_ felt: Felt, bits: Int) -> Felt {
            let value = felt.value &+ (felt.value >> 1)
            let ceiling = (UInt256.one << bits) &- .one
            return (try? Felt(value.bitLength > bits ? ceiling : value)) ?? felt
        }
        func bounds(_ amount: Felt, _ price: Felt) -> ResourceBounds {
            ResourceBounds(maxAmount: margin(amount, bits: 64), maxPricePerUnit: margin(price, bits: 128))
        }
        return ResourceBoundsMapping(
            l1Gas: bounds(l1GasConsumed, l1GasPrice),
            l2Gas: bounds(l2GasConsumed, l2GasPrice),
            l1DataGas: bounds(l1DataGasConsumed, l1DataGasPrice)
        )
    }
}

/// Where a transaction stands on chain: finality and, once executed, whether it succeeded.
public struct TransactionStatus: Sendable, Hashable, Codable {
    /// `RECEIVED`, `REJECTED`, `ACCEPTED_ON_L2`, `ACCEPTED_ON_L1` (kept as sent).
    public var finalityStatus: String
    /// `SUCCEEDED` or `REVERTED` once executed.
    public var executionStatus: String?
    /// Why it reverted or was rejected.
    public var failureReason: String?

    public var isAccepted: Bool { finalityStatus == "ACCEPTED_ON_L2" || finalityStatus == "ACCEPTED_ON_L1" }
    public var isRejected: Bool { finalityStatus == "REJECTED" }
    public var isReverted: Bool { executionStatus == "REVERTED" }

    enum CodingKeys: String, CodingKey {
        case finalityStatus = "finality_status"
        case executionStatus = "execution_status"
        case failureReason = "failure_reason"
    }
}

/// The parts of `starknet_getTransactionReceipt` a payer needs.
public struct TransactionReceipt: Sendable, Hashable, Codable {
    public var transactionHash: Felt
    public var finalityStatus: String
    public var executionStatus: String
    public var revertReason: String?
    public var blockNumber: UInt64?
    public var actualFee: ActualFee?

    /// The fee paid.
    public struct ActualFee: Sendable, Hashable, Codable {
        public var amount: Felt
        public var unit: String
    }

    public var succeeded: Bool { executionStatus == "SUCCEEDED" }
    public var isAccepted: Bool { finalityStatus == "ACCEPTED_ON_L2" || finalityStatus == "ACCEPTED_ON_L1" }

    enum CodingKeys: String, CodingKey {
        case transactionHash = "transaction_hash"
        case finalityStatus = "finality_status"
        case executionStatus = "execution_status"
        case revertReason = "revert_reason"
        case blockNumber = "block_number"
        case actualFee = "actual_fee"
    }
}

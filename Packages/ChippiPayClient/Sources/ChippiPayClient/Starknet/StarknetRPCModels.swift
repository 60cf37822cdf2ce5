public import StarknetCrypto

/// Which block a read is made against.
public enum BlockID: Sendable, Hashable, Encodable {
    /// The latest accepted block.
    case latest
    /// The pending block (what the sequencer is building): sees transactions not yet in a block.
    case pending
    /// The block with this number.
    case number(UInt64)
    /// The block with this hash.
    case hash(Felt)

    /// Writes `"latest"`, `"pending"`, `{"block_number": n}` or `{"block_hash": "0x…"}`, as JSON-RPC takes a block id.
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
    /// The called contract.
    public var contractAddress: Felt
    /// The entry point's selector (the starknet-keccak of its name).
    public var entryPointSelector: Felt
    /// The arguments.
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
    /// The called contract.
    public var to: Felt
    /// The entry point's name (`transfer`); its selector is computed when the calldata is built.
    public var entrypoint: String
    /// The arguments.
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
    /// L1 gas units the transaction would consume.
    public var l1GasConsumed: Felt
    /// The price of one unit of L1 gas, in fri.
    public var l1GasPrice: Felt
    /// L2 gas units the transaction would consume.
    public var l2GasConsumed: Felt
    /// The price of one unit of L2 gas, in fri.
    public var l2GasPrice: Felt
    /// L1 data gas units (blob data) the transaction would consume.
    public var l1DataGasConsumed: Felt
    /// The price of one unit of L1 data gas, in fri.
    public var l1DataGasPrice: Felt
    /// The whole fee, in fri (10⁻¹⁸ STRK).
    public var overallFee: Felt
    /// The fee's unit as the node names it (`FRI`), when sent.
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

    /// Accepted on L2 or already on L1 (a rejected or only received transaction is not).
    public var isAccepted: Bool { finalityStatus == "ACCEPTED_ON_L2" || finalityStatus == "ACCEPTED_ON_L1" }
    /// The sequencer refused the transaction: it never executes.
    public var isRejected: Bool { finalityStatus == "REJECTED" }
    /// Executed and reverted: the fee is charged, its calls have no effect.
    public var isReverted: Bool { executionStatus == "REVERTED" }

    enum CodingKeys: String, CodingKey {
        case finalityStatus = "finality_status"
        case executionStatus = "execution_status"
        case failureReason = "failure_reason"
    }
}

/// The parts of `starknet_getTransactionReceipt` a payer needs.
public struct TransactionReceipt: Sendable, Hashable, Codable {
    /// The transaction's hash.
    public var transactionHash: Felt
    /// `ACCEPTED_ON_L2` or `ACCEPTED_ON_L1` (kept as sent).
    public var finalityStatus: String
    /// `SUCCEEDED` or `REVERTED` (kept as sent).
    public var executionStatus: String
    /// Why it reverted.
    public var revertReason: String?
    /// The block it is in; `nil` while pending.
    public var blockNumber: UInt64?
    /// The fee charged, when the node sends it.
    public var actualFee: ActualFee?

    /// The fee paid.
    public struct ActualFee: Sendable, Hashable, Codable {
        /// The fee, in `unit`'s base units.
        public var amount: Felt
        /// `FRI` (10⁻¹⁸ STRK) or `WEI` (10⁻¹⁸ ETH).
        public var unit: String
    }

    /// Whether it executed without reverting.
    public var succeeded: Bool { executionStatus == "SUCCEEDED" }
    /// Accepted on L2 or already on L1.
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

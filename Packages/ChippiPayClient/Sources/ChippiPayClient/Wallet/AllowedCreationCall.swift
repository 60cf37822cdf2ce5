public import StarknetCrypto

/// A call a wallet-creation answer may ask the new key to sign besides none at all: the activation "ping" that
/// deploys the account through the paymaster in ChipiPay's SDKs. Only the contract and the entry point are
/// checked; choose contracts whose entry points cannot move value.
public struct AllowedCreationCall: Sendable, Hashable {
    /// The contract called.
    public var contractAddress: Felt
    /// The entry point's name (`set_greeting`).
    public var entrypoint: String

    /// An allowed activation call.
    public init(contractAddress: Felt, entrypoint: String) {
        self.contractAddress = contractAddress
        self.entrypoint = entrypoint
    }
}

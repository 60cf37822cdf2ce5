public import StarknetCrypto

/// The user's vault contract on Starknet (design 004): `balance_of(user) -> u256` and
/// `withdraw(to, amount: u256)`. Entry-point names are configurable for vaults that name them differently.
public struct VaultContract: Sendable, Hashable {
    /// The vault contract's address.
    public var address: Felt
    /// The token the vault holds (STRK: 18 decimals).
    public var decimals: UInt8
    /// The entry point that reads a user's balance (`balance_of` by default).
    public var balanceEntrypoint: String
    /// The entry point that withdraws to an address (`withdraw` by default).
    public var withdrawEntrypoint: String

    /// A vault.
    public init(
        address: Felt,
        decimals: UInt8 = 18,
        balanceEntrypoint: String = "balance_of",
        withdrawEntrypoint: String = "withdraw"
    ) {
        self.address = address
        self.decimals = decimals
        self.balanceEntrypoint = balanceEntrypoint
        self.withdrawEntrypoint = withdrawEntrypoint
    }

    /// The read of `user`'s balance.
    public func balanceCall(of user: Felt) -> FunctionCall {
        FunctionCall(contractAddress: address, entrypoint: balanceEntrypoint, calldata: [user])
    }

    /// The withdrawal of `amount` to `recipient`: calldata `[recipient, low, high]`.
    public func withdrawCall(amount: TokenAmount, to recipient: Felt) -> Call {
        Call(to: address, entrypoint: withdrawEntrypoint, calldata: [recipient] + amount.u256)
    }

    /// `user`'s balance, read with `starknet_call`.
    public func balance(of user: Felt, rpc: StarknetRPCClient) async throws(ChippiPayError) -> TokenAmount {
        let answer = try await rpc.call(balanceCall(of: user))
        do {
            return try TokenAmount(u256: answer, decimals: decimals)
        } catch {
            throw ChippiPayError(.malformedResponse, "the vault's balance is not a u256")
        }
    }
}

import OpenCatCore
public import StarknetCrypto

/// A Starknet account that signs INVOKE v3 transactions with a Stark key in this process (Cairo 1 accounts:
/// OpenZeppelin, Argent/Ready, Braavos). The key never leaves the account value and is never logged.
public struct StarknetAccount: Sendable {
    /// The account contract's address.
    public let address: Felt
    /// The chain the account signs for (its id is part of every transaction hash).
    public let chainID: StarknetChainID
    let key: StarkPrivateKey
    /// The node the account reads nonces and fees from and sends transactions to.
    public let rpc: StarknetRPCClient

    /// An account at `address` signing with `key` on `chainID`.
    public init(address: Felt, key: StarkPrivateKey, chainID: StarknetChainID, rpc: StarknetRPCClient) {
        self.address = address
        self.key = key
        self.chainID = chainID
        self.rpc = rpc
    }

    /// The `__execute__` calldata of a Cairo 1 account: `[n, (to, selector, len, data…)…]`.
    public static func executeCalldata(_ calls: [Call]) -> [Felt] {
        var calldata = [Felt(UInt64(calls.count))]
        for call in calls {
            calldata.append(call.to)
            calldata.append(StarknetKeccak.selector(call.entrypoint))
            calldata.append(Felt(UInt64(call.calldata.count)))
            calldata += call.calldata
        }
        return calldata
    }

    /// A signed INVOKE v3 transaction for `calls`: nonce from the node unless given, resource bounds from a fee
    /// estimate (with a 50 % margin) unless given.
    public func prepareInvoke(_ calls: [Call], nonce: Felt? = nil, resourceBounds: ResourceBoundsMapping? = nil)
        async throws(ChippiPayError) -> InvokeTransactionV3
    {
        let resolvedNonce: Felt
        if let nonce { resolvedNonce = nonce } else { resolvedNonce = try await rpc.nonce(of: address) }
        var transaction = InvokeTransactionV3(
            senderAddress: address,
            calldata: Self.executeCalldata(calls),
            nonce: resolvedNonce,
            resourceBounds: ResourceBoundsMapping(l1Gas: .zero, l2Gas: .zero, l1DataGas: .zero)
        )
        if let resourceBounds {
            transaction.resourceBounds = resourceBounds
        } else {
            transaction.resourceBounds = try await rpc.estimateFee(transaction).resourceBounds
        }
        transaction.signature = try sign(transaction)
        return transaction
    }

    /// The transaction's signature `[r, s]`.
    public func sign(_ transaction: InvokeTransactionV3) throws(ChippiPayError) -> [Felt] {
        do {
            let hash = try transaction.hash(chainID: chainID)
            let signature = try StarkECDSA.sign(hash, with: key)
            return [signature.r, signature.s]
        } catch {
            throw ChippiPayError(.invalidInput, "the transaction cannot be signed: \(error.reason)")
        }
    }

    /// Signs SNIP-12 typed data for this account.
    public func sign(_ typedData: TypedData) throws(ChippiPayError) -> StarkSignature {
        do {
            return try StarkECDSA.sign(try typedData.messageHash(account: address), with: key)
        } catch {
            throw ChippiPayError(.invalidInput, "the typed data cannot be signed: \(error.reason)")
        }
    }
}

extension StarknetRPCClient {
    /// Waits until `hash` is accepted on L2 (or L1) and returns its receipt; a REVERTED execution or a REJECTED
    /// transaction throws ``ChippiPayError/Code/withdrawalReverted`` with the node's reason. A hash the node does
    /// not know yet is waited for; after the last attempt the error is ``ChippiPayError/Code/stillPending``.
    public func waitForAcceptance(of hash: Felt, policy: PollingPolicy = PollingPolicy(maxAttempts: 30))
        async throws(ChippiPayError) -> TransactionReceipt
    {
        for attempt in 1...policy.attempts {
            if attempt > 1 {
                do { try await http.clock.sleep(for: policy.delay(after: attempt - 1)) } catch {
                    throw ChippiPayError(.network, "waiting was cancelled", attempts: attempt - 1)
                }
            }
            do throws(ChippiPayError) {
                let status = try await status(hash)
                if status.isRejected {
                    throw ChippiPayError(
                        .withdrawalReverted,
                        "the transaction was rejected",
                        serverCode: status.finalityStatus,
                        reason: status.failureReason
                    )
                }
                guard status.isAccepted || status.executionStatus != nil else { continue }
                let receipt = try await receipt(hash)
                if !receipt.succeeded {
                    throw ChippiPayError(
                        .withdrawalReverted,
                        "the transaction reverted",
                        serverCode: receipt.executionStatus,
                        reason: receipt.revertReason ?? status.failureReason
                    )
                }
                if receipt.isAccepted { return receipt }
            } catch  where error.code == .rpcError && error.serverCode == String(ErrorCode.transactionHashNotFound) {
                continue
            } catch  where error.isRetryable && error.code != .stillPending && attempt < policy.attempts {
                continue
            }
        }
        throw ChippiPayError(
            .stillPending,
            "the transaction was not accepted after \(policy.attempts) checks",
            attempts: policy.attempts
        )
    }
}

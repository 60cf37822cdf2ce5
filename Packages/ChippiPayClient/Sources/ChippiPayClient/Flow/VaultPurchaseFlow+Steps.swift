import Foundation
import StarknetCrypto

extension VaultPurchaseFlow {
    /// Sends the stored withdrawal unless the node already knows it, then waits for acceptance.
    func confirmWithdrawal(_ start: VaultPurchaseRecord) async throws(ChippiPayError) -> VaultPurchaseRecord {
        var record = start
        guard let transaction = record.withdrawal, let hash = record.withdrawalHash else {
            throw ChippiPayError(.storage, "a signed withdrawal without its transaction")
        }
        var known = true
        do {
            _ = try await account.rpc.status(hash)
        } catch
            where error.code == .rpcError
            && error.serverCode == String(StarknetRPCClient.ErrorCode.transactionHashNotFound)
        {
            known = false
        }
        if !known {
            do throws(ChippiPayError) {
                let sent = try await account.rpc.addInvokeTransaction(transaction)
                guard sent == hash else {
                    throw ChippiPayError(.malformedResponse, "the node answered another transaction hash")
                }
            } catch
                where error.code == .rpcError
                && error.serverCode == String(StarknetRPCClient.ErrorCode.duplicateTransaction)
            {
                // Already in the mempool: the same transaction.
            }
        }
        do {
            _ = try await account.rpc.waitForAcceptance(of: hash, policy: confirmation)
        } catch  where error.code == .withdrawalReverted {
            try fail(record, error)
        }
        record.step = .withdrawalConfirmed
        record.withdrawalConfirmed = true
        try store(record)
        return record
    }

    /// Creates the SKU purchase with the withdrawal's hash. Each attempt is counted and stored before it is sent;
    /// a later attempt first asks ChippiPay for a purchase recorded under that hash (the earlier answer may have
    /// been lost after ChippiPay made it), so the purchase is never sent twice. A refusal after the money moved is
    /// stored as a failure that ``retryPurchase(flowID:)`` can retry; an unreadable answer stays ambiguous (the
    /// step is kept, `resume` looks it up).
    func createPurchase(_ start: VaultPurchaseRecord) async throws(ChippiPayError) -> VaultPurchaseRecord {
        var record = start
        guard let hash = record.withdrawalHash else { throw ChippiPayError(.storage, "no withdrawal hash") }
        if record.purchaseAttempts > 0, let found = try await chippiPay.transaction(hashOrId: hash.hexString) {
            return try await adopt(found, into: record)
        }
        record.purchaseAttempts += 1
        try store(record)
        let request = SkuTransactionRequest(
            walletAddress: account.address.hexString,
            skuId: record.request.skuId,
            chainToken: record.request.token,
            mxnAmount: record.request.fiatAmount,
            reference: record.request.reference,
            transactionHash: hash.hexString
        )
        let purchase: SkuPurchase
        do {
            purchase = try await chippiPay.createSkuTransaction(request, idempotencyKey: record.purchaseIdempotencyKey)
        } catch  where !error.isRetryable && error.code != .credentialsInvalid && error.code != .malformedResponse {
            try fail(record, error)
        }
        return try await adopt(purchase, into: record)
    }

    /// Stores the purchase ChippiPay made; one already over at creation ends the flow without polling.
    func adopt(_ purchase: SkuPurchase, into start: VaultPurchaseRecord) async throws(ChippiPayError)
        -> VaultPurchaseRecord
    {
        var record = start
        record.purchaseID = purchase.id
        record.purchase = purchase
        switch purchase.status.phase {
        case .inProgress:
            record.step = .purchaseCreated
        case .succeeded:
            record.step = .completed
        case .failed:
            try fail(record, Self.failure(purchase))
        }
        try store(record)
        return record
    }

    static func failure(_ purchase: SkuPurchase) -> ChippiPayError {
        ChippiPayError(
            .purchaseFailed,
            "ChippiPay reported \(purchase.status.rawValue)",
            serverCode: purchase.status.rawValue,
            reason: purchase.errorMessage.map { String($0.prefix(200)) }
        )
    }

    func pollPurchase(_ start: VaultPurchaseRecord) async throws(ChippiPayError) -> VaultPurchaseRecord {
        var record = start
        guard let id = record.purchaseID else { throw ChippiPayError(.storage, "no purchase id") }
        let purchase = try await chippiPay.pollPurchaseStatus(id: id, policy: polling)
        record.purchase = purchase
        if purchase.status.phase == .failed { try fail(record, Self.failure(purchase)) }
        record.step = .completed
        try store(record)
        return record
    }
}

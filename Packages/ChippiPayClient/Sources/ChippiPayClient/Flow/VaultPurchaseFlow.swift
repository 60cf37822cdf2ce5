import Foundation
import Logging
public import OpenCatStorage
public import StarknetCrypto

/// The design's purchase: quote → the SKU exists and accepts the reference → vault balance ≥ quote (or fail before anything is sent) → signed withdrawal to
/// ChippiPay's address → wait for ACCEPTED_ON_L2 and SUCCEEDED → create the SKU purchase with the transaction hash
/// and an idempotency key → poll → result.
///
/// A durable state machine: every step is written to OpenCat's encrypted cache before the action that follows
/// it, so ``resume(flowID:)`` after a crash or a failure continues where it stopped. A withdrawal is signed once
/// and only that transaction is ever (re)sent — its nonce makes a second execution impossible — and the purchase
/// is created with the same idempotency key every time, so nothing is withdrawn or bought twice.
public struct VaultPurchaseFlow: Sendable {
    /// The ChippiPay client: checks the SKU, creates the SKU purchase and polls it.
    public var chippiPay: ChippiPayClient
    /// The user's Starknet account: signs the vault withdrawal, and its RPC client reads the balance, sends the
    /// withdrawal and waits for it.
    public var account: StarknetAccount
    /// The user's vault contract: the balance checked against the quote, the token's decimals and the withdraw call.
    public var vault: VaultContract
    /// Where the withdrawal pays ChippiPay (configuration: ChippiPay gives it per integration).
    public var recipient: Felt
    /// Where each flow's ``VaultPurchaseRecord`` is stored, under its flow id, before every side effect.
    public var cache: EncryptedCache
    /// How the SKU purchase's status is polled until it is over (``PollingPolicy/default`` unless given);
    /// still pending after the last attempt throws `stillPending`.
    public var polling: PollingPolicy
    /// How long to wait for the withdrawal to be ACCEPTED_ON_L2 and SUCCEEDED (30 attempts unless given).
    public var confirmation: PollingPolicy
    /// Called after each step is stored (progress UI; crash tests throw here to stop the flow like a crash).
    public var onStepStored: (@Sendable (VaultPurchaseRecord) throws -> Void)?

    /// A flow.
    public init(
        chippiPay: ChippiPayClient,
        account: StarknetAccount,
        vault: VaultContract,
        recipient: Felt,
        cache: EncryptedCache,
        polling: PollingPolicy = .default,
        confirmation: PollingPolicy = PollingPolicy(maxAttempts: 30),
        onStepStored: (@Sendable (VaultPurchaseRecord) throws -> Void)? = nil
    ) {
        self.chippiPay = chippiPay
        self.account = account
        self.vault = vault
        self.recipient = recipient
        self.cache = cache
        self.polling = polling
        self.confirmation = confirmation
        self.onStepStored = onStepStored
    }

    static func key(_ flowID: String) -> String { "chippipay.flow.\(flowID)" }

    /// The stored record of a flow, if any.
    public func record(flowID: String) throws(ChippiPayError) -> VaultPurchaseRecord? {
        do {
            return try cache.existingValue(VaultPurchaseRecord.self, forKey: Self.key(flowID))
        } catch {
            throw ChippiPayError(.storage, "the purchase record cannot be read")
        }
    }

    /// Starts a purchase, or resumes it when one with the same flow id is stored. One flow id runs once at a time in
    /// this process (else a second withdrawal could be signed): a call made while it runs waits for that run and
    /// gets its result.
    public func run(_ request: VaultPurchaseRequest) async throws(ChippiPayError) -> SkuPurchase {
        try await exclusively(request.flowID) { () async throws(ChippiPayError) -> SkuPurchase in
            if try record(flowID: request.flowID) != nil {
                guard let stored = try record(flowID: request.flowID) else {
                    throw ChippiPayError(.storage, "lost record")
                }
                return try await advance(stored)
            }
            let quote: Quote
            do throws(StarknetCryptoError) {
                quote = try Quote(
                    fiatAmount: request.fiatAmount,
                    currency: request.currency,
                    rate: request.rate,
                    token: request.token,
                    decimals: vault.decimals
                )
            } catch {
                throw ChippiPayError(.invalidInput, error.reason)
            }
            let record = VaultPurchaseRecord(
                request: request,
                quotedBaseUnits: quote.tokenAmount.baseUnits.decimalString,
                decimals: vault.decimals,
                step: .quoted
            )
            try store(record)
            return try await advance(record)
        }
    }

    /// Continues a stored purchase from its step (while the same flow id runs in this process, waits for that run
    /// and gets its result).
    public func resume(flowID: String) async throws(ChippiPayError) -> SkuPurchase {
        try await exclusively(flowID) { () async throws(ChippiPayError) -> SkuPurchase in
            guard let record = try record(flowID: flowID) else {
                throw ChippiPayError(.invalidInput, "no purchase is stored under this flow id")
            }
            return try await advance(record)
        }
    }

    /// Tries the SKU purchase again for a flow that failed **after** its withdrawal was confirmed (ChippiPay
    /// refused the purchase, or it failed): the same withdrawal hash is reported again; nothing is withdrawn.
    public func retryPurchase(flowID: String) async throws(ChippiPayError) -> SkuPurchase {
        try await exclusively(flowID) { () async throws(ChippiPayError) -> SkuPurchase in
            guard var record = try record(flowID: flowID) else {
                throw ChippiPayError(.invalidInput, "no purchase is stored under this flow id")
            }
            guard record.step == .failed, record.withdrawalConfirmed else {
                throw ChippiPayError(.invalidInput, "only a purchase that failed after its withdrawal can be retried")
            }
            record.step = .purchaseRequested
            record.failureCode = nil
            record.failureMessage = nil
            record.failureReason = nil
            try store(record)
            return try await advance(record)
        }
    }

    /// Runs one flow id's work alone in this process through the shared in-flight claim
    /// (`SharedAttempts`): a caller that finds the flow running joins that run and gets its result.
    func exclusively(
        _ flowID: String,
        _ body: @escaping @Sendable () async throws(ChippiPayError) -> SkuPurchase
    ) async throws(ChippiPayError) -> SkuPurchase {
        let key = cache.fileURL.path + "#chippipay.flow#" + flowID
        let (result, _) = await SharedAttempts.shared.run(key: key) { () async -> Result<SkuPurchase, ChippiPayError> in
            do throws(ChippiPayError) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func store(_ record: VaultPurchaseRecord) throws(ChippiPayError) {
        do {
            try cache.setValue(record, forKey: Self.key(record.request.flowID))
        } catch {
            throw ChippiPayError(.storage, "the purchase record cannot be stored")
        }
        do { try onStepStored?(record) } catch {
            throw ChippiPayError(.storage, "stopped after \(record.step.rawValue)")
        }
    }

    func fail(_ record: VaultPurchaseRecord, _ error: ChippiPayError) throws(ChippiPayError) -> Never {
        var failed = record
        failed.step = .failed
        failed.failureCode = error.code.rawValue
        failed.failureMessage = error.message
        failed.failureReason = error.reason
        failed.failureServerCode = error.serverCode
        failed.failureStatus = error.status
        try store(failed)
        throw error
    }

    func advance(_ start: VaultPurchaseRecord) async throws(ChippiPayError) -> SkuPurchase {
        var record = start
        while true {
            switch record.step {
            case .quoted:
                record = try await withdraw(record)
            case .withdrawalSigned:
                record = try await confirmWithdrawal(record)
            case .withdrawalConfirmed:
                record.step = .purchaseRequested
                try store(record)
            case .purchaseRequested:
                record = try await createPurchase(record)
            case .purchaseCreated:
                record = try await pollPurchase(record)
            case .completed:
                guard let purchase = record.purchase else {
                    throw ChippiPayError(.storage, "a completed purchase without its answer")
                }
                return purchase
            case .failed:
                throw ChippiPayError(
                    ChippiPayError.Code(rawValue: record.failureCode ?? "purchaseFailed"),
                    record.failureMessage ?? "the purchase failed",
                    reason: record.failureReason
                )
            }
        }
    }

    /// The SKU and the reference checked, then the balance, then the signed withdrawal stored before it is sent:
    /// a purchase that cannot succeed fails here, before any money moves.
    func withdraw(_ start: VaultPurchaseRecord) async throws(ChippiPayError) -> VaultPurchaseRecord {
        var record = start
        let sku: Sku
        do {
            sku = try await chippiPay.sku(id: record.request.skuId)
        } catch  where error.code == .skuNotFound {
            try fail(record, error)
        }
        guard sku.accepts(reference: record.request.reference) else {
            try fail(
                record,
                ChippiPayError(
                    .invalidRequest,
                    "the reference does not match \(sku.referenceLabel ?? "the SKU's pattern")"
                )
            )
        }
        guard sku.accepts(amount: record.request.fiatAmount, currency: record.request.currency) else {
            try fail(
                record,
                ChippiPayError(.invalidRequest, "the amount or currency is not what this SKU sells")
            )
        }
        let balance = try await vault.balance(of: account.address, rpc: account.rpc)
        guard balance.baseUnits >= record.quote.baseUnits else {
            try fail(
                record,
                ChippiPayError(
                    .insufficientBalance,
                    "the vault holds \(balance.formatted) \(record.request.token), the purchase needs "
                        + "\(record.quote.formatted)"
                )
            )
        }
        let transaction = try await account.prepareInvoke([vault.withdrawCall(amount: record.quote, to: recipient)])
        do {
            record.withdrawalHash = try transaction.hash(chainID: account.chainID)
        } catch {
            throw ChippiPayError(.invalidInput, error.reason)
        }
        record.withdrawal = transaction
        record.step = .withdrawalSigned
        try store(record)
        return record
    }
}

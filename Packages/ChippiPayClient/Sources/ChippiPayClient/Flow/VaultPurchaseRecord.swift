public import Foundation
public import StarknetCrypto

/// What the user asked to buy, paid from their vault.
public struct VaultPurchaseRequest: Sendable, Hashable, Codable {
    /// A unique id for this purchase (a UUID): the flow's key in the cache and the root of its idempotency keys.
    public var flowID: String
    /// The ChippiPay SKU bought (checked to exist and to accept the reference and amount before anything is sent).
    public var skuId: String
    /// What the service is delivered to (a phone number, an account).
    public var reference: String
    /// The fiat price.
    public var fiatAmount: Decimal
    /// Its currency (`MXN`).
    public var currency: String
    /// Fiat per whole token (20 MXN per STRK).
    public var rate: Decimal
    /// The token paid (`STRK`).
    public var token: String

    /// A request.
    public init(
        flowID: String,
        skuId: String,
        reference: String,
        fiatAmount: Decimal,
        currency: String = "MXN",
        rate: Decimal,
        token: String = "STRK"
    ) {
        self.flowID = flowID
        self.skuId = skuId
        self.reference = reference
        self.fiatAmount = fiatAmount
        self.currency = currency
        self.rate = rate
        self.token = token
    }
}

/// The purchase flow's durable record: the request, the exact quote and the step reached, written to the
/// encrypted cache before each side effect.
public struct VaultPurchaseRecord: Sendable, Hashable, Codable {
    /// Where the flow stands. Each step is stored before the action that follows it.
    public enum Step: String, Sendable, Hashable, Codable {
        /// Quoted; nothing sent yet.
        case quoted
        /// The withdrawal is signed and its hash stored; it may or may not have reached the node.
        case withdrawalSigned
        /// The withdrawal is ACCEPTED_ON_L2 and SUCCEEDED.
        case withdrawalConfirmed
        /// The SKU purchase is being created with its idempotency key.
        case purchaseRequested
        /// ChippiPay has the purchase; polling.
        case purchaseCreated
        /// Delivered.
        case completed
        /// Over without delivery (insufficient balance, reverted withdrawal, failed purchase).
        case failed
    }

    /// What the user asked to buy; its `flowID` keys this record in the cache.
    public var request: VaultPurchaseRequest
    /// The quote in base units (decimal string) and the token's decimals.
    public var quotedBaseUnits: String
    /// The token's decimals (the vault's), the scale of ``quotedBaseUnits``.
    public var decimals: UInt8
    /// The step reached; ``VaultPurchaseFlow/resume(flowID:)`` continues from here.
    public var step: Step
    /// The signed withdrawal (no secret: a signature and public fields), kept to resend the same transaction.
    public var withdrawal: InvokeTransactionV3?
    /// The signed withdrawal's transaction hash, stored with it; reported to ChippiPay with the SKU purchase.
    public var withdrawalHash: Felt?
    /// ChippiPay's id of the SKU purchase, once it was created (used to poll it).
    public var purchaseID: String?
    /// ChippiPay's latest answer about the purchase; the flow's result once ``step`` is `completed`.
    public var purchase: SkuPurchase?
    /// The failure's ``ChippiPayError/Code`` raw value, once ``step`` is `failed`.
    public var failureCode: String?
    /// The failure's ``ChippiPayError/message``, once ``step`` is `failed`.
    public var failureMessage: String?
    /// The failure's ``ChippiPayError/reason`` (a revert reason, ChippiPay's error message), when it had one.
    public var failureReason: String?
    /// ChippiPay's or the node's own code and the HTTP status of the failure, when there were.
    public var failureServerCode: String?
    /// The failure's HTTP status (``ChippiPayError/status``), when a server answered.
    public var failureStatus: Int?
    /// How many times the SKU purchase was sent (stored before each send).
    public var purchaseAttempts: Int = 0
    /// Whether the withdrawal was confirmed on chain (money left the vault).
    public var withdrawalConfirmed: Bool = false

    /// The exact quote.
    public var quote: TokenAmount {
        TokenAmount(baseUnits: UInt256(quotedBaseUnits) ?? .zero, decimals: decimals)
    }

    enum CodingKeys: String, CodingKey {
        case request, quotedBaseUnits, decimals, step, withdrawal, withdrawalHash, purchaseID, purchase
        case failureCode, failureMessage, failureReason, failureServerCode, failureStatus, purchaseAttempts
        case withdrawalConfirmed
    }

    /// Decodes a stored record; `purchaseAttempts` and `withdrawalConfirmed` default to 0 and false when absent.
    /// Throws a `DecodingError` when `request`, `quotedBaseUnits`, `decimals` or `step` is missing, or a field cannot
    /// be read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        request = try container.decode(VaultPurchaseRequest.self, forKey: .request)
        quotedBaseUnits = try container.decode(String.self, forKey: .quotedBaseUnits)
        decimals = try container.decode(UInt8.self, forKey: .decimals)
        step = try container.decode(Step.self, forKey: .step)
        withdrawal = try container.decodeIfPresent(InvokeTransactionV3.self, forKey: .withdrawal)
        withdrawalHash = try container.decodeIfPresent(Felt.self, forKey: .withdrawalHash)
        purchaseID = try container.decodeIfPresent(String.self, forKey: .purchaseID)
        purchase = try container.decodeIfPresent(SkuPurchase.self, forKey: .purchase)
        failureCode = try container.decodeIfPresent(String.self, forKey: .failureCode)
        failureMessage = try container.decodeIfPresent(String.self, forKey: .failureMessage)
        failureReason = try container.decodeIfPresent(String.self, forKey: .failureReason)
        failureServerCode = try container.decodeIfPresent(String.self, forKey: .failureServerCode)
        failureStatus = try container.decodeIfPresent(Int.self, forKey: .failureStatus)
        purchaseAttempts = try container.decodeIfPresent(Int.self, forKey: .purchaseAttempts) ?? 0
        withdrawalConfirmed = try container.decodeIfPresent(Bool.self, forKey: .withdrawalConfirmed) ?? false
    }

    init(request: VaultPurchaseRequest, quotedBaseUnits: String, decimals: UInt8, step: Step) {
        self.request = request
        self.quotedBaseUnits = quotedBaseUnits
        self.decimals = decimals
        self.step = step
    }

    /// The idempotency key of the SKU purchase.
    public var purchaseIdempotencyKey: String { "opencat.chippipay.\(request.flowID).purchase" }
}

public import Foundation

/// A SKU purchase as `POST /sku-purchases`, `GET /sku-purchases/{id}` and the legacy `/sku-transactions` answer it.
/// Every field but the id and status is optional: the sources disagree on which are sent.
public struct SkuPurchase: Sendable, Hashable, Codable, Identifiable {
    /// ChippiPay's id of the purchase (the legacy answer's `transaction_id`).
    public var id: String
    /// Where the purchase stands; poll until it is terminal.
    public var status: PurchaseStatus
    /// The SKU bought.
    public var skuId: String?
    /// What the service is delivered to (a phone number, an account).
    public var skuReference: String?
    /// What the service is delivered to, as the legacy `/sku-transactions` answer names it.
    public var reference: String?
    /// The on-chain payment's hash.
    public var transactionHash: String?
    /// The fiat amount, exact.
    public var skuPurchaseAmount: Decimal?
    /// The ISO 4217 code of `skuPurchaseAmount`.
    public var skuPurchaseCurrency: String?
    /// The fiat amount in MXN, exact, as the legacy answer sends it.
    public var mxnAmount: Decimal?
    /// The chain the payment was made on (`STARKNET`).
    public var chain: String?
    /// The token paid with (`STRK`, `USDC`).
    public var token: String?
    /// The token paid with, as the legacy answer names it.
    public var chainToken: String?
    /// Base units of `token`, as a decimal string.
    public var amount: String?
    /// The address that paid.
    public var walletAddress: String?
    /// The provider's folio once delivered.
    public var skuFileNumber: String?
    /// The provider's folio, as the legacy answer names it.
    public var fileNumber: String?
    /// Why the purchase failed, as ChippiPay words it.
    public var errorMessage: String?
    /// When ChippiPay created the purchase, as the text it sent (ISO 8601).
    public var createdAt: String?
    /// When ChippiPay last changed the purchase, as the text it sent (ISO 8601).
    public var updatedAt: String?

    /// A purchase with an id and status; the rest optional.
    public init(id: String, status: PurchaseStatus) {
        self.id = id
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case id, status, skuId, skuReference, reference, transactionHash, skuPurchaseAmount, skuPurchaseCurrency
        case mxnAmount, chain, token, chainToken, amount, walletAddress, skuFileNumber, fileNumber, errorMessage
        case createdAt, updatedAt
        // The design's legacy answer: {"transaction_id", "status"}.
        case transactionID = "transaction_id"
    }

    /// Reads any of the answers: an id from `id` or `transaction_id` (neither is an error), amounts from JSON numbers
    /// or decimal text, exactly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard
            let id = try container.decodeIfPresent(String.self, forKey: .id)
                ?? container.decodeIfPresent(String.self, forKey: .transactionID)
        else {
            throw DecodingError.keyNotFound(
                CodingKeys.id,
                .init(codingPath: container.codingPath, debugDescription: "a purchase without an id")
            )
        }
        self.id = id
        status = try container.decode(PurchaseStatus.self, forKey: .status)
        skuId = try container.decodeIfPresent(String.self, forKey: .skuId)
        skuReference = try container.decodeIfPresent(String.self, forKey: .skuReference)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
        transactionHash = try container.decodeIfPresent(String.self, forKey: .transactionHash)
        skuPurchaseAmount = Self.decimal(container, .skuPurchaseAmount)
        skuPurchaseCurrency = try container.decodeIfPresent(String.self, forKey: .skuPurchaseCurrency)
        mxnAmount = Self.decimal(container, .mxnAmount)
        chain = try container.decodeIfPresent(String.self, forKey: .chain)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        chainToken = try container.decodeIfPresent(String.self, forKey: .chainToken)
        amount =
            (try? container.decodeIfPresent(String.self, forKey: .amount))
            ?? (try? container.decodeIfPresent(UInt64.self, forKey: .amount)).map { String($0) }
        walletAddress = try container.decodeIfPresent(String.self, forKey: .walletAddress)
        skuFileNumber = try container.decodeIfPresent(String.self, forKey: .skuFileNumber)
        fileNumber = try container.decodeIfPresent(String.self, forKey: .fileNumber)
        errorMessage = try container.decodeIfPresent(String.self, forKey: .errorMessage)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(String.self, forKey: .updatedAt)
    }

    /// An amount sent as a JSON number or as decimal text (`10` or `"10.00"`), exactly; anything else is absent.
    static func decimal(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> Decimal? {
        if let value = try? container.decodeIfPresent(Decimal.self, forKey: key) { return value }
        guard let text = try? container.decodeIfPresent(String.self, forKey: key) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Writes every field present under its camel-case name, the id as `id`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(skuId, forKey: .skuId)
        try container.encodeIfPresent(skuReference, forKey: .skuReference)
        try container.encodeIfPresent(reference, forKey: .reference)
        try container.encodeIfPresent(transactionHash, forKey: .transactionHash)
        try container.encodeIfPresent(skuPurchaseAmount, forKey: .skuPurchaseAmount)
        try container.encodeIfPresent(skuPurchaseCurrency, forKey: .skuPurchaseCurrency)
        try container.encodeIfPresent(mxnAmount, forKey: .mxnAmount)
        try container.encodeIfPresent(chain, forKey: .chain)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(chainToken, forKey: .chainToken)
        try container.encodeIfPresent(amount, forKey: .amount)
        try container.encodeIfPresent(walletAddress, forKey: .walletAddress)
        try container.encodeIfPresent(skuFileNumber, forKey: .skuFileNumber)
        try container.encodeIfPresent(fileNumber, forKey: .fileNumber)
        try container.encodeIfPresent(errorMessage, forKey: .errorMessage)
        try container.encodeIfPresent(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(updatedAt, forKey: .updatedAt)
    }
}

/// `POST /sku-purchases`: a purchase paid from the user's ChippiPay wallet or the organisation's credits.
public struct SkuPurchaseRequest: Sendable, Hashable, Codable {
    /// The SKU to buy.
    public var skuId: String
    /// What the service is delivered to (it must match the SKU's `referenceRegexValidation`).
    public var skuReference: String
    /// The fiat amount, exact (sent as a JSON number).
    public var currencyAmount: Decimal
    /// The ISO 4217 code of `currencyAmount` (`MXN`).
    public var currency: String
    /// The chain to pay on (`STARKNET`).
    public var chain: String
    /// The token to pay with (`STRK`, `USDC`).
    public var token: String

    /// A purchase request.
    public init(
        skuId: String,
        skuReference: String,
        currencyAmount: Decimal,
        currency: String,
        chain: String = "STARKNET",
        token: String
    ) {
        self.skuId = skuId
        self.skuReference = skuReference
        self.currencyAmount = currencyAmount
        self.currency = currency
        self.chain = chain
        self.token = token
    }
}

/// `POST /sku-transactions` (legacy, the design's flow): a purchase paid on chain first, reported by its
/// transaction hash.
public struct SkuTransactionRequest: Sendable, Hashable, Codable {
    /// The address that paid.
    public var walletAddress: String
    /// The SKU bought.
    public var skuId: String
    /// The chain paid on (`STARKNET`).
    public var chain: String
    /// The token paid with (`STRK`).
    public var chainToken: String
    /// The fiat amount in MXN, exact.
    public var mxnAmount: Decimal
    /// What the service is delivered to.
    public var reference: String
    /// The payment's transaction hash (the vault withdrawal).
    public var transactionHash: String

    /// A legacy purchase request.
    public init(
        walletAddress: String,
        skuId: String,
        chain: String = "STARKNET",
        chainToken: String,
        mxnAmount: Decimal,
        reference: String,
        transactionHash: String
    ) {
        self.walletAddress = walletAddress
        self.skuId = skuId
        self.chain = chain
        self.chainToken = chainToken
        self.mxnAmount = mxnAmount
        self.reference = reference
        self.transactionHash = transactionHash
    }
}

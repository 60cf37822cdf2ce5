import HTTPTypes
public import OpenCatCore
public import StarknetCrypto

/// The ChippiPay REST API: SKUs, SKU purchases (and the legacy `sku-transactions` the design uses), wallets and
/// sponsored transactions. Every call goes through OpenCat's `HTTPClient` (timeouts, retries on
/// 429 honouring `Retry-After`, 5xx and timeouts for safe requests, all on the injected clock) and carries
/// `__chipi_api_version`; keys travel in headers only, never in a URL.
public struct ChippiPayClient: Sendable {
    /// Where and how the client reaches ChippiPay (base URL, API key, bearer), fixed at creation.
    public let configuration: ChippiPayConfiguration
    let http: HTTPClient

    /// A client.
    public init(configuration: ChippiPayConfiguration, http: HTTPClient = HTTPClient()) {
        self.configuration = configuration
        self.http = http
    }

    // MARK: SKUs

    /// One page of SKUs (`page` ≥ 1, `limit` 1…100).
    public func skus(page: Int = 1, limit: Int = 10, category: String? = nil) async throws(ChippiPayError)
        -> Page<Sku>
    {
        guard page >= 1, (1...100).contains(limit) else {
            throw ChippiPayError(.invalidInput, "page must be ≥ 1 and limit 1…100")
        }
        var query = [("page", String(page)), ("limit", String(limit))]
        if let category { query.append(("category", category)) }
        return try await api.call(.get, "/skus", query: query)
    }

    /// Every SKU, page after page (bounded at 100 pages).
    public func allSkus(category: String? = nil) async throws(ChippiPayError) -> [Sku] {
        var result: [Sku] = []
        var page = 1
        while page <= 100 {
            let answer = try await skus(page: page, limit: 100, category: category)
            result += answer.data
            if page >= answer.totalPages || answer.data.isEmpty { break }
            page += 1
        }
        return result
    }

    /// One SKU.
    public func sku(id: String) async throws(ChippiPayError) -> Sku {
        try await api.call(.get, "/skus/\(try Self.segment(id))")
    }

    // MARK: Purchases

    /// Creates a SKU purchase (`POST /sku-purchases`), with an idempotency key so a retry cannot buy twice.
    public func createSkuPurchase(_ request: SkuPurchaseRequest, idempotencyKey: String) async throws(ChippiPayError)
        -> SkuPurchase
    {
        try await api.call(.post, "/sku-purchases", body: request, idempotencyKey: idempotencyKey)
    }

    /// A SKU purchase's current state (`GET /sku-purchases/{id}`).
    public func skuPurchase(id: String) async throws(ChippiPayError) -> SkuPurchase {
        try await api.call(.get, "/sku-purchases/\(try Self.segment(id))")
    }

    /// Reports an on-chain payment and buys the SKU with it (`POST /sku-transactions`, legacy: the design's flow).
    public func createSkuTransaction(_ request: SkuTransactionRequest, idempotencyKey: String)
        async throws(ChippiPayError) -> SkuPurchase
    {
        try await api.call(.post, "/sku-transactions", body: request, idempotencyKey: idempotencyKey)
    }

    /// The transaction ChippiPay recorded under an on-chain hash or an id (`GET /transactions/{hashOrId}`), or `nil`
    /// when it has none (404): how the purchase flow finds a purchase whose creation answer was lost.
    public func transaction(hashOrId: String) async throws(ChippiPayError) -> SkuPurchase? {
        do {
            return try await api.call(.get, "/transactions/\(try Self.segment(hashOrId))")
        } catch  where error.status == 404 {
            return nil
        }
    }

    /// A legacy SKU transaction (`GET /sku-transactions/{id}`).
    public func skuTransaction(id: String) async throws(ChippiPayError) -> SkuPurchase {
        try await api.call(.get, "/sku-transactions/\(try Self.segment(id))")
    }

    // MARK: Wallets

    /// The user's wallet, or `nil` when ChippiPay has none (404).
    public func wallet(externalUserId: String) async throws(ChippiPayError) -> ChippiWallet? {
        do {
            return try await api.call(.get, "/chipi-wallets/by-user", query: [("externalUserId", externalUserId)])
        } catch  where error.code == .walletNotFound || (error.status == 404 && error.serverCode == nil) {
            return nil
        }
    }

    /// A wallet's token balance in base units.
    public func tokenBalance(externalUserId: String, token: String = "STRK", chain: String = "STARKNET")
        async throws(ChippiPayError) -> TokenBalance
    {
        try await api.call(
            .get,
            "/chipi-wallets/token-balance",
            query: [("externalUserId", externalUserId), ("chainToken", token), ("chain", chain)]
        )
    }

    /// Step one of wallet creation: typed data for the new account to sign.
    func prepareWalletCreation(_ body: PrepareWalletCreationBody) async throws(ChippiPayError) -> PreparedTypedData {
        try await api.call(.post, "/chipi-wallets/prepare-creation", body: body, idempotencyKey: nil, idempotent: true)
    }

    /// Step two: the signed typed data, deployment data and the PIN-sealed key.
    func createWallet(_ body: CreateWalletBody, idempotencyKey: String) async throws(ChippiPayError) -> ChippiWallet {
        try await api.call(.post, "/chipi-wallets", body: body, idempotencyKey: idempotencyKey)
    }

    // MARK: Sponsored transactions

    /// Typed data for a gasless execution of `calls` from the wallet at `address`.
    public func prepareTypedData(address: Felt, calls: [ChippiCall], accountClassHash: Felt)
        async throws(ChippiPayError) -> PreparedTypedData
    {
        try await api.call(
            .post,
            "/transactions/prepare-typed-data",
            body: PrepareTypedDataBody(
                publicKey: address.hexString,
                calls: calls,
                accountClassHash: accountClassHash.hexString
            ),
            idempotencyKey: nil,
            idempotent: true
        )
    }

    /// Executes signed typed data through ChippiPay's paymaster; the transaction hash.
    public func executeSponsoredTransaction(
        address: Felt,
        typedData: TypedData,
        signature: StarkSignature,
        walletType: String,
        idempotencyKey: String
    ) async throws(ChippiPayError) -> Felt {
        let answer: TransactionHashAnswer = try await api.call(
            .post,
            "/transactions/execute-sponsored-transaction",
            body: ExecuteSponsoredBody(
                publicKey: address.hexString,
                typedData: typedData,
                userSignature: UserSignature(signature),
                saveToDatabase: true,
                walletType: walletType
            ),
            idempotencyKey: idempotencyKey
        )
        do {
            return try Felt(hex: answer.transactionHash)
        } catch {
            throw ChippiPayError(.malformedResponse, "the transaction hash is not a felt")
        }
    }
}

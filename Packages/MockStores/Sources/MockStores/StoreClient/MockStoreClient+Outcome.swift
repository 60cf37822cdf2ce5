public import OpenCatCore

extension MockStoreClient {
    /// What ``MockStoreClient/purchase(productId:appUserId:)`` does for a product.
    public enum PurchaseOutcome: Sendable {
        /// The purchase completes and a proof is minted.
        case success
        /// The purchase waits (Ask to Buy); complete it with ``MockStoreClient/approvePendingPurchase(productId:)``.
        case pending
        /// The user dismisses the sheet.
        case cancelled
        /// The store fails with this error (thrown by `purchase`).
        case failed(any Error)
    }

    /// Turns a transaction into the proof the store would hand the app.
    public typealias ProofMinter = @Sendable (Transaction) throws -> PurchaseProof

    /// The default minter: a proof of the kind the store uses (`appleTransactionId`, a Google purchase token,
    /// `stripePaymentIntent`, `paypalOrder`, `steamOrder`) with the token `mock_<store>_<transactionId>`.
    public static let defaultMinter: ProofMinter = { transaction in
        let kind: PurchaseProof.Kind
        switch transaction.store {
        case .apple: kind = .appleTransactionId
        case .google:
            kind =
                transaction.productType == .autoRenewable
                ? .googleSubscriptionPurchaseToken : .googleProductPurchaseToken
        case .stripe: kind = .stripePaymentIntent
        case .paypal: kind = .paypalOrder
        case .steam: kind = .steamOrder
        default: kind = PurchaseProof.Kind(rawValue: "\(transaction.store.rawValue)Transaction")
        }
        return PurchaseProof(
            store: transaction.store,
            kind: kind,
            token: Secret("mock_\(transaction.store.rawValue)_\(transaction.transactionId)"),
            productId: transaction.productId,
            transactionId: transaction.transactionId
        )
    }
}

import Foundation
import OpenCatCore
import StoreAdapters

/// A `StoreAdapter` that answers from a closure, with no network: what a server's own tests put behind its gate.
struct StubStoreAdapter: StoreAdapter {
    let store: Store
    let answer: @Sendable (PurchaseProof) throws -> VerifiedPurchase

    init(store: Store = .stripe, answer: @escaping @Sendable (PurchaseProof) throws -> VerifiedPurchase) {
        self.store = store
        self.answer = answer
    }

    func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase { try answer(proof) }

    /// A purchase as a store reports it: 4.99 EUR, bought by `player-42`.
    static func purchase(
        _ productId: String,
        state: VerifiedPurchase.State = .active,
        purchaser: String? = "player-42"
    ) -> VerifiedPurchase {
        VerifiedPurchase(
            store: .stripe,
            transactionId: "pi_example_0001",
            productId: productId,
            purchaser: purchaser,
            purchaseDate: Date(timeIntervalSince1970: 1_795_348_800),
            state: state,
            environment: .production,
            price: Money(decimalString: "4.99", currency: "EUR")
        )
    }

    /// A store error as an adapter throws it.
    static func error(_ code: StoreAdapterError.Code, retryAfter: Duration? = nil) -> StoreAdapterError {
        StoreAdapterError(code, store: .stripe, "stubbed", retryAfter: retryAfter)
    }
}

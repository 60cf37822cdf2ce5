import AuraLogicExample
import OpenCatCore

/// The app's store in a test, without StoreKit: buying the full unlock succeeds and hands over ``proof``; the
/// purchases it reports for a restore are ``owned``. An app passes its StoreKit 2 client instead.
struct FullUnlockStore: StoreClient {
    let store: Store = .apple
    /// What a completed purchase of the full unlock hands over (a signed transaction on a real device).
    let proof: PurchaseProof
    /// The purchases the store reports as current (`Transaction.currentEntitlements`).
    var owned: [PurchaseProof] = []

    func products(for ids: Set<String>) async throws -> [Product] { [] }

    func purchase(productId: String, appUserId: String) async throws -> StorePurchaseResult {
        guard productId == AuraLogicAccess.fullUnlockProductId else {
            throw OpenCatError(.store, "the store sells no \(productId)")
        }
        return .success(proof)
    }

    func currentEntitlements() async throws -> [PurchaseProof] { owned }

    func transactionUpdates() -> AsyncStream<PurchaseProof> { AsyncStream { $0.finish() } }

    func finish(_ proof: PurchaseProof) async throws {}
}

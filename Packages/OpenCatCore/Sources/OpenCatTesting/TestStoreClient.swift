import Foundation
public import OpenCatCore
import Synchronization

/// A scripted `StoreClient`: purchases answer from a per-product script, current entitlements and products are
/// set by the test, and transaction updates are emitted on demand. (MockStores ships a full in-process store.)
public final class TestStoreClient: StoreClient {
    /// One scripted answer to a purchase.
    public enum Scripted: Sendable {
        case result(StorePurchaseResult)
        case failure(OpenCatError)
    }

    private struct State {
        var purchases: [String: [Scripted]] = [:]
        var current: [PurchaseProof] = []
        var finished: [String] = []
        var products: [Product] = []
        var productsFail = false
    }

    public let store: Store
    private let state = Mutex(State())
    private let stream: AsyncStream<PurchaseProof>
    private let continuation: AsyncStream<PurchaseProof>.Continuation

    /// Creates a client for a store.
    public init(store: Store = .apple) {
        self.store = store
        (stream, continuation) = AsyncStream.makeStream()
    }

    public func script(_ productId: String, _ outcomes: Scripted...) {
        state.withLock { $0.purchases[productId, default: []] += outcomes }
    }
    public func setCurrent(_ proofs: [PurchaseProof]) { state.withLock { $0.current = proofs } }
    public func setProducts(_ products: [Product], failing: Bool = false) {
        state.withLock {
            $0.products = products
            $0.productsFail = failing
        }
    }
    public func emitUpdate(_ proof: PurchaseProof) { continuation.yield(proof) }
    public var finished: [String] { state.withLock { $0.finished } }

    public func products(for ids: Set<String>) async throws -> [Product] {
        try state.withLock { state in
            if state.productsFail { throw OpenCatError.network("offline") }
            return state.products.filter { ids.contains($0.id) }
        }
    }

    public func purchase(productId: String, appUserId: String) async throws -> StorePurchaseResult {
        let next: Scripted? = state.withLock { state in
            guard var queue = state.purchases[productId], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            state.purchases[productId] = queue
            return first
        }
        switch next {
        case .result(let result): return result
        case .failure(let error): throw error
        case nil: throw OpenCatError(.store, "TestStoreClient: no purchase scripted for \(productId)")
        }
    }

    public func currentEntitlements() async throws -> [PurchaseProof] { state.withLock { $0.current } }
    public func transactionUpdates() -> AsyncStream<PurchaseProof> { stream }
    public func finish(_ proof: PurchaseProof) async throws {
        state.withLock { $0.finished.append(proof.transactionId ?? proof.fingerprint) }
    }
}

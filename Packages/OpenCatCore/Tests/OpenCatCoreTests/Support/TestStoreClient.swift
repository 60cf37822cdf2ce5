import Foundation
import OpenCatCore
import Synchronization

/// A scripted StoreClient for OpenCatCore's own tests (MockStores ships the full in-process store).
final class TestStoreClient: StoreClient {
    enum Scripted: Sendable {
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

    let store: Store
    private let state = Mutex(State())
    private let stream: AsyncStream<PurchaseProof>
    private let continuation: AsyncStream<PurchaseProof>.Continuation

    init(store: Store = .apple) {
        self.store = store
        (stream, continuation) = AsyncStream.makeStream()
    }

    func script(_ productId: String, _ outcomes: Scripted...) { state.withLock { $0.purchases[productId, default: []] += outcomes } }
    func setCurrent(_ proofs: [PurchaseProof]) { state.withLock { $0.current = proofs } }
    func setProducts(_ products: [Product], failing: Bool = false) {
        state.withLock {
            $0.products = products
            $0.productsFail = failing
        }
    }
    func emitUpdate(_ proof: PurchaseProof) { continuation.yield(proof) }
    var finished: [String] { state.withLock { $0.finished } }

    func products(for ids: Set<String>) async throws -> [Product] {
        try state.withLock { state in
            if state.productsFail { throw OpenCatError.network("offline") }
            return state.products.filter { ids.contains($0.id) }
        }
    }

    func purchase(productId: String, appUserId: String) async throws -> StorePurchaseResult {
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

    func currentEntitlements() async throws -> [PurchaseProof] { state.withLock { $0.current } }
    func transactionUpdates() -> AsyncStream<PurchaseProof> { stream }
    func finish(_ proof: PurchaseProof) async throws {
        state.withLock { $0.finished.append(proof.transactionId ?? proof.fingerprint) }
    }
}

/// A PurchaseVerifier that answers from a table keyed by the proof's token, and counts calls.
final class TableVerifier: PurchaseVerifier {
    struct TransientFailure: TransientErrorClassifying, CustomStringConvertible {
        var isTransient: Bool { true }
        var description: String { "store unreachable" }
    }

    struct Forged: Error, CustomStringConvertible {
        var description: String { "signature mismatch" }
    }

    private let table: Mutex<[String: Result<VerifiedTransaction, any Error>]>
    private let calls = Mutex(0)

    init(_ table: [String: Result<VerifiedTransaction, any Error>] = [:]) { self.table = Mutex(table) }

    func set(_ token: String, _ result: Result<VerifiedTransaction, any Error>) { table.withLock { $0[token] = result } }
    var callCount: Int { calls.withLock { $0 } }

    func verifyPurchase(_ proof: PurchaseProof) async throws -> VerifiedTransaction {
        calls.withLock { $0 += 1 }
        guard let result = table.withLock({ $0[proof.token.revealed] }) else { throw Forged() }
        return try result.get()
    }
}

enum Fixture {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    static func proof(_ token: String, product: String, transaction: String, store: Store = .apple) -> PurchaseProof {
        PurchaseProof(store: store, kind: .appleSignedTransaction, token: Secret(token), productId: product, transactionId: transaction)
    }

    static func transaction(
        _ id: String, product: String, purchased: Date = epoch, expires: Date? = nil, status: TransactionInfo.Status = .active,
        grace: Date? = nil, willRenew: Bool = false, store: Store = .apple
    ) -> TransactionInfo {
        TransactionInfo(
            transactionId: id, productId: product, store: store, purchaseDate: purchased, expirationDate: expires,
            gracePeriodExpirationDate: grace, status: status, willRenew: willRenew)
    }

    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

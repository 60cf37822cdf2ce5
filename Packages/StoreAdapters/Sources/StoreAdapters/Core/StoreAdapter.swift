public import OpenCatCore

/// Verifies a purchase with one store's real protocol and returns the normalized result.
///
/// Every adapter answers with the same ``VerifiedPurchase`` and throws the same ``StoreAdapterError`` codes, so
/// callers (and the conformance suite) treat the five stores alike. An expected negative outcome (refunded,
/// expired, pending) is a *state* of the result, not an error.
public protocol StoreAdapter: Sendable {
    /// The store this adapter verifies.
    var store: Store { get }

    /// Verifies a proof of purchase.
    /// - Parameter proof: the store's proof (JWS, purchase token, payment or order id).
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError`` with a shared code and the store's own reason.
    func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase
}

/// Lets OpenCatCore's standalone mode verify through any ``StoreAdapter``.
public struct AdapterPurchaseVerifier: PurchaseVerifier {
    private let adapters: [Store: any StoreAdapter]

    /// Creates a verifier that routes each proof to the adapter for its store.
    public init(_ adapters: [any StoreAdapter]) {
        self.adapters = Dictionary(adapters.map { ($0.store, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func verifyPurchase(_ proof: PurchaseProof) async throws -> VerifiedTransaction {
        guard let adapter = adapters[proof.store] else {
            throw StoreAdapterError(.invalidProof, store: proof.store, "no adapter is configured for \(proof.store)")
        }
        let purchase = try await adapter.verify(proof)
        // An offline App Store JWS carries its signing date, which may be old; every other answer's time (an HTTP
        // Date, a signed date of a fresh API answer) is the store's reading of now.
        let current = proof.kind == .appleSignedTransaction ? nil : purchase.verifiedAt
        return VerifiedTransaction(
            transaction: purchase.transactionInfo,
            confirmedAt: purchase.verifiedAt,
            currentTime: current
        )
    }
}

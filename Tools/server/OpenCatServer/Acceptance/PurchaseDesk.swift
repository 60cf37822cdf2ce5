import Foundation
import HTTPTypes
import Logging
import OpenCatCore
import StoreAdapters

/// The one path a purchase takes from a proof to accepted, for every route that sells (the key-pack purchase,
/// `/v1/receipts`, the web portal's checkout) and every adapter the server was built with: the adapter instance
/// for the proof's store verifies it, then the route's ``PurchaseAcceptance`` judges it. No store is named here;
/// an adapter that is not built in sells as the five do.
struct PurchaseDesk: Sendable {
    /// The adapters the server was built with, by store (the last one given for a store wins).
    let adapters: [Store: any StoreAdapter]
    let logger: Logger

    init(adapters: [any StoreAdapter], logger: Logger) {
        self.adapters = Dictionary(adapters.map { ($0.store, $0) }, uniquingKeysWith: { _, last in last })
        self.logger = logger
    }

    /// The adapter for a store, or 404 when the server was not built with one.
    func adapter(for store: Store) throws -> any StoreAdapter {
        guard let adapter = adapters[store] else {
            throw APIError(.notFound, "not_found", "this server does not sell on \(store.rawValue)")
        }
        return adapter
    }

    /// Whether an adapter takes a kind of proof: a built-in adapter's declared kinds, or any kind for an adapter the
    /// server was built with beside them (a store the conformance suite invites adapter authors to write), which
    /// refuses a proof it cannot read itself.
    static func accepts(_ kind: PurchaseProof.Kind, from adapter: any StoreAdapter) -> Bool {
        guard let builtIn = type(of: adapter) as? any ConfigurableStoreAdapter.Type else { return true }
        return builtIn.acceptedProofKinds.contains(kind)
    }

    /// Verifies a proof with its adapter and judges the purchase under `acceptance`.
    func accept(_ proof: PurchaseProof, with adapter: any StoreAdapter, under acceptance: PurchaseAcceptance)
        async throws -> VerifiedPurchase
    {
        let purchase = try await verify(proof, with: adapter)
        try check(purchase, under: acceptance)
        return purchase
    }

    /// The store's verdict on a proof, or the refusal to answer.
    func verify(_ proof: PurchaseProof, with adapter: any StoreAdapter) async throws -> VerifiedPurchase {
        do { return try await adapter.verify(proof) } catch { throw refused(error, store: adapter.store) }
    }

    /// Judges a verified purchase: the first rule it breaks is the answer, 422 `invalid_receipt` with the rule's
    /// shared code as `reason`.
    func check(_ purchase: VerifiedPurchase, under acceptance: PurchaseAcceptance) throws {
        do throws(PurchaseRejection) { try acceptance.check(purchase) } catch {
            log(store: purchase.store, reason: error.reason.rawValue, rule: error.rule)
            throw APIError(.unprocessableContent, "invalid_receipt", error.message, reason: error.reason.rawValue)
        }
    }

    /// Logs a store's verdict on a proof by its shared code (never the proof, nor the store's message, which can
    /// quote it) and returns the refusal to answer.
    func refused(_ error: any Error, store: Store) -> APIError {
        if let error = error as? APIError { return error }
        let code = (error as? StoreAdapterError)?.code.rawValue ?? "unknown"
        log(store: store, reason: code)
        return Self.refusal(error)
    }

    private func log(store: Store, reason: String, rule: String? = nil) {
        var metadata: Logger.Metadata = ["store": .string(store.rawValue), "reason": .string(reason)]
        if let rule { metadata["rule"] = .string(rule) }
        logger.notice("proof refused", metadata: metadata)
        ServerMetrics.purchaseRefused(store: store.rawValue, reason: reason)
    }

    /// The refusal for a store's verdict: 422 `invalid_receipt` with the shared code when the proof is refused,
    /// 503 with `Retry-After` when the store could not answer.
    static func refusal(_ error: any Error) -> APIError {
        guard let error = error as? StoreAdapterError else {
            return APIError(.unprocessableContent, "invalid_receipt", "the proof was refused")
        }
        switch error.code {
        case .storeUnavailable, .timeout, .network, .rateLimited, .misconfigured, .unauthorized,
            .malformedResponse:
            return APIError.retry(
                .serviceUnavailable,
                "store_unavailable",
                "the store could not verify the proof now",
                after: 30,
                reason: error.code.rawValue
            )
        default:
            return APIError(
                .unprocessableContent,
                "invalid_receipt",
                "the store refused the proof",
                reason: error.code.rawValue
            )
        }
    }
}

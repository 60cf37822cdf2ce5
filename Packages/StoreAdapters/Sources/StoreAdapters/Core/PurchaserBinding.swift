import OpenCatCore

/// The purchaser check shared by the Google, Stripe, PayPal and Steam adapters (``PurchaseProof/expectedPurchaser``).
enum PurchaserBinding {
    /// Refuses a purchase the store attributes to someone else than the proof expects.
    ///
    /// When the proof expects nobody, anything passes. When it expects a purchaser, the store's value must be
    /// present and equal (exact, case-sensitive: these are opaque ids). A store that reports **no** purchaser is
    /// refused too: the binding the app asked for cannot be proved, and accepting it would let any unbound
    /// purchase be redeemed by any account.
    /// - Parameters:
    ///   - proof: the proof, with its expected purchaser.
    ///   - reported: the purchaser the store reports.
    ///   - field: where the store reports it, for ``StoreAdapterError/storeReason`` (never the values).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/purchaserMismatch``.
    static func check(_ proof: PurchaseProof, reported: String?, field: String) throws(StoreAdapterError) {
        guard let expected = proof.expectedPurchaser else { return }
        guard let reported, !reported.isEmpty else {
            throw StoreAdapterError(
                .purchaserMismatch,
                store: proof.store,
                "a purchaser is expected but the store reports none",
                storeReason: "\(field) missing"
            )
        }
        guard reported == expected else {
            throw StoreAdapterError(
                .purchaserMismatch,
                store: proof.store,
                "the store reports another purchaser than the one expected",
                storeReason: field
            )
        }
    }
}

extension VerifiedPurchase {
    /// Refuses a purchase made in an environment the caller does not accept.
    ///
    /// Adapters verify sandbox and test purchases as genuine (App Store sandbox, Google license testers with
    /// `purchaseType` 0 or a `testPurchase` subscription, Stripe test mode, PayPal sandbox, Steam
    /// `ISteamMicroTxnSandbox`) and report them with ``Environment-swift.enum/sandbox``. A server that grants only
    /// real-money purchases calls this after verifying:
    ///
    /// ```swift
    /// let purchase = try await adapter.verify(proof)
    /// try purchase.requireEnvironment(in: [.production])
    /// ```
    ///
    /// - Parameter accepted: the environments that count (`[.production]` for a live server, `[.production,
    ///   .sandbox]` for a staging one).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/sandboxNotAccepted`` naming the purchase's
    ///   environment (its ``StoreAdapterError/storeReason`` is the environment's raw value); never a proof or a
    ///   transaction id.
    public func requireEnvironment(in accepted: Set<Environment>) throws(StoreAdapterError) {
        guard !accepted.contains(environment) else { return }
        let names = accepted.map(\.rawValue).sorted()
        throw StoreAdapterError(
            .sandboxNotAccepted,
            store: store,
            "the purchase was made in the \(environment.rawValue) environment, which is not accepted here "
                + "(accepted: \(names.isEmpty ? "none" : names.joined(separator: ", ")))",
            storeReason: environment.rawValue
        )
    }
}

public import OpenCatCore
public import StoreAdapters

/// Answers, on a server, "does this proof unlock this product?" with one configured ``StoreAdapter``.
///
/// ```swift
/// let stripe = PurchaseGate(adapter: StripeAdapter(configuration: .init(secretKey: Secret(stripeSecretKey))))
/// // POST /unlock {"paymentIntent": "pi_…", "product": "gems_500"}
/// let decision = await stripe.decide(
///     PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(body.paymentIntent)),
///     unlocks: body.product,
///     purchaser: user.id
/// )
/// if decision.isUnlocked { grant(body.product, to: user) }
/// return UnlockAnswer(unlocked: decision.isUnlocked, message: decision.message)
/// ```
///
/// Any adapter works the same way: `AppleStoreAdapter`, `GooglePlayAdapter`, `StripeAdapter`, `PayPalAdapter`,
/// `SteamAdapter`, a third party's, or a test double.
public struct PurchaseGate: Sendable {
    /// The store adapter, configured with the server's credentials.
    public let adapter: any StoreAdapter

    /// Creates a gate.
    /// - Parameter adapter: see ``adapter``.
    public init(adapter: any StoreAdapter) {
        self.adapter = adapter
    }

    /// Verifies a proof with the store and decides what it means for one product.
    ///
    /// The proof is sent with `productId` set to the product asked about (and `expectedPurchaser` to `purchaser`
    /// when given), so the adapter itself refuses a purchase of another product or by another account. The answer is
    /// checked again here, so an adapter that does not check cannot unlock the wrong product.
    /// - Parameters:
    ///   - proof: the proof the app sent.
    ///   - productId: the product the app wants unlocked.
    ///   - purchaser: the user the app bound the purchase to, in the store's terms (Apple `appAccountToken`, Google
    ///     obfuscated account id, Stripe `metadata`, PayPal `custom_id`, Steam id); `nil` to accept any buyer.
    /// - Returns: the decision. A failure is a decision too: this never throws.
    public func decide(_ proof: PurchaseProof, unlocks productId: String, purchaser: String? = nil) async
        -> PurchaseDecision
    {
        var proof = proof
        proof.productId = productId
        if let purchaser { proof.expectedPurchaser = purchaser }
        let purchase: VerifiedPurchase
        do {
            purchase = try await adapter.verify(proof)
        } catch let error as StoreAdapterError {
            return PurchaseDecision(error)
        } catch {
            // Adapters throw StoreAdapterError only: anything else is a bug to report, never an unlock.
            return .serviceError(nil)
        }
        guard purchase.productId == productId else { return .refused(.otherProduct) }
        if let purchaser, let reported = purchase.purchaser, reported != purchaser { return .refused(.otherPurchaser) }
        return PurchaseDecision(purchase)
    }
}

public import StoreAdapters

/// What a server tells the app about one product after verifying a purchase: the one value a route turns into its
/// answer and the app into a screen.
///
/// Every ``VerifiedPurchase/State`` and every ``StoreAdapterError`` code maps to exactly one decision, so the five
/// stores are answered alike. Only ``unlocked(_:)`` grants anything.
public enum PurchaseDecision: Sendable, Hashable {
    /// The purchase grants the product now: paid, or in the store's grace period.
    case unlocked(VerifiedPurchase)
    /// The store has not taken the money yet (Ask to Buy, a slow payment method, a capture to come): nothing is
    /// unlocked; the store's next update decides.
    case pending
    /// A genuine purchase that no longer grants the product: refunded, expired or in billing retry (the state).
    case revoked(VerifiedPurchase.State)
    /// The proof is not accepted, and sending it again will not change that.
    case refused(Refusal)
    /// Nothing is known yet: the store is slow, down or asked us to slow down. The app may try again, after the
    /// store's delay when it gave one.
    case retryLater(after: Duration?)
    /// The server's side is wrong (credentials, configuration, a store answer it cannot read, an adapter that broke
    /// its contract: `nil`): whoever runs the server is alerted; the user is told to try later.
    case serviceError(StoreAdapterError.Code?)

    /// Why a proof was refused.
    public enum Refusal: String, Sendable, Hashable, CaseIterable {
        /// Forged, altered or unreadable (``StoreAdapterError/Code/invalidProof``).
        case notGenuine
        /// A purchase made in another app (``StoreAdapterError/Code/wrongApplication``).
        case otherApplication
        /// A purchase of another product (``StoreAdapterError/Code/productMismatch``).
        case otherProduct
        /// The store does not know the purchase (``StoreAdapterError/Code/notFound``).
        case unknownPurchase
        /// The payment failed, was declined or was cancelled (``StoreAdapterError/Code/notPaid``).
        case notPaid
        /// A purchase made by another account (``StoreAdapterError/Code/purchaserMismatch``).
        case otherPurchaser
        /// A sandbox or test purchase where only real ones count (``StoreAdapterError/Code/sandboxNotAccepted``).
        case testPurchase
    }

    /// The decision for a verified purchase of the product that was asked about.
    /// - Parameter purchase: the store's normalized answer.
    public init(_ purchase: VerifiedPurchase) {
        switch purchase.state {
        case .active, .gracePeriod: self = .unlocked(purchase)
        case .pending: self = .pending
        case .expired, .refunded, .billingRetry: self = .revoked(purchase.state)
        }
    }

    /// The decision for a verification that failed.
    ///
    /// A code this example does not know (StoreAdapters may add some) is a ``serviceError(_:)``: it unlocks nothing
    /// and reaches whoever runs the server.
    /// - Parameter error: the adapter's error.
    public init(_ error: StoreAdapterError) {
        switch error.code {
        case .invalidProof: self = .refused(.notGenuine)
        case .wrongApplication: self = .refused(.otherApplication)
        case .productMismatch: self = .refused(.otherProduct)
        case .notFound: self = .refused(.unknownPurchase)
        case .notPaid: self = .refused(.notPaid)
        case .purchaserMismatch: self = .refused(.otherPurchaser)
        case .sandboxNotAccepted: self = .refused(.testPurchase)
        case .rateLimited: self = .retryLater(after: error.retryAfter)
        case .storeUnavailable, .timeout, .network: self = .retryLater(after: nil)
        default: self = .serviceError(error.code)  // unauthorized, misconfigured, malformedResponse, and any new code
        }
    }

    /// Whether the product may be used now.
    public var isUnlocked: Bool { unlockedPurchase != nil }

    /// The purchase that unlocks the product, for ``unlocked(_:)``; `nil` otherwise.
    public var unlockedPurchase: VerifiedPurchase? {
        if case .unlocked(let purchase) = self { purchase } else { nil }
    }

    /// A sentence the app can show the user (it names no store code and no secret).
    public var message: String {
        switch self {
        case .unlocked: "Unlocked. Enjoy!"
        case .pending: "Your payment is not complete yet: the purchase unlocks as soon as it is."
        case .revoked(.refunded): "This purchase was refunded."
        case .revoked(.expired): "Your subscription has ended."
        case .revoked: "Your subscription's payment did not go through: update your payment method to continue."
        case .refused(.notPaid): "The payment did not go through."
        case .refused(.otherPurchaser): "This purchase belongs to another account."
        case .refused(.testPurchase): "This was a test purchase; it does not unlock anything here."
        case .refused: "This purchase could not be confirmed."
        case .retryLater: "The store cannot confirm purchases right now. Please try again in a moment."
        case .serviceError: "Purchases cannot be confirmed right now. Please try again later."
        }
    }
}

/// What a store hands over as evidence of a purchase, to be verified by a ``PurchaseVerifier`` or posted to the
/// OpenCat server.
///
/// The ``token`` is the store's proof: an App Store signed transaction (JWS), a Google Play purchase token, a
/// Stripe PaymentIntent id, a PayPal order id, a Steam order id. It is a ``Secret`` and never printed.
public struct PurchaseProof: Sendable, Hashable {
    /// What kind of proof ``token`` is.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An App Store signed transaction (compact JWS, `JWSTransaction`).
        public static let appleSignedTransaction = Kind(rawValue: "appleSignedTransaction")
        /// An App Store transaction id, to be looked up with the App Store Server API.
        public static let appleTransactionId = Kind(rawValue: "appleTransactionId")
        /// A transaction id of an App Store subscription, verified with Apple's subscription status endpoint.
        public static let appleSubscriptionStatus = Kind(rawValue: "appleSubscriptionStatus")
        /// A Google Play purchase token for a one-time product.
        public static let googleProductPurchaseToken = Kind(rawValue: "googleProductPurchaseToken")
        /// A Google Play purchase token for a subscription.
        public static let googleSubscriptionPurchaseToken = Kind(rawValue: "googleSubscriptionPurchaseToken")
        /// A Stripe PaymentIntent id (`pi_…`).
        public static let stripePaymentIntent = Kind(rawValue: "stripePaymentIntent")
        /// A Stripe Billing subscription id (`sub_…`).
        public static let stripeSubscription = Kind(rawValue: "stripeSubscription")
        /// A PayPal subscription id (`I-…`).
        public static let paypalSubscription = Kind(rawValue: "paypalSubscription")
        /// A Steam recurring agreement: the agreement id, with the Steam id in `context`.
        public static let steamAgreement = Kind(rawValue: "steamAgreement")
        /// A PayPal Orders v2 order id.
        public static let paypalOrder = Kind(rawValue: "paypalOrder")
        /// A Steam microtransaction order id (the partner's own 64-bit id).
        public static let steamOrder = Kind(rawValue: "steamOrder")
        /// A Steam microtransaction transaction id (Steam's 64-bit id).
        public static let steamTransaction = Kind(rawValue: "steamTransaction")
    }

    /// The store that issued the proof.
    public var store: Store
    /// What ``token`` is.
    public var kind: Kind
    /// The proof itself.
    public var token: Secret<String>
    /// The product the app believes was bought (checked against the store's answer when present).
    public var productId: String?
    /// The store's transaction id when it is known before verification (used to deduplicate posts).
    public var transactionId: String?
    /// Store-specific context that is not secret (Google `packageName`, Steam `appid`, …).
    public var context: [String: String]
    /// The buyer the app expects, in the store's own terms (Apple appAccountToken, Google
    /// obfuscatedExternalAccountId, Stripe `metadata` value, PayPal `custom_id`, Steam steamid). When set, an
    /// adapter refuses a purchase whose store-reported purchaser differs (`purchaserMismatch`-style error).
    public var expectedPurchaser: String?

    /// Creates a proof.
    public init(
        store: Store,
        kind: Kind,
        token: Secret<String>,
        productId: String? = nil,
        transactionId: String? = nil,
        context: [String: String] = [:],
        expectedPurchaser: String? = nil
    ) {
        self.store = store
        self.kind = kind
        self.token = token
        self.productId = productId
        self.transactionId = transactionId
        self.context = context
        self.expectedPurchaser = expectedPurchaser
    }

    /// A stable, non-reversible identifier for deduplication when the store's transaction id is unknown:
    /// the SHA-256 of store, kind and token, hex-encoded.
    public var fingerprint: String {
        Fingerprint.hex(of: "\(store.rawValue)\u{0}\(kind.rawValue)\u{0}\(token.revealed)")
    }

    /// The key under which this purchase is posted at most once: `store:transactionId`, or `store:#fingerprint`.
    public var deduplicationKey: String { "\(store.rawValue):\(transactionId ?? "#" + fingerprint)" }
}

extension PurchaseProof: CustomStringConvertible {
    public var description: String {
        "PurchaseProof(store: \(store), kind: \(kind), token: \(token), productId: \(productId ?? "nil"))"
    }
}

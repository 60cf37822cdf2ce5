public import OpenCatCore

/// The body of a key-pack purchase, `POST /api/v1/keys/purchase/{platform}`: the platform's proof and the buyer.
///
/// Each platform sends its own members; make one with ``apple(transaction:userEmail:)``,
/// ``google(purchaseToken:productId:userEmail:)``, ``stripe(paymentIntentId:userEmail:)``,
/// ``paypal(paymentId:userEmail:)`` or ``steam(steamId:transactionId:)``; a store beside the five, whose adapter the
/// server was built with, takes ``other(kind:proof:productId:transactionId:userEmail:)`` at
/// `POST /api/v1/keys/purchase/{store}`. Absent members are left out of the JSON.
/// The proofs are not secrets to the server, but its description leaves them out (logs).
public struct KeyPurchaseRequest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Apple: the StoreKit 2 signed transaction (compact JWS).
    public var transaction: String?
    /// Google: the purchase token.
    public var purchaseToken: String?
    /// Google: the product id.
    public var productId: String?
    /// Stripe: the PaymentIntent id.
    public var paymentIntentId: String?
    /// PayPal: the order id.
    public var paymentId: String?
    /// Steam: the buyer's 64-bit Steam id.
    public var steamId: String?
    /// Steam: the microtransaction's id.
    public var transactionId: String?
    /// Apple, Google, Stripe, PayPal, another store: the account's email.
    public var userEmail: String?
    /// Another store: the proof's kind (`PurchaseProof.Kind` raw value).
    public var kind: String?
    /// Another store: the proof (a receipt id, a token).
    public var proof: String?

    /// Creates a body from its members (prefer the per-platform factories).
    public init(
        transaction: String? = nil,
        purchaseToken: String? = nil,
        productId: String? = nil,
        paymentIntentId: String? = nil,
        paymentId: String? = nil,
        steamId: String? = nil,
        transactionId: String? = nil,
        userEmail: String? = nil,
        kind: String? = nil,
        proof: String? = nil
    ) {
        self.transaction = transaction
        self.purchaseToken = purchaseToken
        self.productId = productId
        self.paymentIntentId = paymentIntentId
        self.paymentId = paymentId
        self.steamId = steamId
        self.transactionId = transactionId
        self.userEmail = userEmail
        self.kind = kind
        self.proof = proof
    }

    /// An App Store purchase.
    public static func apple(transaction: String, userEmail: String) -> Self {
        Self(transaction: transaction, userEmail: userEmail)
    }

    /// A Google Play purchase.
    public static func google(purchaseToken: String, productId: String, userEmail: String) -> Self {
        Self(purchaseToken: purchaseToken, productId: productId, userEmail: userEmail)
    }

    /// A Stripe payment.
    public static func stripe(paymentIntentId: String, userEmail: String) -> Self {
        Self(paymentIntentId: paymentIntentId, userEmail: userEmail)
    }

    /// A PayPal order.
    public static func paypal(paymentId: String, userEmail: String) -> Self {
        Self(paymentId: paymentId, userEmail: userEmail)
    }

    /// A Steam microtransaction.
    public static func steam(steamId: String, transactionId: String) -> Self {
        Self(steamId: steamId, transactionId: transactionId)
    }

    /// A purchase on a store beside the five, by the proof its adapter reads.
    public static func other(
        kind: String,
        proof: String,
        productId: String? = nil,
        transactionId: String? = nil,
        userEmail: String
    ) -> Self {
        Self(productId: productId, transactionId: transactionId, userEmail: userEmail, kind: kind, proof: proof)
    }

    /// The members present, without their values.
    public var description: String {
        let present: [(String, String?)] = [
            ("transaction", transaction), ("purchaseToken", purchaseToken), ("productId", productId),
            ("paymentIntentId", paymentIntentId), ("paymentId", paymentId), ("steamId", steamId),
            ("transactionId", transactionId), ("userEmail", userEmail), ("kind", kind), ("proof", proof),
        ]
        return "KeyPurchaseRequest(" + present.compactMap { $0.1 == nil ? nil : $0.0 }.joined(separator: ", ") + ")"
    }
}

/// The body of `POST /api/v1/wallet/spend`: keys spent on a feature of an app.
public struct SpendRequest: Sendable, Hashable, Codable {
    /// Keys to spend (one or more).
    public var amount: Int
    /// The feature paid for.
    public var feature: String
    /// The app.
    public var app: String
    /// The wallet's user (the token's own).
    public var userId: String

    /// Creates a spend.
    public init(amount: Int, feature: String, app: String, userId: String) {
        self.amount = amount
        self.feature = feature
        self.app = app
        self.userId = userId
    }
}

/// The body of `POST /api/v1/wallet/sync`.
public struct WalletSyncRequest: Sendable, Hashable, Codable {
    /// The wallet's user (the token's own).
    public var userId: String

    /// Creates a sync request.
    public init(userId: String) { self.userId = userId }
}

/// The body of `POST /api/v1/apps/{appId}/unlock`.
public struct UnlockRequest: Sendable, Hashable, Codable {
    /// The feature to unlock.
    public var featureId: String
    /// The wallet's user (the token's own).
    public var userId: String

    /// Creates an unlock.
    public init(featureId: String, userId: String) {
        self.featureId = featureId
        self.userId = userId
    }
}

/// The body of `POST /api/v1/community/donate`.
public struct DonationRequest: Sendable, Hashable, Codable {
    /// Keys to give to the community pool (one or more).
    public var amount: Int
    /// The giver (the token's own user).
    public var userId: String

    /// Creates a donation.
    public init(amount: Int, userId: String) {
        self.amount = amount
        self.userId = userId
    }
}

/// The body of `POST /api/v1/community/share`.
public struct ShareRequest: Sendable, Hashable, Codable {
    /// Keys to give (one or more).
    public var amount: Int
    /// The recipient's email (an account, or one that will sign in with it).
    public var recipientEmail: String
    /// The giver (the token's own user).
    public var userId: String

    /// Creates a share.
    public init(amount: Int, recipientEmail: String, userId: String) {
        self.amount = amount
        self.recipientEmail = recipientEmail
        self.userId = userId
    }
}

/// The key server's error answer (every status outside 2xx): `{"error": {"code": …, "message": …, "reason": …}}` —
/// the kernel's one error answer. `code`: `unauthorized`, `insufficient_balance`, `invalid_receipt`, `rate_limited`,
/// … (open); `reason`: for a refused proof, the shared StoreAdapters code (`invalidProof`, `notPaid`, …).
public typealias KeyServerErrorAnswer = JSONAPIErrorAnswer

public import OpenCatCore

/// The one error type of every ``StoreAdapter``: a code shared by all stores, plus the store's own reason.
///
/// A refund or an expiry is not an error: it is a ``VerifiedPurchase/State``.
public struct StoreAdapterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The shared codes. Extensible: adding one is not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// Bad signature, chain or format: the proof is not genuine or not readable.
        public static let invalidProof = Code(rawValue: "invalidProof")
        /// The purchase belongs to another app (bundle id, package name, app id).
        public static let wrongApplication = Code(rawValue: "wrongApplication")
        /// The purchase is for another product than the one expected.
        public static let productMismatch = Code(rawValue: "productMismatch")
        /// The store does not know the transaction.
        public static let notFound = Code(rawValue: "notFound")
        /// The payment failed, was declined or cancelled.
        public static let notPaid = Code(rawValue: "notPaid")
        /// The store rejected our credentials.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The store asked us to slow down (see ``StoreAdapterError/retryAfter``).
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// The store kept failing (5xx) after retries.
        public static let storeUnavailable = Code(rawValue: "storeUnavailable")
        /// No answer in time.
        public static let timeout = Code(rawValue: "timeout")
        /// The store answered something we cannot read.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// The store could not be reached.
        public static let network = Code(rawValue: "network")

        /// The store reports a purchaser other than the one the proof expected (`PurchaseProof/expectedPurchaser`).
        public static let purchaserMismatch = Code(rawValue: "purchaserMismatch")
        /// The adapter's configuration cannot verify safely (an empty webhook secret, a missing expected price).
        public static let misconfigured = Code(rawValue: "misconfigured")
        /// The purchase is genuine but was made in an environment the caller does not accept (a sandbox or test
        /// purchase where only real money counts); see ``VerifiedPurchase/requireEnvironment(in:)``.
        public static let sandboxNotAccepted = Code(rawValue: "sandboxNotAccepted")
        /// The store does not offer the operation (``StoreOperations``): the conformance matrix's n.a.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The operation was already done (a refund of a refunded payment, a cancel of a cancelled subscription).
        public static let alreadyDone = Code(rawValue: "alreadyDone")

        /// Every shared code.
        public static let all: [Code] = [
            .invalidProof, .wrongApplication, .productMismatch, .notFound, .notPaid, .unauthorized, .rateLimited,
            .storeUnavailable, .timeout, .malformedResponse, .network, .purchaserMismatch, .misconfigured,
            .sandboxNotAccepted, .unsupported, .alreadyDone,
        ]
    }

    /// The shared code.
    public var code: Code
    /// The store that answered.
    public var store: Store
    /// What happened, in OpenCat's words. Never contains a secret.
    public var message: String
    /// The store's own code or reason (`4040010`, `purchaseTokenNoLongerValid`, `resource_missing`,
    /// `ORDER_NOT_APPROVED`, Steam error 100, …).
    public var storeReason: String?
    /// The HTTP status of the store's answer, if there was one.
    public var httpStatus: Int?
    /// For ``Code/rateLimited``: how long the store asked to wait.
    public var retryAfter: Duration?

    /// Creates an error.
    public init(
        _ code: Code,
        store: Store,
        _ message: String,
        storeReason: String? = nil,
        httpStatus: Int? = nil,
        retryAfter: Duration? = nil
    ) {
        self.code = code
        self.store = store
        self.message = message
        self.storeReason = storeReason
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    public var description: String {
        var text = "StoreAdapterError(\(code), \(store)): \(message)"
        if let storeReason { text += " [store reason: \(storeReason)]" }
        if let httpStatus { text += " [HTTP \(httpStatus)]" }
        if let retryAfter { text += " [retry after \(retryAfter)]" }
        return text
    }
}

/// A key-vault failure, typed. Never carries a key or license.
public struct KeyVaultError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as text (stable: safe to store and compare).
        public let rawValue: String
        /// A code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as text.
        public var description: String { rawValue }

        /// More keys than the known balance.
        public static let insufficientBalance = Code(rawValue: "insufficientBalance")
        /// A license that does not verify (forged, tampered, another issuer's, expired).
        public static let invalidLicense = Code(rawValue: "invalidLicense")
        /// Bad input (an empty user id, a spend of zero keys).
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// The encrypted cache could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// The key server refused the spend for another reason than the balance (see the underlying error).
        public static let rejected = Code(rawValue: "rejected")
        /// No key server is configured.
        public static let offlineOnly = Code(rawValue: "offlineOnly")
        /// A revocation list that does not verify (forged, tampered, an unknown `kid`, malformed).
        public static let invalidRevocations = Code(rawValue: "invalidRevocations")
        /// A revocation list older than the one the vault accepted (a rollback): refused.
        public static let staleRevocations = Code(rawValue: "staleRevocations")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for logs and developers; never holds a key or license.
    public var message: String
    /// The cause (a ``KeyServerError``, a cache error), if any.
    public var underlying: (any Error)?

    /// An error with its code, message and cause.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The code and the message.
    public var description: String { "KeyVaultError.\(code): \(message)" }
}

/// What happened to a spend.
public enum SpendOutcome: Sendable, Hashable {
    /// The server took it; the balance it reported.
    case confirmed(remainingBalance: Int)
    /// Applied here and waiting for the server (offline, or the server is down).
    case pending
}

/// What a vault sync did.
public struct VaultSyncReport: Sendable, Hashable {
    /// Offline spends the server confirmed.
    public var confirmed: Int = 0
    /// Offline spends the server refused: reverted (feature locked again unless it was unlocked before), with the
    /// server's reason.
    public var reverted: [RevertedSpend] = []
    /// Spends still waiting (the server could not be reached).
    public var stillPending: Int = 0
    /// Whether the wallet was refreshed from the server.
    public var walletRefreshed = false
    /// Spends stalled after repeated failures that waiting does not cure; sent again by `sync(retryingStalled: true)`.
    public var stalled: Int = 0
    /// Failures to read or write the vault's outbox since the vault was opened (each is also logged).
    public var storageFailures: Int = 0

    /// An empty report (nothing done).
    public init() {}
}

/// A spend the server refused.
public struct RevertedSpend: Sendable, Hashable {
    /// The feature the spend unlocked (locked again unless it was unlocked before).
    public var feature: String
    /// The app of the feature.
    public var app: String
    /// The keys given back to the balance.
    public var amount: Int
    /// The server's reason.
    public var reason: KeyServerError.Code
}

public import Foundation

/// One append-only ledger entry: a balance change and why. A user's balance is the sum of their entries.
public struct LedgerEntry: Sendable, Hashable, Codable {
    /// The entry's id (`le_…`).
    public var id: String
    /// The user whose balance the entry changes (or `communityPoolAccount`).
    public var userId: String
    /// Keys added (positive) or taken (negative).
    public var amount: Int64
    /// `purchase`, `spend`, `donation`, `share`, `received`, `refund`, … (open).
    public var kind: String
    /// What it is about: a feature, a store transaction, another user.
    public var reference: String?
    /// The app a spend or unlock was made in, when the request named one.
    public var app: String?
    /// When the entry was written, from the store's clock.
    public var createdAt: Date

    /// An entry.
    public init(
        id: String,
        userId: String,
        amount: Int64,
        kind: String,
        reference: String? = nil,
        app: String? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.userId = userId
        self.amount = amount
        self.kind = kind
        self.reference = reference
        self.app = app
        self.createdAt = createdAt
    }
}

/// A ledger failure, typed.
public struct LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; an open set, its raw value sent as the API's error code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as the API sends it (`insufficient_balance`).
        public let rawValue: String
        /// A code from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as the API sends it.
        public var description: String { rawValue }

        /// The wallet holds fewer keys than the spend.
        public static let insufficientBalance = Code(rawValue: "insufficient_balance")
        /// The store transaction was already redeemed (by anyone).
        public static let alreadyRedeemed = Code(rawValue: "already_redeemed")
        /// The idempotency key was used before for a different operation.
        public static let idempotencyConflict = Code(rawValue: "idempotency_conflict")
        /// Bad input (a non-positive amount, an empty id).
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The database failed.
        public static let storage = Code(rawValue: "storage")
        /// The store transaction belongs to another user of the OpenCat API.
        public static let ownedByAnotherUser = Code(rawValue: "receipt_in_use")
        /// The store refunded the transaction: it can no longer be redeemed.
        public static let refunded = Code(rawValue: "refunded")
        /// Nothing is known under that id (a recipient's email, a transaction).
        public static let notFound = Code(rawValue: "not_found")
        /// The keys were received already (a share whose recipient signed in): there is nothing to take back.
        public static let alreadyReceived = Code(rawValue: "already_received")
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, in words; no token and no secret.
    public var message: String

    /// An error with its code and message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `LedgerError.<code>: <message>`.
    public var description: String { "LedgerError.\(code): \(message)" }
}

/// The outcome of a spend: the entry written (or the one an earlier request with the same key wrote) and the
/// balance after it.
public struct SpendOutcome: Sendable, Hashable {
    /// The spend's entry (its amount negative).
    public var entry: LedgerEntry
    /// The user's balance after it, in keys.
    public var balance: Int64
    /// Whether this request only replayed an earlier one with the same idempotency key.
    public var replayed: Bool
}

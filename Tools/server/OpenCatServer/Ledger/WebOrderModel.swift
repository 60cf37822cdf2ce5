public import Foundation

/// A web order's state (docs/SECURITY.md, "The order model"): where the buyer's money and keys stand. Every change
/// of an order's state goes through ``after(_:)``, the one transition function, applied by the web orders'
/// repository in the same transaction as the state it reads.
public enum WebOrderState: Sendable, Hashable, CustomStringConvertible {
    /// The store's checkout was created; the store has not said it is paid.
    case created
    /// The store says it is paid; the keys are not credited yet (the reconciler credits them).
    case paid
    /// The keys are in the buyer's wallet.
    case credited
    /// Paid, and a rule of the server refused to credit it: an operator credits or refunds it. `rule` names the rule
    /// (`total`, `orderQuantity`, `keyPack`, …), `detail` says it in words.
    case needsAttention(rule: String, detail: String)
    /// The store refunded it in whole.
    case refunded
    /// The store's checkout expired, or was cancelled, unpaid.
    case expired

    /// The state as stored.
    public var rawValue: String {
        switch self {
        case .created: "created"
        case .paid: "paid"
        case .credited: "credited"
        case .needsAttention: "needs_attention"
        case .refunded: "refunded"
        case .expired: "expired"
        }
    }

    /// The states as stored, in the order an order passes them.
    public static let rawValues = ["created", "paid", "needs_attention", "credited", "refunded", "expired"]

    /// A stored state (an unknown one reads as needing attention, naming it).
    public init(rawValue: String, rule: String? = nil, detail: String? = nil) {
        switch rawValue {
        case "created": self = .created
        case "paid": self = .paid
        case "credited": self = .credited
        case "refunded": self = .refunded
        case "expired": self = .expired
        case "needs_attention": self = .needsAttention(rule: rule ?? "unknown", detail: detail ?? "")
        default: self = .needsAttention(rule: "state", detail: "an unknown state: \(rawValue)")
        }
    }

    /// Whether nothing more happens to it without the store (credited, refunded, expired): the reconciler asks the
    /// store about every other order.
    public var isSettled: Bool {
        switch self {
        case .credited, .refunded, .expired: true
        case .created, .paid, .needsAttention: false
        }
    }

    /// The buyer has paid and holds no keys for it yet.
    public var isOwed: Bool {
        switch self {
        case .paid, .needsAttention: true
        default: false
        }
    }

    /// `needs_attention (total: the payment is not the order's price)`, or the raw state.
    public var description: String {
        if case .needsAttention(let rule, let detail) = self { return "\(rawValue) (\(rule): \(detail))" }
        return rawValue
    }

    /// The state `event` moves an order in this state to, or nil when the event does not apply to it (the order
    /// stays as it is). The whole model:
    ///
    /// | from | unpaid | unanswered | paid | credited | refused | expired | refunded |
    /// |---|---|---|---|---|---|---|---|
    /// | created | created | created | paid | credited | needs attention | expired | refunded |
    /// | paid | – | paid | paid | credited | needs attention | – | refunded |
    /// | needs attention | – | needs attention | – | credited | needs attention | – | refunded |
    /// | credited | – | – | – | – | – | – | refunded |
    /// | refunded, expired | – | – | – | – | – | – | – |
    public func after(_ event: WebOrderEvent) -> WebOrderState? {
        switch (self, event) {
        case (.created, .unpaid): .created
        case (_, .unanswered) where !isSettled: self
        case (.created, .expired): .expired
        case (.created, .paid), (.paid, .paid): .paid
        case (.created, .credited), (.paid, .credited), (.needsAttention, .credited): .credited
        case (.created, .refused(let rule, let detail)), (.paid, .refused(let rule, let detail)),
            (.needsAttention, .refused(let rule, let detail)):
            .needsAttention(rule: rule, detail: detail)
        case (.created, .refunded), (.paid, .refunded), (.needsAttention, .refunded), (.credited, .refunded):
            .refunded
        default: nil
        }
    }
}

/// What the store, a rule or the ledger said of a web order.
public enum WebOrderEvent: Sendable, Hashable {
    /// The store has not been paid yet.
    case unpaid
    /// The store (or the ledger) could not answer now: ask again later.
    case unanswered
    /// The store says it is paid, as this store transaction.
    case paid(transactionId: String)
    /// Its keys were credited as this store transaction.
    case credited(transactionId: String)
    /// Paid, and a rule of the server refused to credit it.
    case refused(rule: String, detail: String)
    /// The store's checkout expired or was cancelled, unpaid.
    case expired
    /// The store refunded it in whole.
    case refunded

    /// The store transaction the event names, if it names one.
    var transactionId: String? {
        switch self {
        case .paid(let id), .credited(let id): id
        default: nil
        }
    }
}

/// When the reconciler asks the store about an unsettled order next: a minute after it was created, then after each
/// unanswered check twice as long as before (1, 2, 4, … minutes), at most an hour apart.
public enum WebOrderSchedule {
    /// The first check: a minute after the order was created.
    public static let first: TimeInterval = 60
    /// The longest wait between two checks.
    public static let longest: TimeInterval = 3_600
    /// An order still unpaid this long after it was created is expired (Stripe's Checkout Sessions expire within a
    /// day, PayPal's unapproved orders sooner).
    public static let giveUpAfter: TimeInterval = 7 * 86_400

    /// The wait after the `checks`-th check.
    public static func wait(afterCheck checks: Int64) -> TimeInterval {
        min(first * pow(2, Double(min(max(checks, 0), 12))), longest)
    }
}

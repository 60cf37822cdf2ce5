import Foundation
import HTTPTypes
import Logging
import OpenCatCore
import OpenCatLicense
import StoreAdapters

/// Why a verified purchase was not accepted: the shared StoreAdapters code and a message of the server's own (it
/// never quotes the proof or the store's answer).
struct PurchaseRejection: Error, Sendable {
    /// The shared code the answer carries as `reason`.
    var reason: StoreAdapterError.Code
    /// What the client reads.
    var message: String
    /// The name of the rule that refused it (logged; set by ``PurchaseAcceptance/check(_:)``).
    var rule: String?

    init(_ reason: StoreAdapterError.Code, _ message: String) {
        self.reason = reason
        self.message = message
    }
}

/// One rule a verified purchase meets before a route accepts it: a value, composed with others into a
/// ``PurchaseAcceptance`` per route (the way swift-certificates composes verifier policies). A rule only judges;
/// it never writes.
struct PurchaseRule: Sendable {
    /// The rule's name, for logs and tests.
    let name: String
    let check: @Sendable (VerifiedPurchase) throws(PurchaseRejection) -> Void

    /// Made in one of the environments the server accepts for the purchase's store (`stores.<store>.environments`).
    static func environment(_ accepted: [Store: Set<VerifiedPurchase.Environment>]) -> PurchaseRule {
        PurchaseRule(name: "environment") { purchase throws(PurchaseRejection) in
            let allowed = ServerSettings.environments(purchase.store, in: accepted)
            guard !allowed.contains(purchase.environment) else { return }
            throw PurchaseRejection(
                .sandboxNotAccepted,
                "the purchase was made in the \(purchase.environment.rawValue) environment, which is not accepted here"
            )
        }
    }

    /// Paid: the store says the purchase is active (not pending, refunded or revoked).
    static let paid = PurchaseRule(name: "paid") { purchase throws(PurchaseRejection) in
        guard purchase.state != .active else { return }
        throw PurchaseRejection(.notPaid, "the purchase is \(purchase.state.rawValue), not paid")
    }

    /// A key pack of this server (`keyPacks`, with a plan the licences know).
    static func keyPack(_ packs: [String: KeyPack]) -> PurchaseRule {
        PurchaseRule(name: "keyPack") { purchase throws(PurchaseRejection) in
            guard let pack = packs[purchase.productId], PlanLevel(pack.plan) != nil else {
                throw PurchaseRejection(.productMismatch, "the product is not a key pack of this server")
            }
        }
    }

    /// The number of items bought lies in `range`.
    static func quantity(in range: ClosedRange<Int>) -> PurchaseRule {
        PurchaseRule(name: "quantity") { purchase throws(PurchaseRejection) in
            guard !range.contains(purchase.quantity) else { return }
            throw PurchaseRejection(
                .invalidProof,
                "the purchase's quantity is outside \(range.lowerBound)…\(range.upperBound)"
            )
        }
    }

    /// Exactly the quantity an order asked for.
    static func quantity(of expected: Int64) -> PurchaseRule {
        PurchaseRule(name: "orderQuantity") { purchase throws(PurchaseRejection) in
            guard Int64(purchase.quantity) != expected else { return }
            throw PurchaseRejection(.productMismatch, "the payment is not for the order's quantity")
        }
    }

    /// For a product with a listed unit price, the store charged that price × the quantity (a Stripe PaymentIntent
    /// says what was charged, not what the product costs: the server compares).
    static func unitPrice(_ prices: @escaping @Sendable (Store) -> [String: Money]) -> PurchaseRule {
        PurchaseRule(name: "unitPrice") { purchase throws(PurchaseRejection) in
            guard let unit = prices(purchase.store)[purchase.productId] else { return }
            let expected = Money(amount: unit.amount * Decimal(purchase.quantity), currency: unit.currency)
            guard let paid = purchase.price, paid.isSame(as: expected) else {
                throw PurchaseRejection(.productMismatch, "the payment is not the product's price")
            }
        }
    }

    /// When the store reports what it charged, it is `expected` (an order's own total).
    static func total(_ expected: Money?) -> PurchaseRule {
        PurchaseRule(name: "total") { purchase throws(PurchaseRejection) in
            guard let paid = purchase.price, let expected, !paid.isSame(as: expected) else { return }
            throw PurchaseRejection(.productMismatch, "the payment is not the order's price")
        }
    }

    /// The product the client named, when it named one.
    static func product(_ productId: String?) -> PurchaseRule {
        PurchaseRule(name: "product") { purchase throws(PurchaseRejection) in
            guard let productId, productId != purchase.productId else { return }
            throw PurchaseRejection(.productMismatch, "the proof is for another product")
        }
    }

    /// Where the store reports a buyer the app set (an Apple `appAccountToken`, a Google
    /// `obfuscatedExternalAccountId`), it is this app user: equal, or for Apple the app user id as a UUID.
    static func reportedPurchaser(_ appUserId: String) -> PurchaseRule {
        PurchaseRule(name: "reportedPurchaser") { purchase throws(PurchaseRejection) in
            guard [.apple, .google].contains(purchase.store), let reported = purchase.purchaser, !reported.isEmpty
            else { return }
            let apple = purchase.store == .apple
            let expected = apple ? UUID(uuidString: appUserId)?.uuidString.lowercased() : appUserId
            guard reported.lowercased() != expected?.lowercased() else { return }
            throw PurchaseRejection(.purchaserMismatch, "the store reports another buyer than this app user")
        }
    }
}

/// The rules a route accepts a verified purchase under, checked in order: the first refusal is the answer.
struct PurchaseAcceptance: Sendable {
    var rules: [PurchaseRule]

    init(_ rules: [PurchaseRule]) { self.rules = rules }

    /// These rules, then `more`.
    func adding(_ more: [PurchaseRule]) -> PurchaseAcceptance { PurchaseAcceptance(rules + more) }

    func check(_ purchase: VerifiedPurchase) throws(PurchaseRejection) {
        for rule in rules {
            do throws(PurchaseRejection) { try rule.check(purchase) } catch {
                var rejection = error
                rejection.rule = rule.name
                throw rejection
            }
        }
    }
}

extension Money {
    /// The same amount in the same currency (currency codes compared case-insensitively).
    fileprivate func isSame(as other: Money) -> Bool {
        currency.uppercased() == other.currency.uppercased() && amount == other.amount
    }
}

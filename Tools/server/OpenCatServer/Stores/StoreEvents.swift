import Foundation
import Logging
import OpenCatCore
import StoreAdapters

/// Applies what a store says happened (a notification, a webhook, a reconciled refund) once per event id, in the
/// store's order, and counts it: the one path store events take into the subscribers' repository.
struct StoreEvents: Sendable {
    let subscribers: any SubscriberRepository
    let logger: Logger

    /// Applies a store's event: the transaction it reports is updated for its owner and a refunded purchase is
    /// taken back (all of it, or `refundShare` of it); `storeTime` orders it against what the server holds.
    func apply(
        _ source: String,
        _ eventId: String,
        _ info: TransactionInfo?,
        refundShare: RefundShare? = nil,
        storeTime: Date? = nil,
        price: Money? = nil
    ) async throws -> StoreEventOutcome {
        let outcome = try await subscribers.applyStoreEvent(
            source: source,
            eventId: eventId,
            update: info,
            refundShare: refundShare,
            storeTime: storeTime,
            price: price
        )
        ServerMetrics.notification(source: source, applied: outcome.applied)
        if let refund = outcome.refund, outcome.applied {
            ServerMetrics.refund(source: source, clawedBack: refund.clawedBack, debt: refund.debt)
        }
        if outcome.applied {
            logger.info(
                "store notification applied",
                metadata: [
                    "source": "\(source)", "status": "\(info?.status.rawValue ?? "none")",
                    "clawedBack": "\(outcome.refund?.clawedBack ?? 0)",
                ]
            )
        }
        return outcome
    }

    /// Applies a verified purchase a store reported: its transaction, the refunded share, ordered by `storeTime`
    /// (default: when the store answered).
    @discardableResult
    func apply(_ source: String, _ eventId: String, purchase: VerifiedPurchase?, storeTime: Date? = nil) async throws
        -> StoreEventOutcome
    {
        try await apply(
            source,
            eventId,
            purchase?.transactionInfo,
            refundShare: purchase.flatMap(Self.refundShare),
            storeTime: storeTime ?? purchase?.verifiedAt,
            price: purchase?.price
        )
    }

    /// The part of a purchase a refund gave back, when the store reports both amounts in one currency; nil (the
    /// whole purchase) otherwise.
    static func refundShare(_ purchase: VerifiedPurchase) -> RefundShare? {
        guard purchase.state == .refunded, let paid = purchase.price, let refunded = purchase.refundedAmount,
            paid.currency.uppercased() == refunded.currency.uppercased(), paid.amount > 0
        else { return nil }
        return RefundShare(refunded: refunded.amount, paid: paid.amount)
    }
}

import Foundation
import OpenCatCore

/// An order's history as `orders.get` answers it (androidpublisher v3 `OrderHistory`): the refunds among its events.
/// The fields OpenCat reads; the others are ignored.
///
/// A `PARTIALLY_REFUNDED` order names no refunded amount of its own: the figure is the sum of its partial refund
/// events that Google processed (`PROCESSED_SUCCESSFULLY`); one still `PENDING` has not refunded anything yet.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders#OrderHistory>.
struct OrderHistory: Codable, Hashable, Sendable {
    /// The whole order's refund, when it was refunded.
    var refundEvent: RefundEvent?
    /// Each partial refund of the order.
    var partialRefundEvents: [PartialRefundEvent]?

    /// A whole refund.
    struct RefundEvent: Codable, Hashable, Sendable {
        /// When it happened (RFC 3339).
        var eventTime: String?
        /// What was refunded.
        var refundDetails: RefundDetails?
    }

    /// One partial refund: `PENDING` until Google processed it, then `PROCESSED_SUCCESSFULLY`.
    struct PartialRefundEvent: Codable, Hashable, Sendable {
        /// When the partial refund was created (RFC 3339).
        var createTime: String?
        /// When it was processed (RFC 3339).
        var processTime: String?
        /// `STATE_UNSPECIFIED`, `PENDING` or `PROCESSED_SUCCESSFULLY`.
        var state: String?
        /// What was refunded.
        var refundDetails: RefundDetails?
    }

    /// A refund's amount, taxes included in `total`.
    struct RefundDetails: Codable, Hashable, Sendable {
        /// The amount refunded, taxes included.
        var total: GooglePlayMoney?
        /// The tax in it.
        var tax: GooglePlayMoney?
    }

    /// The amount Google's processed partial refunds gave back (nil when none was processed); an amount in another
    /// currency than the rest, or unreadable, is malformed.
    func processedPartialRefunds() throws -> Money? {
        var sum: Money?
        for event in partialRefundEvents ?? [] where event.state == "PROCESSED_SUCCESSFULLY" {
            guard let amount = event.refundDetails?.total?.money,
                sum == nil || sum?.currency.uppercased() == amount.currency.uppercased()
            else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .google,
                    "a processed partial refund has no readable total in the order's currency",
                    storeReason: "orderHistory.partialRefundEvents"
                )
            }
            sum = Money(amount: (sum?.amount ?? 0) + amount.amount, currency: amount.currency)
        }
        return sum
    }
}

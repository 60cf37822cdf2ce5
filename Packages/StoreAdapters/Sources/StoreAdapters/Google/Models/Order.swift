import Foundation

/// An order as `orders.get` and `orders.batchget` answer it (androidpublisher v3 `Order`): one transaction on Google
/// Play, its line items and its state. The fields OpenCat reads; the others are ignored.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders#Order>.
struct Order: Codable, Hashable, Sendable {
    /// The order id (`GPA.…`; a renewal's is the first order's with `..N`).
    var orderId: String?
    /// The purchase token the app received.
    var purchaseToken: String?
    /// `PENDING`, `PROCESSED`, `CANCELED`, `PENDING_REFUND`, `PARTIALLY_REFUNDED` or `REFUNDED`.
    var state: String?
    /// When the order was created (RFC 3339).
    var createTime: String?
    /// When its last event happened (RFC 3339).
    var lastEventTime: String?
    /// What the buyer paid, taxes included.
    var total: GooglePlayMoney?
    /// The tax in the total.
    var tax: GooglePlayMoney?
    /// The products bought.
    var lineItems: [LineItem]?
    /// Its events: the refunds among them.
    var orderHistory: OrderHistory?
}

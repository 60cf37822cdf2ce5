/// One item of a ``SubscriptionPurchaseV2``.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.subscriptionsv2#SubscriptionPurchaseLineItem>.
struct SubscriptionPurchaseLineItem: Codable, Hashable, Sendable {
    /// The subscription product id (`monthly001`).
    var productId: String?
    /// When the item expired or will expire unless renewed (RFC 3339, up to nine fraction digits).
    var expiryTime: String?
    /// Present when the item auto-renews.
    var autoRenewingPlan: AutoRenewingPlan?
    /// The order id of the latest successful order for this item.
    var latestSuccessfulOrderId: String?
}

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
    /// The pricing phase the item is in: one of `basePrice`, `freeTrial`, `introductoryPrice`, `prorationPeriod`.
    var offerPhase: OfferPhase?

    /// An offer phase: which member is present says which phase it is (their contents are not read).
    struct OfferPhase: Codable, Hashable, Sendable {
        struct Marker: Codable, Hashable, Sendable {}
        /// Present during a free trial.
        var freeTrial: Marker?
    }
}

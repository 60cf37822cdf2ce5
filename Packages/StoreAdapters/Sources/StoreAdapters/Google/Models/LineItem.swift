import Foundation

/// One product of an ``Order`` (androidpublisher v3 `LineItem`): a one-time product or a subscription's base plan.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders#LineItem>.
struct LineItem: Codable, Hashable, Sendable {
    /// The product id (`dev.example.gems500`, a subscription's product id).
    var productId: String?
    /// The product's title.
    var productTitle: String?
    /// The price the item was listed at.
    var listingPrice: GooglePlayMoney?
    /// What the buyer paid for this item, taxes included.
    var total: GooglePlayMoney?
    /// The tax in the item's total.
    var tax: GooglePlayMoney?
    /// A one-time product's details (quantity).
    var oneTimePurchaseDetails: OneTimePurchaseDetails?
    /// A subscription's details (base plan, the period this order paid for).
    var subscriptionDetails: SubscriptionDetails?
}

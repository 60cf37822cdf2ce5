import Foundation

/// One product of a ``ProductPurchaseV2`` (androidpublisher v3 `ProductLineItem`).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2#ProductLineItem>.
struct ProductLineItem: Codable, Hashable, Sendable {
    /// The product id (`dev.example.gems500`).
    var productId: String?
    /// Its offer: quantity, what is still refundable, consumption state.
    var productOfferDetails: ProductOfferDetails?
}

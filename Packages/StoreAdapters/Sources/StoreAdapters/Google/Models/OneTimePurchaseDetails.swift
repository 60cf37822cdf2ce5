import Foundation

/// A one-time product's part of a ``LineItem`` (androidpublisher v3 `OneTimePurchaseDetails`).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders#OneTimePurchaseDetails>.
struct OneTimePurchaseDetails: Codable, Hashable, Sendable {
    /// How many units were bought.
    var quantity: Int?
    /// The offer the product was bought with.
    var offerId: String?
    /// The purchase option.
    var purchaseOptionId: String?
}

import Foundation

/// The offer a ``ProductLineItem`` was bought with (androidpublisher v3 `ProductOfferDetails`).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2#ProductOfferDetails>.
struct ProductOfferDetails: Codable, Hashable, Sendable {
    /// `consumptionState`: consumed or not (raw text kept).
    struct ConsumptionState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: String
        static let unspecified = ConsumptionState(rawValue: "CONSUMPTION_STATE_UNSPECIFIED")
        static let yetToBeConsumed = ConsumptionState(rawValue: "CONSUMPTION_STATE_YET_TO_BE_CONSUMED")
        static let consumed = ConsumptionState(rawValue: "CONSUMPTION_STATE_CONSUMED")
    }

    /// How many units were bought.
    var quantity: Int?
    /// How many units have not been refunded (full and quantity-based partial refunds taken off).
    var refundableQuantity: Int?
    /// Consumed or not.
    var consumptionState: ConsumptionState?
    /// The purchase option.
    var purchaseOptionId: String?
    /// The offer id, for an offer.
    var offerId: String?
    /// The offer's tags (those of its purchase option included).
    var offerTags: [String]?
    /// The per-transaction offer token the item was bought with.
    var offerToken: String?
}

import Foundation

/// The state of a ``ProductPurchaseV2`` (androidpublisher v3 `PurchaseStateContext`).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2#PurchaseStateContext>.
struct PurchaseStateContext: Codable, Hashable, Sendable {
    /// `purchaseState` (raw text kept).
    struct PurchaseState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: String
        static let unspecified = PurchaseState(rawValue: "PURCHASE_STATE_UNSPECIFIED")
        static let purchased = PurchaseState(rawValue: "PURCHASED")
        static let cancelled = PurchaseState(rawValue: "CANCELLED")
        static let pending = PurchaseState(rawValue: "PENDING")
    }

    /// Purchased, cancelled or pending.
    var purchaseState: PurchaseState?
}

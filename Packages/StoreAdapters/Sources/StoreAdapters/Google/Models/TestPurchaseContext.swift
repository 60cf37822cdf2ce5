import Foundation

/// Set on a ``ProductPurchaseV2`` only for a test purchase (androidpublisher v3 `TestPurchaseContext`).
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2#TestPurchaseContext>.
struct TestPurchaseContext: Codable, Hashable, Sendable {
    /// The test form of payment (`TEST`; raw text kept).
    var fopType: String?
}

import Foundation

/// A one-time product purchase as `purchases.productsv2.getproductpurchasev2` returns it (androidpublisher v3
/// `ProductPurchaseV2`): every product the token bought as a line item, so the read needs no product id.
///
/// Enum-like fields keep their raw text, so values this version does not know survive and are reported as such.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2#ProductPurchaseV2>.
struct ProductPurchaseV2: Codable, Hashable, Sendable {
    /// `androidpublisher#productPurchaseV2`.
    var kind: String?
    /// The products bought, each with its offer details (quantity, consumption state).
    var productLineItem: [ProductLineItem]?
    /// Purchased, pending or cancelled.
    var purchaseStateContext: PurchaseStateContext?
    /// Present only for a test purchase (a license tester's).
    var testPurchaseContext: TestPurchaseContext?
    /// The order id (`GPA.…`); absent when the purchase has no order.
    var orderId: String?
    /// The obfuscated account id the app passed to the billing flow.
    var obfuscatedExternalAccountId: String?
    /// The obfuscated profile id the app passed to the billing flow.
    var obfuscatedExternalProfileId: String?
    /// The buyer's billing region (ISO 3166-1 alpha-2) when the product was granted.
    var regionCode: String?
    /// When the purchase state became `PURCHASED` (RFC 3339); absent until the payment completes.
    var purchaseCompletionTime: String?
    /// Whether the purchase was acknowledged (the same values as a subscription's).
    var acknowledgementState: SubscriptionPurchaseV2.AcknowledgementState?
}

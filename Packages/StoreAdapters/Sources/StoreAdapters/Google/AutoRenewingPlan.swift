/// The auto-renewing part of a ``SubscriptionPurchaseLineItem``.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.subscriptionsv2#AutoRenewingPlan>.
struct AutoRenewingPlan: Codable, Hashable, Sendable {
    /// Whether the subscription will renew (false once the user cancels).
    var autoRenewEnabled: Bool?
    /// The current recurring price (without discounts and taxes).
    var recurringPrice: GooglePlayMoney?
}

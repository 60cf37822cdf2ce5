import Foundation

/// A subscription's part of a ``LineItem`` (androidpublisher v3 `SubscriptionDetails`): the period the order paid for.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders#SubscriptionDetails>.
struct SubscriptionDetails: Codable, Hashable, Sendable {
    /// The base plan.
    var basePlanId: String?
    /// The offer, if any.
    var offerId: String?
    /// `FREE_TRIAL`, `INTRODUCTORY`, `BASE`… : the pricing phase this order paid for.
    var offerPhase: String?
    /// When the paid period starts (RFC 3339).
    var servicePeriodStartTime: String?
    /// When the paid period ends (RFC 3339).
    var servicePeriodEndTime: String?
}

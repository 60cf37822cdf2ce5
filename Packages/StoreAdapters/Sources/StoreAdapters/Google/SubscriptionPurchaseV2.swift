/// A subscription purchase as `purchases.subscriptionsv2.get` returns it.
///
/// Enum-like fields keep their raw string values, so states this version does not know survive.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.subscriptionsv2#SubscriptionPurchaseV2>.
struct SubscriptionPurchaseV2: Codable, Hashable, Sendable {
    /// `subscriptionState`.
    struct SubscriptionState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: String
        static let unspecified = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_UNSPECIFIED")
        /// Created, awaiting payment during sign-up.
        static let pending = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_PENDING")
        /// Active (auto-renewing or prepaid within its period).
        static let active = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_ACTIVE")
        /// Paused by the user: no access until it resumes.
        static let paused = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_PAUSED")
        /// Renewal failed; access continues while Google retries.
        static let inGracePeriod = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD")
        /// Renewal failed after the grace period; no access while Google retries.
        static let onHold = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_ON_HOLD")
        /// Cancelled but not yet expired: access until `expiryTime`, no renewal.
        static let canceled = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_CANCELED")
        /// Expired.
        static let expired = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_EXPIRED")
        /// A pending purchase that was cancelled before it was paid.
        static let pendingPurchaseCanceled = SubscriptionState(rawValue: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED")
    }

    /// `acknowledgementState`.
    struct AcknowledgementState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: String
        static let unspecified = AcknowledgementState(rawValue: "ACKNOWLEDGEMENT_STATE_UNSPECIFIED")
        static let pending = AcknowledgementState(rawValue: "ACKNOWLEDGEMENT_STATE_PENDING")
        static let acknowledged = AcknowledgementState(rawValue: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
    }

    /// Present (and empty) only for test purchases.
    struct TestPurchase: Codable, Hashable, Sendable {}

    /// `androidpublisher#subscriptionPurchaseV2`.
    var kind: String?
    /// ISO 3166-1 alpha-2 billing region at grant time.
    var regionCode: String?
    /// The purchased items (all auto-renewing or all prepaid).
    var lineItems: [SubscriptionPurchaseLineItem]?
    /// When the subscription was granted (RFC 3339); absent while pending.
    var startTime: String?
    /// Where the subscription stands.
    var subscriptionState: SubscriptionState?
    /// The latest order id (deprecated upstream in favour of `lineItems[].latestSuccessfulOrderId`).
    var latestOrderId: String?
    /// The token of the purchase this one replaced (upgrade, downgrade, resubscribe).
    var linkedPurchaseToken: String?
    /// Present only for test purchases.
    var testPurchase: TestPurchase?
    /// Acknowledged or not.
    var acknowledgementState: AcknowledgementState?
    /// The account identifiers the app passed to the billing flow.
    var externalAccountIdentifiers: ExternalAccountIdentifiers?
}

extension SubscriptionPurchaseV2.SubscriptionState {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension SubscriptionPurchaseV2.AcknowledgementState {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

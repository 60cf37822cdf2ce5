extension AppStore {
    /// The type of an App Store Server Notification V2.
    ///
    /// [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
    public enum NotificationTypeV2: String, Sendable, Hashable, Codable, CaseIterable {
        /// `SUBSCRIBED`
        case subscribed = "SUBSCRIBED"
        /// `DID_CHANGE_RENEWAL_PREF`
        case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        /// `DID_CHANGE_RENEWAL_STATUS`
        case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
        /// `OFFER_REDEEMED`
        case offerRedeemed = "OFFER_REDEEMED"
        /// `DID_RENEW`
        case didRenew = "DID_RENEW"
        /// `EXPIRED`
        case expired = "EXPIRED"
        /// `DID_FAIL_TO_RENEW`
        case didFailToRenew = "DID_FAIL_TO_RENEW"
        /// `GRACE_PERIOD_EXPIRED`
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        /// `PRICE_INCREASE`
        case priceIncrease = "PRICE_INCREASE"
        /// `REFUND`
        case refund = "REFUND"
        /// `REFUND_DECLINED`
        case refundDeclined = "REFUND_DECLINED"
        /// `CONSUMPTION_REQUEST`
        case consumptionRequest = "CONSUMPTION_REQUEST"
        /// `RENEWAL_EXTENDED`
        case renewalExtended = "RENEWAL_EXTENDED"
        /// `REVOKE`
        case revoke = "REVOKE"
        /// `TEST`
        case test = "TEST"
        /// `RENEWAL_EXTENSION`
        case renewalExtension = "RENEWAL_EXTENSION"
        /// `REFUND_REVERSED`
        case refundReversed = "REFUND_REVERSED"
        /// `EXTERNAL_PURCHASE_TOKEN`
        case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
        /// `ONE_TIME_CHARGE`
        case oneTimeCharge = "ONE_TIME_CHARGE"
    }

    /// Details of a notification type.
    ///
    /// [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
    public enum Subtype: String, Sendable, Hashable, Codable, CaseIterable {
        /// `INITIAL_BUY`
        case initialBuy = "INITIAL_BUY"
        /// `RESUBSCRIBE`
        case resubscribe = "RESUBSCRIBE"
        /// `DOWNGRADE`
        case downgrade = "DOWNGRADE"
        /// `UPGRADE`
        case upgrade = "UPGRADE"
        /// `AUTO_RENEW_ENABLED`
        case autoRenewEnabled = "AUTO_RENEW_ENABLED"
        /// `AUTO_RENEW_DISABLED`
        case autoRenewDisabled = "AUTO_RENEW_DISABLED"
        /// `VOLUNTARY`
        case voluntary = "VOLUNTARY"
        /// `BILLING_RETRY`
        case billingRetry = "BILLING_RETRY"
        /// `PRICE_INCREASE`
        case priceIncrease = "PRICE_INCREASE"
        /// `GRACE_PERIOD`
        case gracePeriod = "GRACE_PERIOD"
        /// `PENDING`
        case pending = "PENDING"
        /// `ACCEPTED`
        case accepted = "ACCEPTED"
        /// `BILLING_RECOVERY`
        case billingRecovery = "BILLING_RECOVERY"
        /// `PRODUCT_NOT_FOR_SALE`
        case productNotForSale = "PRODUCT_NOT_FOR_SALE"
        /// `SUMMARY`
        case summary = "SUMMARY"
        /// `FAILURE`
        case failure = "FAILURE"
        /// `UNREPORTED`
        case unreported = "UNREPORTED"
    }

    /// The status of an auto-renewable subscription at the time of a notification.
    ///
    /// [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
    public enum Status: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// Active.
        case active = 1
        /// Expired.
        case expired = 2
        /// In the billing retry period.
        case billingRetry = 3
        /// In the billing grace period.
        case billingGracePeriod = 4
        /// Revoked.
        case revoked = 5
    }
}

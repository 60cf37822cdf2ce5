extension AppStore {
    /// Whether an auto-renewable subscription will renew.
    ///
    /// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
    public enum AutoRenewStatus: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// Automatic renewal is off.
        case off = 0
        /// Automatic renewal is on.
        case on = 1
    }

    /// Why a subscription expired.
    ///
    /// [expirationIntent](https://developer.apple.com/documentation/appstoreserverapi/expirationintent)
    public enum ExpirationIntent: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// The customer cancelled.
        case customerCancelled = 1
        /// A billing error.
        case billingError = 2
        /// The customer did not consent to a price increase.
        case customerDidNotConsentToPriceIncrease = 3
        /// The product was not available at renewal.
        case productNotAvailable = 4
        /// Another reason.
        case other = 5
    }

    /// Whether the customer consented to a subscription price increase.
    ///
    /// [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus)
    public enum PriceIncreaseStatus: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// The customer has not responded.
        case customerHasNotResponded = 0
        /// The customer consented, or was notified of a price increase that needs no consent.
        case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
    }
}

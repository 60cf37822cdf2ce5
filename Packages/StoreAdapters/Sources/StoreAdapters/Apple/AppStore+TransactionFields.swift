extension AppStore {
    /// The type of the In-App Purchase.
    ///
    /// [type](https://developer.apple.com/documentation/appstoreserverapi/type)
    public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
        /// An auto-renewable subscription.
        case autoRenewableSubscription = "Auto-Renewable Subscription"
        /// A non-consumable In-App Purchase.
        case nonConsumable = "Non-Consumable"
        /// A consumable In-App Purchase.
        case consumable = "Consumable"
        /// A non-renewing subscription.
        case nonRenewingSubscription = "Non-Renewing Subscription"
    }

    /// Whether the customer bought the transaction or has it through Family Sharing.
    ///
    /// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
    public enum InAppOwnershipType: String, Sendable, Hashable, Codable, CaseIterable {
        /// Available through Family Sharing.
        case familyShared = "FAMILY_SHARED"
        /// Bought by the customer.
        case purchased = "PURCHASED"
    }

    /// Whether the transaction is a customer's purchase or a renewal the system initiated.
    ///
    /// [transactionReason](https://developer.apple.com/documentation/appstoreserverapi/transactionreason)
    public enum TransactionReason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The customer bought it.
        case purchase = "PURCHASE"
        /// The App Store renewed the subscription.
        case renewal = "RENEWAL"
    }

    /// The type of subscription offer.
    ///
    /// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
    public enum OfferType: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// An introductory offer.
        case introductoryOffer = 1
        /// A promotional offer.
        case promotionalOffer = 2
        /// An offer with a subscription offer code.
        case subscriptionOfferCode = 3
        /// A win-back offer.
        case winBackOffer = 4
    }

    /// The payment mode of a discount offer.
    ///
    /// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
    public enum OfferDiscountType: String, Sendable, Hashable, Codable, CaseIterable {
        /// Free trial.
        case freeTrial = "FREE_TRIAL"
        /// Pay as you go.
        case payAsYouGo = "PAY_AS_YOU_GO"
        /// Pay up front.
        case payUpFront = "PAY_UP_FRONT"
        /// One-time payment.
        case oneTime = "ONE_TIME"
    }

    /// Why the App Store refunded or revoked a transaction.
    ///
    /// [revocationReason](https://developer.apple.com/documentation/appstoreserverapi/revocationreason)
    public enum RevocationReason: Int32, Sendable, Hashable, Codable, CaseIterable {
        /// Refunded for another reason (or revoked from Family Sharing).
        case other = 0
        /// Refunded because of an actual or perceived issue within the app.
        case appIssue = 1
    }

    /// The type of refund or revocation that applies to a transaction.
    ///
    /// [revocationType](https://developer.apple.com/documentation/appstoreserverapi/revocationtype)
    public enum RevocationType: String, Sendable, Hashable, Codable, CaseIterable {
        /// Refunded in full.
        case refundFull = "REFUND_FULL"
        /// Refunded in part; see ``JWSTransactionDecodedPayload/revocationPercentage``.
        case refundProrated = "REFUND_PRORATED"
        /// Revoked from Family Sharing.
        case familyRevoke = "FAMILY_REVOKE"
    }
}

public import Foundation

/// A decoded payload containing subscription renewal information for an auto-renewable subscription.
///
/// [JWSRenewalInfoDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload)
///
/// Dates are UNIX milliseconds on the wire; `renewalPrice` is in milliunits of `currency`.
public struct JWSRenewalInfoDecodedPayload: DecodedSignedData, Codable, Hashable, Sendable {
    /// The raw `expirationIntent` value; see ``expirationIntent``.
    public var rawExpirationIntent: Int32?
    /// The original transaction identifier of the subscription.
    ///
    /// [originalTransactionId](https://developer.apple.com/documentation/appstoreserverapi/originaltransactionid)
    public var originalTransactionId: String?
    /// The product that renews at the next billing period.
    ///
    /// [autoRenewProductId](https://developer.apple.com/documentation/appstoreserverapi/autorenewproductid)
    public var autoRenewProductId: String?
    /// The product identifier of the subscription.
    ///
    /// [productId](https://developer.apple.com/documentation/appstoreserverapi/productid)
    public var productId: String?
    /// The raw `autoRenewStatus` value; see ``autoRenewStatus``.
    public var rawAutoRenewStatus: Int32?
    /// Whether the App Store is trying to renew an expired subscription.
    ///
    /// [isInBillingRetryPeriod](https://developer.apple.com/documentation/appstoreserverapi/isinbillingretryperiod)
    public var isInBillingRetryPeriod: Bool?
    /// The raw `priceIncreaseStatus` value; see ``priceIncreaseStatus``.
    public var rawPriceIncreaseStatus: Int32?
    /// When the billing grace period ends.
    ///
    /// [gracePeriodExpiresDate](https://developer.apple.com/documentation/appstoreserverapi/graceperiodexpiresdate)
    public var gracePeriodExpiresDate: Date?
    /// The raw `offerType` value; see ``offerType``.
    public var rawOfferType: Int32?
    /// The offer code or promotional offer identifier.
    ///
    /// [offerIdentifier](https://developer.apple.com/documentation/appstoreserverapi/offeridentifier)
    public var offerIdentifier: String?
    /// When the App Store signed the JWS.
    ///
    /// [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate)
    public var signedDate: Date?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The earliest start date of the subscription, ignoring lapses shorter than 60 days.
    ///
    /// [recentSubscriptionStartDate](https://developer.apple.com/documentation/appstoreserverapi/recentsubscriptionstartdate)
    public var recentSubscriptionStartDate: Date?
    /// When the most recent auto-renewable subscription purchase expires.
    ///
    /// [renewalDate](https://developer.apple.com/documentation/appstoreserverapi/renewaldate)
    public var renewalDate: Date?
    /// The ISO 4217 currency code of ``renewalPrice``.
    ///
    /// [currency](https://developer.apple.com/documentation/appstoreserverapi/currency)
    public var currency: String?
    /// The renewal price in milliunits of ``currency``.
    ///
    /// [renewalPrice](https://developer.apple.com/documentation/appstoreserverapi/renewalprice)
    public var renewalPrice: Int64?
    /// The raw `offerDiscountType` value; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The win-back offers the customer can redeem, best first.
    ///
    /// [eligibleWinBackOfferIds](https://developer.apple.com/documentation/appstoreserverapi/eligiblewinbackofferids)
    public var eligibleWinBackOfferIds: [String]?
    /// The unique identifier of the app download transaction.
    ///
    /// [appTransactionId](https://developer.apple.com/documentation/appstoreserverapi/apptransactionid)
    public var appTransactionId: String?
    /// The duration of the offer, as an ISO 8601 duration.
    ///
    /// [offerPeriod](https://developer.apple.com/documentation/appstoreserverapi/offerperiod)
    public var offerPeriod: String?
    /// The UUID the app set when the customer bought the subscription (a string, as sent).
    ///
    /// [appAccountToken](https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken)
    public var appAccountToken: String?

    /// Why the subscription expired, if this version knows ``rawExpirationIntent``.
    ///
    /// [expirationIntent](https://developer.apple.com/documentation/appstoreserverapi/expirationintent)
    public var expirationIntent: AppStore.ExpirationIntent? {
        get { rawExpirationIntent.flatMap(AppStore.ExpirationIntent.init(rawValue:)) }
        set { rawExpirationIntent = newValue?.rawValue }
    }

    /// Whether the subscription renews, if this version knows ``rawAutoRenewStatus``.
    ///
    /// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
    public var autoRenewStatus: AppStore.AutoRenewStatus? {
        get { rawAutoRenewStatus.flatMap(AppStore.AutoRenewStatus.init(rawValue:)) }
        set { rawAutoRenewStatus = newValue?.rawValue }
    }

    /// The price-increase consent status, if this version knows ``rawPriceIncreaseStatus``.
    public var priceIncreaseStatus: AppStore.PriceIncreaseStatus? {
        get { rawPriceIncreaseStatus.flatMap(AppStore.PriceIncreaseStatus.init(rawValue:)) }
        set { rawPriceIncreaseStatus = newValue?.rawValue }
    }

    /// The offer type, if this version knows ``rawOfferType``.
    public var offerType: AppStore.OfferType? {
        get { rawOfferType.flatMap(AppStore.OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    /// The server environment, if this version knows ``rawEnvironment``.
    public var environment: AppStore.Environment? {
        get { rawEnvironment.flatMap(AppStore.Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    /// The offer's payment mode, if this version knows ``rawOfferDiscountType``.
    public var offerDiscountType: AppStore.OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(AppStore.OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    /// Creates a payload (for tests and mock stores; real ones come from ``AppleJWSVerifier``).
    public init(
        rawExpirationIntent: Int32? = nil,
        originalTransactionId: String? = nil,
        autoRenewProductId: String? = nil,
        productId: String? = nil,
        rawAutoRenewStatus: Int32? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        rawPriceIncreaseStatus: Int32? = nil,
        gracePeriodExpiresDate: Date? = nil,
        rawOfferType: Int32? = nil,
        offerIdentifier: String? = nil,
        signedDate: Date? = nil,
        rawEnvironment: String? = nil,
        recentSubscriptionStartDate: Date? = nil,
        renewalDate: Date? = nil,
        currency: String? = nil,
        renewalPrice: Int64? = nil,
        rawOfferDiscountType: String? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        appAccountToken: String? = nil
    ) {
        self.rawExpirationIntent = rawExpirationIntent
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.rawAutoRenewStatus = rawAutoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.rawPriceIncreaseStatus = rawPriceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.rawEnvironment = rawEnvironment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.rawOfferDiscountType = rawOfferDiscountType
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.appAccountToken = appAccountToken
    }

    private enum CodingKeys: String, CodingKey {
        case expirationIntent, originalTransactionId, autoRenewProductId, productId, autoRenewStatus
        case isInBillingRetryPeriod, priceIncreaseStatus, gracePeriodExpiresDate, offerType, offerIdentifier
        case signedDate, environment, recentSubscriptionStartDate, renewalDate, currency, renewalPrice
        case offerDiscountType, eligibleWinBackOfferIds, appTransactionId, offerPeriod, appAccountToken
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rawExpirationIntent = try container.decodeIfPresent(Int32.self, forKey: .expirationIntent)
        originalTransactionId = try container.decodeIfPresent(String.self, forKey: .originalTransactionId)
        autoRenewProductId = try container.decodeIfPresent(String.self, forKey: .autoRenewProductId)
        productId = try container.decodeIfPresent(String.self, forKey: .productId)
        rawAutoRenewStatus = try container.decodeIfPresent(Int32.self, forKey: .autoRenewStatus)
        isInBillingRetryPeriod = try container.decodeIfPresent(Bool.self, forKey: .isInBillingRetryPeriod)
        rawPriceIncreaseStatus = try container.decodeIfPresent(Int32.self, forKey: .priceIncreaseStatus)
        gracePeriodExpiresDate = try container.decodeAppStoreDateIfPresent(forKey: .gracePeriodExpiresDate)
        rawOfferType = try container.decodeIfPresent(Int32.self, forKey: .offerType)
        offerIdentifier = try container.decodeIfPresent(String.self, forKey: .offerIdentifier)
        signedDate = try container.decodeAppStoreDateIfPresent(forKey: .signedDate)
        rawEnvironment = try container.decodeIfPresent(String.self, forKey: .environment)
        recentSubscriptionStartDate = try container.decodeAppStoreDateIfPresent(forKey: .recentSubscriptionStartDate)
        renewalDate = try container.decodeAppStoreDateIfPresent(forKey: .renewalDate)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        renewalPrice = try container.decodeIfPresent(Int64.self, forKey: .renewalPrice)
        rawOfferDiscountType = try container.decodeIfPresent(String.self, forKey: .offerDiscountType)
        eligibleWinBackOfferIds = try container.decodeIfPresent([String].self, forKey: .eligibleWinBackOfferIds)
        appTransactionId = try container.decodeIfPresent(String.self, forKey: .appTransactionId)
        offerPeriod = try container.decodeIfPresent(String.self, forKey: .offerPeriod)
        appAccountToken = try container.decodeIfPresent(String.self, forKey: .appAccountToken)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rawExpirationIntent, forKey: .expirationIntent)
        try container.encodeIfPresent(originalTransactionId, forKey: .originalTransactionId)
        try container.encodeIfPresent(autoRenewProductId, forKey: .autoRenewProductId)
        try container.encodeIfPresent(productId, forKey: .productId)
        try container.encodeIfPresent(rawAutoRenewStatus, forKey: .autoRenewStatus)
        try container.encodeIfPresent(isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try container.encodeIfPresent(rawPriceIncreaseStatus, forKey: .priceIncreaseStatus)
        try container.encodeAppStoreDateIfPresent(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encodeIfPresent(rawOfferType, forKey: .offerType)
        try container.encodeIfPresent(offerIdentifier, forKey: .offerIdentifier)
        try container.encodeAppStoreDateIfPresent(signedDate, forKey: .signedDate)
        try container.encodeIfPresent(rawEnvironment, forKey: .environment)
        try container.encodeAppStoreDateIfPresent(recentSubscriptionStartDate, forKey: .recentSubscriptionStartDate)
        try container.encodeAppStoreDateIfPresent(renewalDate, forKey: .renewalDate)
        try container.encodeIfPresent(currency, forKey: .currency)
        try container.encodeIfPresent(renewalPrice, forKey: .renewalPrice)
        try container.encodeIfPresent(rawOfferDiscountType, forKey: .offerDiscountType)
        try container.encodeIfPresent(eligibleWinBackOfferIds, forKey: .eligibleWinBackOfferIds)
        try container.encodeIfPresent(appTransactionId, forKey: .appTransactionId)
        try container.encodeIfPresent(offerPeriod, forKey: .offerPeriod)
        try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
    }
}

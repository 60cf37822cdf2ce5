public import Foundation

/// A decoded payload containing transaction information.
///
/// [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload)
///
/// Dates are UNIX milliseconds on the wire; `price` is in milliunits of `currency`. Enumerated fields keep their
/// raw wire value (`rawType`, …) next to a typed accessor (`type`, …), so unknown values survive.
public struct JWSTransactionDecodedPayload: DecodedSignedData, Codable, Hashable, Sendable {
    /// The original transaction identifier of a purchase.
    ///
    /// [originalTransactionId](https://developer.apple.com/documentation/appstoreserverapi/originaltransactionid)
    public var originalTransactionId: String?
    /// The unique identifier of the transaction.
    ///
    /// [transactionId](https://developer.apple.com/documentation/appstoreserverapi/transactionid)
    public var transactionId: String?
    /// The unique identifier of subscription-purchase events across devices, including renewals.
    ///
    /// [webOrderLineItemId](https://developer.apple.com/documentation/appstoreserverapi/weborderlineitemid)
    public var webOrderLineItemId: String?
    /// The bundle identifier of the app.
    ///
    /// [bundleId](https://developer.apple.com/documentation/appstoreserverapi/bundleid)
    public var bundleId: String?
    /// The product identifier of the In-App Purchase.
    ///
    /// [productId](https://developer.apple.com/documentation/appstoreserverapi/productid)
    public var productId: String?
    /// The identifier of the subscription group the subscription belongs to.
    ///
    /// [subscriptionGroupIdentifier](https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifier)
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer for the purchase, renewal or restore.
    ///
    /// [purchaseDate](https://developer.apple.com/documentation/appstoreserverapi/purchasedate)
    public var purchaseDate: Date?
    /// The purchase date of the original transaction.
    ///
    /// [originalPurchaseDate](https://developer.apple.com/documentation/appstoreserverapi/originalpurchasedate)
    public var originalPurchaseDate: Date?
    /// When the subscription expires or renews.
    ///
    /// [expiresDate](https://developer.apple.com/documentation/appstoreserverapi/expiresdate)
    public var expiresDate: Date?
    /// The number of consumable products purchased.
    ///
    /// [quantity](https://developer.apple.com/documentation/appstoreserverapi/quantity)
    public var quantity: Int32?
    /// The raw `type` value; see ``type``.
    public var rawType: String?
    /// The UUID the app set when the customer bought the product (a string, as sent).
    ///
    /// [appAccountToken](https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken)
    public var appAccountToken: String?
    /// The raw `inAppOwnershipType` value; see ``inAppOwnershipType``.
    public var rawInAppOwnershipType: String?
    /// When the App Store signed the JWS.
    ///
    /// [signedDate](https://developer.apple.com/documentation/appstoreserverapi/signeddate)
    public var signedDate: Date?
    /// The raw `revocationReason` value; see ``revocationReason``.
    public var rawRevocationReason: Int32?
    /// When the App Store refunded the transaction or revoked it from Family Sharing.
    ///
    /// [revocationDate](https://developer.apple.com/documentation/appstoreserverapi/revocationdate)
    public var revocationDate: Date?
    /// Whether the customer upgraded to another subscription.
    ///
    /// [isUpgraded](https://developer.apple.com/documentation/appstoreserverapi/isupgraded)
    public var isUpgraded: Bool?
    /// The raw `offerType` value; see ``offerType``.
    public var rawOfferType: Int32?
    /// The offer code or promotional offer identifier.
    ///
    /// [offerIdentifier](https://developer.apple.com/documentation/appstoreserverapi/offeridentifier)
    public var offerIdentifier: String?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The three-letter code of the storefront's country or region.
    ///
    /// [storefront](https://developer.apple.com/documentation/appstoreserverapi/storefront)
    public var storefront: String?
    /// Apple's identifier of the storefront.
    ///
    /// [storefrontId](https://developer.apple.com/documentation/appstoreserverapi/storefrontid)
    public var storefrontId: String?
    /// The raw `transactionReason` value; see ``transactionReason``.
    public var rawTransactionReason: String?
    /// The ISO 4217 currency code of ``price``.
    ///
    /// [currency](https://developer.apple.com/documentation/appstoreserverapi/currency)
    public var currency: String?
    /// The price in milliunits of ``currency`` (9990 = 9.99).
    ///
    /// [price](https://developer.apple.com/documentation/appstoreserverapi/price)
    public var price: Int64?
    /// The raw `offerDiscountType` value; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The unique identifier of the app download transaction.
    ///
    /// [appTransactionId](https://developer.apple.com/documentation/appstoreserverapi/apptransactionid)
    public var appTransactionId: String?
    /// The duration of the offer, as an ISO 8601 duration (`P1M`).
    ///
    /// [offerPeriod](https://developer.apple.com/documentation/appstoreserverapi/offerperiod)
    public var offerPeriod: String?
    /// The raw `revocationType` value; see ``revocationType``.
    public var rawRevocationType: String?
    /// The refunded or revoked share of the transaction, in milliunits of a percent (40000 = 40 %).
    ///
    /// [revocationPercentage](https://developer.apple.com/documentation/appstoreserverapi/revocationpercentage)
    public var revocationPercentage: Int32?

    /// The type of the In-App Purchase, if this version knows ``rawType``.
    ///
    /// [type](https://developer.apple.com/documentation/appstoreserverapi/type)
    public var type: AppStore.ProductType? {
        get { rawType.flatMap(AppStore.ProductType.init(rawValue:)) }
        set { rawType = newValue?.rawValue }
    }

    /// Purchased or family shared, if this version knows ``rawInAppOwnershipType``.
    public var inAppOwnershipType: AppStore.InAppOwnershipType? {
        get { rawInAppOwnershipType.flatMap(AppStore.InAppOwnershipType.init(rawValue:)) }
        set { rawInAppOwnershipType = newValue?.rawValue }
    }

    /// Why the transaction was refunded, if this version knows ``rawRevocationReason``.
    public var revocationReason: AppStore.RevocationReason? {
        get { rawRevocationReason.flatMap(AppStore.RevocationReason.init(rawValue:)) }
        set { rawRevocationReason = newValue?.rawValue }
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

    /// Purchase or renewal, if this version knows ``rawTransactionReason``.
    public var transactionReason: AppStore.TransactionReason? {
        get { rawTransactionReason.flatMap(AppStore.TransactionReason.init(rawValue:)) }
        set { rawTransactionReason = newValue?.rawValue }
    }

    /// The offer's payment mode, if this version knows ``rawOfferDiscountType``.
    public var offerDiscountType: AppStore.OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(AppStore.OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    /// The kind of refund or revocation, if this version knows ``rawRevocationType``.
    public var revocationType: AppStore.RevocationType? {
        get { rawRevocationType.flatMap(AppStore.RevocationType.init(rawValue:)) }
        set { rawRevocationType = newValue?.rawValue }
    }

    /// Creates a payload (for tests and mock stores; real ones come from ``AppleJWSVerifier``).
    public init(
        originalTransactionId: String? = nil,
        transactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        quantity: Int32? = nil,
        rawType: String? = nil,
        appAccountToken: String? = nil,
        rawInAppOwnershipType: String? = nil,
        signedDate: Date? = nil,
        rawRevocationReason: Int32? = nil,
        revocationDate: Date? = nil,
        isUpgraded: Bool? = nil,
        rawOfferType: Int32? = nil,
        offerIdentifier: String? = nil,
        rawEnvironment: String? = nil,
        storefront: String? = nil,
        storefrontId: String? = nil,
        rawTransactionReason: String? = nil,
        currency: String? = nil,
        price: Int64? = nil,
        rawOfferDiscountType: String? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        rawRevocationType: String? = nil,
        revocationPercentage: Int32? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.rawType = rawType
        self.appAccountToken = appAccountToken
        self.rawInAppOwnershipType = rawInAppOwnershipType
        self.signedDate = signedDate
        self.rawRevocationReason = rawRevocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.rawEnvironment = rawEnvironment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.rawTransactionReason = rawTransactionReason
        self.currency = currency
        self.price = price
        self.rawOfferDiscountType = rawOfferDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.rawRevocationType = rawRevocationType
        self.revocationPercentage = revocationPercentage
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, transactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity, type
        case appAccountToken, inAppOwnershipType, signedDate, revocationReason, revocationDate, isUpgraded
        case offerType, offerIdentifier, environment, storefront, storefrontId, transactionReason, currency
        case price, offerDiscountType, appTransactionId, offerPeriod, revocationType, revocationPercentage
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionId = try container.decodeIfPresent(String.self, forKey: .originalTransactionId)
        transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
        webOrderLineItemId = try container.decodeIfPresent(String.self, forKey: .webOrderLineItemId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        productId = try container.decodeIfPresent(String.self, forKey: .productId)
        subscriptionGroupIdentifier = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupIdentifier)
        purchaseDate = try container.decodeAppStoreDateIfPresent(forKey: .purchaseDate)
        originalPurchaseDate = try container.decodeAppStoreDateIfPresent(forKey: .originalPurchaseDate)
        expiresDate = try container.decodeAppStoreDateIfPresent(forKey: .expiresDate)
        quantity = try container.decodeIfPresent(Int32.self, forKey: .quantity)
        rawType = try container.decodeIfPresent(String.self, forKey: .type)
        appAccountToken = try container.decodeIfPresent(String.self, forKey: .appAccountToken)
        rawInAppOwnershipType = try container.decodeIfPresent(String.self, forKey: .inAppOwnershipType)
        signedDate = try container.decodeAppStoreDateIfPresent(forKey: .signedDate)
        rawRevocationReason = try container.decodeIfPresent(Int32.self, forKey: .revocationReason)
        revocationDate = try container.decodeAppStoreDateIfPresent(forKey: .revocationDate)
        isUpgraded = try container.decodeIfPresent(Bool.self, forKey: .isUpgraded)
        rawOfferType = try container.decodeIfPresent(Int32.self, forKey: .offerType)
        offerIdentifier = try container.decodeIfPresent(String.self, forKey: .offerIdentifier)
        rawEnvironment = try container.decodeIfPresent(String.self, forKey: .environment)
        storefront = try container.decodeIfPresent(String.self, forKey: .storefront)
        storefrontId = try container.decodeIfPresent(String.self, forKey: .storefrontId)
        rawTransactionReason = try container.decodeIfPresent(String.self, forKey: .transactionReason)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        price = try container.decodeIfPresent(Int64.self, forKey: .price)
        rawOfferDiscountType = try container.decodeIfPresent(String.self, forKey: .offerDiscountType)
        appTransactionId = try container.decodeIfPresent(String.self, forKey: .appTransactionId)
        offerPeriod = try container.decodeIfPresent(String.self, forKey: .offerPeriod)
        rawRevocationType = try container.decodeIfPresent(String.self, forKey: .revocationType)
        revocationPercentage = try container.decodeIfPresent(Int32.self, forKey: .revocationPercentage)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(originalTransactionId, forKey: .originalTransactionId)
        try container.encodeIfPresent(transactionId, forKey: .transactionId)
        try container.encodeIfPresent(webOrderLineItemId, forKey: .webOrderLineItemId)
        try container.encodeIfPresent(bundleId, forKey: .bundleId)
        try container.encodeIfPresent(productId, forKey: .productId)
        try container.encodeIfPresent(subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
        try container.encodeAppStoreDateIfPresent(purchaseDate, forKey: .purchaseDate)
        try container.encodeAppStoreDateIfPresent(originalPurchaseDate, forKey: .originalPurchaseDate)
        try container.encodeAppStoreDateIfPresent(expiresDate, forKey: .expiresDate)
        try container.encodeIfPresent(quantity, forKey: .quantity)
        try container.encodeIfPresent(rawType, forKey: .type)
        try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
        try container.encodeIfPresent(rawInAppOwnershipType, forKey: .inAppOwnershipType)
        try container.encodeAppStoreDateIfPresent(signedDate, forKey: .signedDate)
        try container.encodeIfPresent(rawRevocationReason, forKey: .revocationReason)
        try container.encodeAppStoreDateIfPresent(revocationDate, forKey: .revocationDate)
        try container.encodeIfPresent(isUpgraded, forKey: .isUpgraded)
        try container.encodeIfPresent(rawOfferType, forKey: .offerType)
        try container.encodeIfPresent(offerIdentifier, forKey: .offerIdentifier)
        try container.encodeIfPresent(rawEnvironment, forKey: .environment)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encodeIfPresent(storefrontId, forKey: .storefrontId)
        try container.encodeIfPresent(rawTransactionReason, forKey: .transactionReason)
        try container.encodeIfPresent(currency, forKey: .currency)
        try container.encodeIfPresent(price, forKey: .price)
        try container.encodeIfPresent(rawOfferDiscountType, forKey: .offerDiscountType)
        try container.encodeIfPresent(appTransactionId, forKey: .appTransactionId)
        try container.encodeIfPresent(offerPeriod, forKey: .offerPeriod)
        try container.encodeIfPresent(rawRevocationType, forKey: .revocationType)
        try container.encodeIfPresent(revocationPercentage, forKey: .revocationPercentage)
    }
}

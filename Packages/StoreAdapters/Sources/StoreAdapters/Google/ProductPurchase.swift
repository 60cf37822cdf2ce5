/// A one-time product purchase as `purchases.products.get` returns it.
///
/// Enum-like fields keep their raw integer values, so values this version does not know survive. `int64` fields
/// arrive as JSON strings and are decoded from either form.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products#ProductPurchase>.
struct ProductPurchase: Codable, Hashable, Sendable {
    /// `purchaseState`: 0 purchased, 1 canceled, 2 pending.
    struct PurchaseState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: Int32
        static let purchased = PurchaseState(rawValue: 0)
        static let canceled = PurchaseState(rawValue: 1)
        static let pending = PurchaseState(rawValue: 2)
    }

    /// `consumptionState`: 0 yet to be consumed, 1 consumed.
    struct ConsumptionState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: Int32
        static let yetToBeConsumed = ConsumptionState(rawValue: 0)
        static let consumed = ConsumptionState(rawValue: 1)
    }

    /// `acknowledgementState`: 0 yet to be acknowledged, 1 acknowledged.
    struct AcknowledgementState: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: Int32
        static let yetToBeAcknowledged = AcknowledgementState(rawValue: 0)
        static let acknowledged = AcknowledgementState(rawValue: 1)
    }

    /// `purchaseType`, set only outside the standard billing flow: 0 test (license tester), 1 promo, 2 rewarded.
    struct PurchaseType: RawRepresentable, Codable, Hashable, Sendable {
        var rawValue: Int32
        static let test = PurchaseType(rawValue: 0)
        static let promo = PurchaseType(rawValue: 1)
        static let rewarded = PurchaseType(rawValue: 2)
    }

    /// `androidpublisher#productPurchase`.
    var kind: String?
    /// When the product was bought, in ms since the epoch (`int64` as a string).
    var purchaseTimeMillis: FlexibleInt64?
    /// Purchased, canceled or pending.
    var purchaseState: PurchaseState?
    /// Consumed or not.
    var consumptionState: ConsumptionState?
    /// A developer-specified string (deprecated).
    var developerPayload: String?
    /// The order id (`GPA.…`); absent for some test and promo purchases.
    var orderId: String?
    /// Test, promo or rewarded; absent for a standard purchase.
    var purchaseType: PurchaseType?
    /// Acknowledged or not.
    var acknowledgementState: AcknowledgementState?
    /// The purchase token (may be absent).
    var purchaseToken: String?
    /// The product SKU (may be absent).
    var productId: String?
    /// How many units; absent means 1.
    var quantity: Int32?
    /// The obfuscated account id the app passed to the billing flow.
    var obfuscatedExternalAccountId: String?
    /// The obfuscated profile id the app passed to the billing flow.
    var obfuscatedExternalProfileId: String?
    /// ISO 3166-1 alpha-2 billing region.
    var regionCode: String?
}

extension ProductPurchase.PurchaseState {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int32.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ProductPurchase.ConsumptionState {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int32.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ProductPurchase.AcknowledgementState {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int32.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ProductPurchase.PurchaseType {
    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int32.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

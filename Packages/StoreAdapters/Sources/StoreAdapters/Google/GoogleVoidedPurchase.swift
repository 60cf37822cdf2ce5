import Foundation

/// A refunded, charged-back or otherwise revoked purchase, as the Voided Purchases API
/// (`purchases.voidedpurchases.list`) lists it.
///
/// See <https://developer.android.com/google/play/developer-api#voided-purchases>.
public struct GoogleVoidedPurchase: Sendable, Hashable, Codable {
    /// Who voided it: 0 the user, 1 the developer, 2 Google.
    public enum Source: Int, Sendable, Hashable {
        /// The buyer (a refund they asked Google for).
        case user = 0
        /// The developer (a refund or revocation from the Play Console or the API).
        case developer = 1
        /// Google itself.
        case google = 2
    }

    /// Why: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud,
    /// 7 chargeback.
    public enum Reason: Int, Sendable, Hashable {
        /// Another reason.
        case other = 0
        /// The buyer changed their mind.
        case remorse
        /// The buyer did not receive what they paid for.
        case notReceived
        /// What they received was defective.
        case defective
        /// Bought by accident.
        case accidentalPurchase
        /// Fraud.
        case fraud
        /// Friendly fraud: the account holder disputes a purchase they or their household made.
        case friendlyFraud
        /// A chargeback through the payment method.
        case chargeback
    }

    /// The voided purchase's token.
    public var purchaseToken: String
    /// Its order id (`GPA.…`).
    public var orderId: String?
    /// When it was bought, in ms since 1970 (`int64` as a string).
    public var purchaseTimeMillis: String?
    /// When it was voided, in ms since 1970 (`int64` as a string).
    public var voidedTimeMillis: String?
    /// Who voided it (``Source``'s raw value; unknown values survive).
    public var voidedSource: Int?
    /// Why (``Reason``'s raw value; unknown values survive).
    public var voidedReason: Int?
    /// For a quantity-based partial refund: how many units were refunded.
    public var voidedQuantity: Int?

    /// The source, when Google sent a known one.
    public var source: Source? { voidedSource.flatMap(Source.init(rawValue:)) }
    /// The reason, when Google sent a known one.
    public var reason: Reason? { voidedReason.flatMap(Reason.init(rawValue:)) }

    /// `voided/<source>/<reason>` for ``VerifiedPurchase/storeStatus``.
    public var statusText: String {
        let source = source.map { "\($0)" } ?? voidedSource.map(String.init) ?? "unknown"
        let reason = reason.map { "\($0)" } ?? voidedReason.map(String.init) ?? "unknown"
        return "voided/\(source)/\(reason)"
    }
}

/// One page of voided purchases and the token of the next.
public struct GoogleVoidedPurchasePage: Sendable, Hashable, Decodable {
    /// The page's voided purchases.
    public var voidedPurchases: [GoogleVoidedPurchase]
    /// The token of the next page (`tokenPagination.nextPageToken`), nil on the last.
    public var nextPageToken: String?

    struct TokenPagination: Decodable { var nextPageToken: String? }

    enum CodingKeys: String, CodingKey { case voidedPurchases, tokenPagination }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        voidedPurchases = try container.decodeIfPresent([GoogleVoidedPurchase].self, forKey: .voidedPurchases) ?? []
        nextPageToken = try container.decodeIfPresent(TokenPagination.self, forKey: .tokenPagination)?.nextPageToken
    }
}

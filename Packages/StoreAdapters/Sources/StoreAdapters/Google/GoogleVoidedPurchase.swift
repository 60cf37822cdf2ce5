import Foundation

/// A refunded, charged-back or otherwise revoked purchase, as the Voided Purchases API
/// (`purchases.voidedpurchases.list`) lists it.
///
/// See <https://developer.android.com/google/play/developer-api#voided-purchases>.
public struct GoogleVoidedPurchase: Sendable, Hashable, Codable {
    /// Who voided it: 0 the user, 1 the developer, 2 Google.
    public enum Source: Int, Sendable, Hashable {
        case user = 0, developer = 1, google = 2
    }

    /// Why: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud,
    /// 7 chargeback.
    public enum Reason: Int, Sendable, Hashable {
        case other = 0, remorse, notReceived, defective, accidentalPurchase, fraud, friendlyFraud, chargeback
    }

    public var purchaseToken: String
    public var orderId: String?
    public var purchaseTimeMillis: String?
    public var voidedTimeMillis: String?
    public var voidedSource: Int?
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
    public var voidedPurchases: [GoogleVoidedPurchase]
    public var nextPageToken: String?

    struct TokenPagination: Decodable { var nextPageToken: String? }

    enum CodingKeys: String, CodingKey { case voidedPurchases, tokenPagination }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        voidedPurchases = try container.decodeIfPresent([GoogleVoidedPurchase].self, forKey: .voidedPurchases) ?? []
        nextPageToken = try container.decodeIfPresent(TokenPagination.self, forKey: .tokenPagination)?.nextPageToken
    }
}

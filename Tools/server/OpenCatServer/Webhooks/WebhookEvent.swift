public import Foundation
public import OpenCatCore

/// The type of an event the server sends to an integrator's endpoint (`type` in the payload); an open set, so an
/// endpoint that asks for a type a later version adds is not refused.
public struct WebhookEventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The type as the payload carries it (`renewal`).
    public let rawValue: String
    /// A type from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The type as the payload carries it.
    public var description: String { rawValue }

    /// A subscription (or a one-time purchase recorded through the OpenCat API) seen for the first time.
    public static let initialPurchase = Self(rawValue: "initial_purchase")
    /// A subscription renewed: a new period (a new transaction, or a later expiry of the same one).
    public static let renewal = Self(rawValue: "renewal")
    /// The subscriber turned auto-renewal off: the subscription ends at its expiry.
    public static let cancellation = Self(rawValue: "cancellation")
    /// The subscriber turned auto-renewal back on before the expiry.
    public static let uncancellation = Self(rawValue: "uncancellation")
    /// The subscription expired.
    public static let expiration = Self(rawValue: "expiration")
    /// The store could not charge the renewal and keeps trying (no access meanwhile).
    public static let billingIssue = Self(rawValue: "billing_issue")
    /// The store could not charge the renewal and grants access while it retries (grace period).
    public static let gracePeriod = Self(rawValue: "grace_period")
    /// The subscription moved to another product (upgrade, downgrade, crossgrade).
    public static let productChange = Self(rawValue: "product_change")
    /// The store refunded a purchase, in whole or in part; for a key pack, the keys taken back.
    public static let refund = Self(rawValue: "refund")
    /// A key pack was bought and its keys credited.
    public static let keyPackPurchased = Self(rawValue: "key_pack_purchased")
    /// A user shared keys with another user (or with an address nobody has signed in with yet).
    public static let keysShared = Self(rawValue: "keys_shared")
    /// An operator granted a promotional entitlement.
    public static let promotionalGrant = Self(rawValue: "promotional_grant")
    /// A purchase moved to another app user (a restore on another account, an alias).
    public static let subscriberTransfer = Self(rawValue: "subscriber_transfer")
    /// A test event an operator sent from the console.
    public static let test = Self(rawValue: "test")

    /// Every type this version sends, in the order the documentation lists them.
    public static let all: [Self] = [
        .initialPurchase, .renewal, .cancellation, .uncancellation, .expiration, .billingIssue, .gracePeriod,
        .productChange, .refund, .keyPackPurchased, .keysShared, .promotionalGrant, .subscriberTransfer, .test,
    ]

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// An amount in exact minor units of its currency (cents; yen; fils), as every event carries money.
public struct WebhookAmount: Sendable, Hashable, Codable {
    /// The amount in minor units (`499` for 4.99 USD).
    public var amountMinor: Int64
    /// The currency, ISO 4217 (`USD`).
    public var currency: String

    enum CodingKeys: String, CodingKey {
        case amountMinor = "amount_minor"
        case currency
    }

    /// The amount of `money` in its currency's minor units; nil when it has more decimals than the currency has.
    public init?(_ money: Money) {
        let currency = money.currency.uppercased()
        guard let minor = money.minorUnits(exponent: Money.minorUnitDigits(currency)) else { return nil }
        amountMinor = minor
        self.currency = currency
    }
}

/// What an event says happened: who, in which store, what product and transaction, for how much, and when the store
/// says it happened. Fields an event type has no value for are left out of the JSON.
public struct WebhookEventData: Sendable, Hashable, Codable {
    /// The app user (the OpenCat API's `appUserId`, the key server's user id).
    public var appUserId: String?
    /// `apple`, `google`, `stripe`, `paypal`, `steam` (open).
    public var store: String?
    /// The store's product id.
    public var productId: String?
    /// The product before a product change.
    public var previousProductId: String?
    /// `production` or `sandbox`.
    public var environment: String?
    /// The store's transaction id (Apple's transactionId, Google's order or token, Stripe's PaymentIntent or
    /// subscription, PayPal's order or capture, Steam's order id).
    public var transactionId: String?
    /// The store's original transaction id (the subscription's first transaction).
    public var originalTransactionId: String?
    /// When the store says it happened (its signed date or purchase date), RFC 3339.
    public var storeTime: String?
    /// When the subscription's current period ends, RFC 3339.
    public var expiresAt: String?
    /// Whether the subscription renews at its expiry.
    public var willRenew: Bool?
    /// What the store charged, exact.
    public var price: WebhookAmount?
    /// Keys credited (a key pack), shared, or taken back (a refund).
    public var keys: Int64?
    /// A refund: whether it is the whole purchase, what was refunded so far, the keys taken back.
    public var refund: WebhookRefund?
    /// Who received shared keys (a user id, or `email` while nobody has signed in with the address).
    public var recipient: String?
    /// The entitlement a promotional grant gives, and until when.
    public var entitlement: String?
    /// The user a purchase moved from.
    public var previousAppUserId: String?

    enum CodingKeys: String, CodingKey {
        case appUserId = "app_user_id"
        case store
        case productId = "product_id"
        case previousProductId = "previous_product_id"
        case environment
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case storeTime = "store_time"
        case expiresAt = "expires_at"
        case willRenew = "will_renew"
        case price, keys, refund, recipient, entitlement
        case previousAppUserId = "previous_app_user_id"
    }

    /// Empty data.
    public init() {}
}

/// A refund's figures.
public struct WebhookRefund: Sendable, Hashable, Codable {
    /// Whether the whole purchase is refunded now.
    public var whole: Bool
    /// The amount refunded so far, exact (nil when the store did not say).
    public var amount: WebhookAmount?
    /// The keys this refund took back (0 for a subscription).
    public var keysClawedBack: Int64

    enum CodingKeys: String, CodingKey {
        case whole, amount
        case keysClawedBack = "keys_clawed_back"
    }
}

/// One event, as every endpoint receives it: the JSON body of a delivery (schema version 1, in the served OpenAPI
/// document under `webhooks`). `id` is also the delivery's `webhook-id`, the same on every attempt and resend.
public struct WebhookEvent: Sendable, Hashable, Codable {
    /// The event's id (`msg_…`).
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// The payload's schema version (1).
    public var version: Int
    /// When the server recorded it, RFC 3339.
    public var createdAt: String
    /// What it is about.
    public var data: WebhookEventData

    enum CodingKeys: String, CodingKey {
        case id, type, version, data
        case createdAt = "created_at"
    }

    /// The schema version this server writes.
    public static let schemaVersion = 1

    /// A new event with a fresh id.
    public init(type: WebhookEventType, data: WebhookEventData, at date: Date) {
        id = "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.type = type
        version = Self.schemaVersion
        createdAt = Self.timestamp(date)
        self.data = data
    }

    /// The body sent: compact JSON with sorted keys (the bytes the signature covers are these, stored once).
    public func body() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// A date as the payloads write it: RFC 3339, UTC, milliseconds.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
        )
    }
}

extension WebhookEventData {
    /// The data of an event about a store transaction.
    init(_ info: TransactionInfo, appUserId: String?, storeTime: Date?, price: Money?) {
        self.init()
        self.appUserId = appUserId
        store = info.store.rawValue
        productId = info.productId
        environment = info.environment.rawValue
        transactionId = info.transactionId
        originalTransactionId = info.originalTransactionId
        self.storeTime = WebhookEvent.timestamp(storeTime ?? info.purchaseDate)
        expiresAt = info.expirationDate.map(WebhookEvent.timestamp)
        willRenew = info.expirationDate == nil ? nil : info.willRenew
        self.price = price.flatMap(WebhookAmount.init)
    }
}

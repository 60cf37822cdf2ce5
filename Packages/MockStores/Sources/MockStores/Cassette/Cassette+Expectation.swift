public import Foundation

extension Cassette {
    /// The normalised outcome an adapter must produce for the cassette.
    ///
    /// `{"outcome": "verified", "state": "active", …}` or `{"outcome": "error", "code": "notFound"}`. The optional
    /// checks are compared only when present; members this version does not model are kept in ``additional`` for
    /// the conformance runner.
    public struct Expectation: Sendable, Hashable, Codable {
        /// `verified` or `error`.
        public struct Outcome: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// The adapter returns a verified purchase.
            public static let verified = Outcome(rawValue: "verified")
            /// The adapter throws an error with ``Expectation/code``.
            public static let error = Outcome(rawValue: "error")
        }

        /// An exact price.
        public struct Price: Sendable, Hashable, Codable {
            /// The amount as a decimal string in major units (`"5.00"`), never a binary float.
            public var amount: String
            /// The ISO 4217 code (`"USD"`).
            public var currency: String

            /// Creates a price.
            public init(amount: String, currency: String) {
                self.amount = amount
                self.currency = currency
            }
        }

        /// `verified` or `error`.
        public var outcome: Outcome
        /// `verified`: the `VerifiedPurchase.State` raw value (`active`, `pending`, `expired`, `refunded`,
        /// `gracePeriod`, `billingRetry`, …).
        public var state: String?
        /// `error`: the `StoreAdapterError.Code` raw value (`notFound`, `unauthorized`, …).
        public var code: String?
        /// The product id the result must carry.
        public var productId: String?
        /// The transaction id the result must carry.
        public var transactionId: String?
        /// The original transaction id the result must carry.
        public var originalTransactionId: String?
        /// `production` or `sandbox`.
        public var environment: String?
        /// The exact price.
        public var price: Price?
        /// Whether the adapter finalised the purchase (acknowledge, capture, FinalizeTxn).
        public var finalized: Bool?
        /// The quantity.
        public var quantity: Int?
        /// The store (`apple`, `google`, …).
        public var store: String?
        /// The purchaser the store reports (appAccountToken, obfuscatedExternalAccountId, custom id, steamid).
        public var purchaser: String?
        /// ISO 8601 dates, compared to the millisecond.
        public var purchaseDate: String?
        public var expirationDate: String?
        public var gracePeriodExpirationDate: String?
        public var verifiedAt: String?
        /// The exact amount refunded.
        public var refundedAmount: Price?
        /// Whether the subscription will renew.
        public var willRenew: Bool?
        /// The store's own status text.
        public var storeStatus: String?
        /// For an error: the store's own reason the adapter's error carries (`StoreAdapterError.storeReason`: Apple's
        /// numeric code, Stripe's error code, …).
        public var storeReason: String?
        /// A runner directive: verify this many times (idempotence), every result compared.
        public var `repeat`: Int?
        /// Keys this version does not know. ``Cassette/validate()`` refuses a cassette with any, so a misspelt or
        /// unsupported expectation is never silently ignored.
        public var additional: [String: JSONValue]

        /// Every key an expectation may have.
        public static var knownKeys: [String] { CodingKeys.allCases.map(\.rawValue) }

        /// An expectation's ISO 8601 date (with or without fractional seconds).
        public static func date(_ text: String) -> Date? {
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        }

        /// Creates an expectation.
        public init(
            outcome: Outcome,
            state: String? = nil,
            code: String? = nil,
            productId: String? = nil,
            transactionId: String? = nil,
            originalTransactionId: String? = nil,
            environment: String? = nil,
            price: Price? = nil,
            finalized: Bool? = nil,
            quantity: Int? = nil,
            additional: [String: JSONValue] = [:]
        ) {
            self.outcome = outcome
            self.state = state
            self.code = code
            self.productId = productId
            self.transactionId = transactionId
            self.originalTransactionId = originalTransactionId
            self.environment = environment
            self.price = price
            self.finalized = finalized
            self.quantity = quantity
            self.additional = additional
        }

        /// A verified result in a state.
        public static func verified(_ state: String) -> Expectation { Expectation(outcome: .verified, state: state) }
        /// An error with a code.
        public static func error(_ code: String) -> Expectation { Expectation(outcome: .error, code: code) }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case outcome, state, code, productId, transactionId, originalTransactionId, environment, price
            case finalized, quantity, store, purchaser, purchaseDate, expirationDate, gracePeriodExpirationDate
            case verifiedAt, refundedAmount, willRenew, storeStatus, storeReason, `repeat`
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            outcome = try container.decode(Outcome.self, forKey: .outcome)
            state = try container.decodeIfPresent(String.self, forKey: .state)
            code = try container.decodeIfPresent(String.self, forKey: .code)
            productId = try container.decodeIfPresent(String.self, forKey: .productId)
            transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
            originalTransactionId = try container.decodeIfPresent(String.self, forKey: .originalTransactionId)
            environment = try container.decodeIfPresent(String.self, forKey: .environment)
            price = try container.decodeIfPresent(Price.self, forKey: .price)
            finalized = try container.decodeIfPresent(Bool.self, forKey: .finalized)
            quantity = try container.decodeIfPresent(Int.self, forKey: .quantity)
            store = try container.decodeIfPresent(String.self, forKey: .store)
            purchaser = try container.decodeIfPresent(String.self, forKey: .purchaser)
            purchaseDate = try container.decodeIfPresent(String.self, forKey: .purchaseDate)
            expirationDate = try container.decodeIfPresent(String.self, forKey: .expirationDate)
            gracePeriodExpirationDate = try container.decodeIfPresent(String.self, forKey: .gracePeriodExpirationDate)
            verifiedAt = try container.decodeIfPresent(String.self, forKey: .verifiedAt)
            refundedAmount = try container.decodeIfPresent(Price.self, forKey: .refundedAmount)
            willRenew = try container.decodeIfPresent(Bool.self, forKey: .willRenew)
            storeStatus = try container.decodeIfPresent(String.self, forKey: .storeStatus)
            storeReason = try container.decodeIfPresent(String.self, forKey: .storeReason)
            `repeat` = try container.decodeIfPresent(Int.self, forKey: .repeat)
            let known = Set(CodingKeys.allCases.map(\.rawValue))
            let everything = try decoder.container(keyedBy: AnyCodingKey.self)
            var additional: [String: JSONValue] = [:]
            for key in everything.allKeys where !known.contains(key.stringValue) {
                additional[key.stringValue] = try everything.decode(JSONValue.self, forKey: key)
            }
            self.additional = additional
        }

        public func encode(to encoder: any Encoder) throws {
            var extra = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in additional { try extra.encode(value, forKey: AnyCodingKey(key)) }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(outcome, forKey: .outcome)
            try container.encodeIfPresent(state, forKey: .state)
            try container.encodeIfPresent(code, forKey: .code)
            try container.encodeIfPresent(productId, forKey: .productId)
            try container.encodeIfPresent(transactionId, forKey: .transactionId)
            try container.encodeIfPresent(originalTransactionId, forKey: .originalTransactionId)
            try container.encodeIfPresent(environment, forKey: .environment)
            try container.encodeIfPresent(price, forKey: .price)
            try container.encodeIfPresent(finalized, forKey: .finalized)
            try container.encodeIfPresent(quantity, forKey: .quantity)
            try container.encodeIfPresent(store, forKey: .store)
            try container.encodeIfPresent(purchaser, forKey: .purchaser)
            try container.encodeIfPresent(purchaseDate, forKey: .purchaseDate)
            try container.encodeIfPresent(expirationDate, forKey: .expirationDate)
            try container.encodeIfPresent(gracePeriodExpirationDate, forKey: .gracePeriodExpirationDate)
            try container.encodeIfPresent(verifiedAt, forKey: .verifiedAt)
            try container.encodeIfPresent(refundedAmount, forKey: .refundedAmount)
            try container.encodeIfPresent(willRenew, forKey: .willRenew)
            try container.encodeIfPresent(storeStatus, forKey: .storeStatus)
            try container.encodeIfPresent(storeReason, forKey: .storeReason)
            try container.encodeIfPresent(`repeat`, forKey: .repeat)
        }
    }
}

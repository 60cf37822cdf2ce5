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
        /// Other checks, for the runner to interpret (`purchaseDate`, `expirationDate`, …).
        public var additional: [String: JSONValue]

        /// Creates an expectation.
        public init(
            outcome: Outcome, state: String? = nil, code: String? = nil, productId: String? = nil,
            transactionId: String? = nil, originalTransactionId: String? = nil, environment: String? = nil,
            price: Price? = nil, finalized: Bool? = nil, quantity: Int? = nil, additional: [String: JSONValue] = [:]
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
            case finalized, quantity
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
        }
    }
}

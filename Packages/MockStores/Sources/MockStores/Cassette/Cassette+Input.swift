public import OpenCatCore

extension Cassette {
    /// The proof handed to the adapter under test (a `PurchaseProof` without its store, which is the cassette's).
    public struct Input: Sendable, Hashable, Codable {
        /// The `PurchaseProof/Kind-swift.struct` raw value (`"stripePaymentIntent"`, `"appleSignedTransaction"`, …).
        public var kind: PurchaseProof.Kind
        /// The proof itself; usually a placeholder for anything secret-looking (`{{apple.jws.transaction}}`).
        public var token: String
        /// The product the app believes was bought.
        public var productId: String?
        /// The transaction id known before verification.
        public var transactionId: String?
        /// Non-secret store context (Google `packageName`, Steam `appid`, …).
        public var context: [String: String]

        /// Creates an input.
        public init(
            kind: PurchaseProof.Kind,
            token: String,
            productId: String? = nil,
            transactionId: String? = nil,
            context: [String: String] = [:]
        ) {
            self.kind = kind
            self.token = token
            self.productId = productId
            self.transactionId = transactionId
            self.context = context
        }

        /// The proof for a store.
        public func proof(store: Store) -> PurchaseProof {
            PurchaseProof(
                store: store,
                kind: kind,
                token: Secret(token),
                productId: productId,
                transactionId: transactionId,
                context: context
            )
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case kind, token, productId, transactionId, context
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(PurchaseProof.Kind.self, forKey: .kind)
            token = try container.decode(String.self, forKey: .token)
            productId = try container.decodeIfPresent(String.self, forKey: .productId)
            transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
            context = try container.decodeIfPresent([String: String].self, forKey: .context) ?? [:]
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(token, forKey: .token)
            try container.encodeIfPresent(productId, forKey: .productId)
            try container.encodeIfPresent(transactionId, forKey: .transactionId)
            if !context.isEmpty { try container.encode(context, forKey: .context) }
        }
    }
}

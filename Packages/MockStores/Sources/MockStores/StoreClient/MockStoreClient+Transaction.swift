public import Foundation
public import OpenCatCore

extension MockStoreClient {
    /// One transaction in the mock store's ledger; a ``ProofMinter`` turns it into a `PurchaseProof`.
    public struct Transaction: Sendable, Hashable {
        /// Why the transaction (or this version of it) exists.
        public enum Reason: String, Sendable, Hashable {
            /// Bought through ``MockStoreClient/purchase(productId:appUserId:)``.
            case purchase
            /// A pending purchase that was approved, or a purchase made elsewhere.
            case externalPurchase
            /// A subscription renewal.
            case renewal
            /// Refunded (``revocationDate`` is set).
            case refund
        }

        /// The transaction id (numeric text, unique within the client).
        public var transactionId: String
        /// The first transaction of a subscription chain (equal to ``transactionId`` for a first purchase).
        public var originalTransactionId: String
        /// The product.
        public var productId: String
        /// The product's type.
        public var productType: Product.ProductType
        /// The store.
        public var store: Store
        /// The app's user id given to the purchase.
        public var appUserId: String
        /// When it was bought (for a renewal: when the period starts).
        public var purchaseDate: Date
        /// When access ends, for subscriptions and non-renewing products with a period.
        public var expirationDate: Date?
        /// When it was refunded.
        public var revocationDate: Date?
        /// The price.
        public var price: Money
        /// Why this version exists.
        public var reason: Reason
        /// When the event happened on the client's clock (a JWS minter uses it as `signedDate`).
        public var eventDate: Date

        /// Creates a transaction.
        public init(
            transactionId: String,
            originalTransactionId: String,
            productId: String,
            productType: Product.ProductType,
            store: Store,
            appUserId: String,
            purchaseDate: Date,
            expirationDate: Date? = nil,
            revocationDate: Date? = nil,
            price: Money,
            reason: Reason,
            eventDate: Date
        ) {
            self.transactionId = transactionId
            self.originalTransactionId = originalTransactionId
            self.productId = productId
            self.productType = productType
            self.store = store
            self.appUserId = appUserId
            self.purchaseDate = purchaseDate
            self.expirationDate = expirationDate
            self.revocationDate = revocationDate
            self.price = price
            self.reason = reason
            self.eventDate = eventDate
        }

        /// Whether it was refunded.
        public var isRefunded: Bool { revocationDate != nil }

        /// Whether it grants access at a date: not refunded, not a consumable, and not past its expiration.
        public func isActive(at date: Date) -> Bool {
            guard !isRefunded, productType != .consumable else { return false }
            if let expirationDate { return expirationDate > date }
            return true
        }
    }
}

/// Something for sale in a store.
public struct Product: Codable, Sendable, Hashable {
    /// What kind of product it is.
    public enum ProductType: String, Codable, Sendable, Hashable {
        /// Bought once, used up (coins, key packs).
        case consumable
        /// Bought once, kept forever (a full unlock).
        case nonConsumable
        /// A subscription that renews until cancelled.
        case autoRenewable
        /// Access for a fixed period that does not renew.
        case nonRenewing
    }

    /// The store's product identifier.
    public var id: String
    /// The store selling it.
    public var store: Store
    /// What kind of product it is.
    public var type: ProductType
    /// The localized name.
    public var displayName: String
    /// The localized description.
    public var description: String
    /// The exact price.
    public var price: Money
    /// For subscriptions, the ISO 8601 period (`"P1M"`, `"P1Y"`).
    public var subscriptionPeriod: String?

    /// Creates a product.
    public init(
        id: String,
        store: Store,
        type: ProductType,
        displayName: String,
        description: String = "",
        price: Money,
        subscriptionPeriod: String? = nil
    ) {
        self.id = id
        self.store = store
        self.type = type
        self.displayName = displayName
        self.description = description
        self.price = price
        self.subscriptionPeriod = subscriptionPeriod
    }
}

/// A product as offered in an ``Offering``, under a stable identifier such as `"$monthly"`.
public struct Package: Codable, Sendable, Hashable {
    /// The package's identifier within its offering.
    public var identifier: String
    /// The product it sells.
    public var product: Product

    /// Creates a package.
    public init(identifier: String, product: Product) {
        self.identifier = identifier
        self.product = product
    }
}

/// A set of packages shown together on a paywall.
public struct Offering: Codable, Sendable, Hashable {
    /// The offering's identifier.
    public var identifier: String
    /// A description for the app's own use.
    public var description: String
    /// Its packages, in display order.
    public var packages: [Package]

    /// Creates an offering.
    public init(identifier: String, description: String = "", packages: [Package]) {
        self.identifier = identifier
        self.description = description
        self.packages = packages
    }

    /// The package with an identifier.
    public func package(_ identifier: String) -> Package? { packages.first { $0.identifier == identifier } }
}

/// All offerings, with the one to show by default.
public struct Offerings: Codable, Sendable, Hashable {
    /// The identifier of the offering to show by default.
    public var currentOfferingId: String?
    /// Every offering, by identifier.
    public var all: [String: Offering]

    /// Creates offerings.
    public init(currentOfferingId: String?, all: [String: Offering]) {
        self.currentOfferingId = currentOfferingId
        self.all = all
    }

    /// The offering to show by default.
    public var current: Offering? { currentOfferingId.flatMap { all[$0] } }
}

/// Which offerings the app sells and which products each one holds, for standalone mode (where no server
/// supplies offerings). Product details come from the ``StoreClient``.
public struct OfferingsLayout: Codable, Sendable, Hashable {
    /// One offering: its identifier and `(package identifier, product id)` pairs in display order.
    public struct Entry: Codable, Sendable, Hashable {
        /// The offering's identifier.
        public var identifier: String
        /// Package identifier → product id, in display order.
        public var packages: [PackageRef]

        /// Creates an entry.
        public init(identifier: String, packages: [PackageRef]) {
            self.identifier = identifier
            self.packages = packages
        }
    }

    /// A package identifier and the product it sells.
    public struct PackageRef: Codable, Sendable, Hashable {
        /// The package identifier.
        public var identifier: String
        /// The product id.
        public var productId: String

        /// Creates a reference.
        public init(identifier: String, productId: String) {
            self.identifier = identifier
            self.productId = productId
        }
    }

    /// The offering shown by default.
    public var currentOfferingId: String?
    /// The offerings.
    public var offerings: [Entry]

    /// Creates a layout.
    public init(currentOfferingId: String?, offerings: [Entry]) {
        self.currentOfferingId = currentOfferingId
        self.offerings = offerings
    }

    /// Every product id the layout names.
    public var productIds: Set<String> { Set(offerings.flatMap { $0.packages.map(\.productId) }) }
}

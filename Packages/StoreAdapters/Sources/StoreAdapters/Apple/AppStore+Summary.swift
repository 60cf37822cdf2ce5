extension AppStore {
    /// The summary of a `RENEWAL_EXTENSION` / `SUMMARY` notification (a mass renewal-date extension).
    ///
    /// [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary)
    public struct Summary: Codable, Hashable, Sendable {
        /// The raw `environment` value; see ``environment``.
        public var rawEnvironment: String?
        /// The app's App Store identifier.
        public var appAppleId: Int64?
        /// The bundle identifier of the app.
        public var bundleId: String?
        /// The product the extension applied to.
        public var productId: String?
        /// The identifier of the extension request.
        public var requestIdentifier: String?
        /// The storefronts the extension applied to.
        public var storefrontCountryCodes: [String]?
        /// How many subscriptions were extended.
        public var succeededCount: Int64?
        /// How many subscriptions could not be extended.
        public var failedCount: Int64?

        /// The server environment, if this version knows ``rawEnvironment``.
        public var environment: AppStore.Environment? {
            get { rawEnvironment.flatMap(AppStore.Environment.init(rawValue:)) }
            set { rawEnvironment = newValue?.rawValue }
        }

        /// Creates the object.
        public init(
            rawEnvironment: String? = nil,
            appAppleId: Int64? = nil,
            bundleId: String? = nil,
            productId: String? = nil,
            requestIdentifier: String? = nil,
            storefrontCountryCodes: [String]? = nil,
            succeededCount: Int64? = nil,
            failedCount: Int64? = nil
        ) {
            self.rawEnvironment = rawEnvironment
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.productId = productId
            self.requestIdentifier = requestIdentifier
            self.storefrontCountryCodes = storefrontCountryCodes
            self.succeededCount = succeededCount
            self.failedCount = failedCount
        }

        private enum CodingKeys: String, CodingKey {
            case environment, appAppleId, bundleId, productId, requestIdentifier, storefrontCountryCodes
            case succeededCount, failedCount
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            rawEnvironment = try container.decodeIfPresent(String.self, forKey: .environment)
            appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
            bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
            productId = try container.decodeIfPresent(String.self, forKey: .productId)
            requestIdentifier = try container.decodeIfPresent(String.self, forKey: .requestIdentifier)
            storefrontCountryCodes = try container.decodeIfPresent([String].self, forKey: .storefrontCountryCodes)
            succeededCount = try container.decodeIfPresent(Int64.self, forKey: .succeededCount)
            failedCount = try container.decodeIfPresent(Int64.self, forKey: .failedCount)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(rawEnvironment, forKey: .environment)
            try container.encodeIfPresent(appAppleId, forKey: .appAppleId)
            try container.encodeIfPresent(bundleId, forKey: .bundleId)
            try container.encodeIfPresent(productId, forKey: .productId)
            try container.encodeIfPresent(requestIdentifier, forKey: .requestIdentifier)
            try container.encodeIfPresent(storefrontCountryCodes, forKey: .storefrontCountryCodes)
            try container.encodeIfPresent(succeededCount, forKey: .succeededCount)
            try container.encodeIfPresent(failedCount, forKey: .failedCount)
        }
    }
}

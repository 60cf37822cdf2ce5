public import Foundation

extension AppStore {
    /// The external purchase token of an `EXTERNAL_PURCHASE_TOKEN` notification.
    ///
    /// [externalPurchaseToken](https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken)
    public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
        /// The token's identifier; it starts with `SANDBOX` for sandbox tokens.
        public var externalPurchaseId: String?
        /// When the system created the token.
        public var tokenCreationDate: Date?
        /// The app's App Store identifier.
        public var appAppleId: Int64?
        /// The bundle identifier of the app.
        public var bundleId: String?

        /// The environment the token belongs to, derived from ``externalPurchaseId`` as Apple documents.
        public var environment: AppStore.Environment {
            externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
        }

        /// Creates the object.
        public init(
            externalPurchaseId: String? = nil,
            tokenCreationDate: Date? = nil,
            appAppleId: Int64? = nil,
            bundleId: String? = nil
        ) {
            self.externalPurchaseId = externalPurchaseId
            self.tokenCreationDate = tokenCreationDate
            self.appAppleId = appAppleId
            self.bundleId = bundleId
        }

        private enum CodingKeys: String, CodingKey {
            case externalPurchaseId, tokenCreationDate, appAppleId, bundleId
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            externalPurchaseId = try container.decodeIfPresent(String.self, forKey: .externalPurchaseId)
            tokenCreationDate = try container.decodeAppStoreDateIfPresent(forKey: .tokenCreationDate)
            appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
            bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(externalPurchaseId, forKey: .externalPurchaseId)
            try container.encodeAppStoreDateIfPresent(tokenCreationDate, forKey: .tokenCreationDate)
            try container.encodeIfPresent(appAppleId, forKey: .appAppleId)
            try container.encodeIfPresent(bundleId, forKey: .bundleId)
        }
    }
}

public import OpenCatCore

extension AppStore {
    /// The app metadata and signed transaction information of a notification (Apple's `data` object).
    ///
    /// [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
    ///
    /// The two signed fields are JWS and therefore `Secret`s: they never print, and encode as a placeholder.
    public struct NotificationData: Codable, Hashable, Sendable {
        /// The raw `environment` value; see ``environment``.
        public var rawEnvironment: String?
        /// The app's App Store identifier (absent in the sandbox).
        ///
        /// [appAppleId](https://developer.apple.com/documentation/appstoreservernotifications/appappleid)
        public var appAppleId: Int64?
        /// The bundle identifier of the app.
        ///
        /// [bundleId](https://developer.apple.com/documentation/appstoreservernotifications/bundleid)
        public var bundleId: String?
        /// The build version of the app.
        ///
        /// [bundleVersion](https://developer.apple.com/documentation/appstoreservernotifications/bundleversion)
        public var bundleVersion: String?
        /// The signed transaction (a `JWSTransaction`).
        ///
        /// [signedTransactionInfo](https://developer.apple.com/documentation/appstoreservernotifications/jwstransaction)
        public var signedTransactionInfo: Secret<String>?
        /// The signed subscription renewal information (a `JWSRenewalInfo`).
        ///
        /// [signedRenewalInfo](https://developer.apple.com/documentation/appstoreservernotifications/jwsrenewalinfo)
        public var signedRenewalInfo: Secret<String>?
        /// The raw `status` value; see ``status``.
        public var rawStatus: Int32?
        /// Why the customer asked for a refund (`CONSUMPTION_REQUEST` notifications), as sent.
        ///
        /// [consumptionRequestReason](https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason)
        public var consumptionRequestReason: String?

        /// The server environment, if this version knows ``rawEnvironment``.
        public var environment: AppStore.Environment? {
            get { rawEnvironment.flatMap(AppStore.Environment.init(rawValue:)) }
            set { rawEnvironment = newValue?.rawValue }
        }

        /// The subscription status, if this version knows ``rawStatus``.
        ///
        /// [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
        public var status: AppStore.Status? {
            get { rawStatus.flatMap(AppStore.Status.init(rawValue:)) }
            set { rawStatus = newValue?.rawValue }
        }

        /// Creates the object.
        public init(
            rawEnvironment: String? = nil,
            appAppleId: Int64? = nil,
            bundleId: String? = nil,
            bundleVersion: String? = nil,
            signedTransactionInfo: Secret<String>? = nil,
            signedRenewalInfo: Secret<String>? = nil,
            rawStatus: Int32? = nil,
            consumptionRequestReason: String? = nil
        ) {
            self.rawEnvironment = rawEnvironment
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.bundleVersion = bundleVersion
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.rawStatus = rawStatus
            self.consumptionRequestReason = consumptionRequestReason
        }

        private enum CodingKeys: String, CodingKey {
            case environment, appAppleId, bundleId, bundleVersion, signedTransactionInfo, signedRenewalInfo, status
            case consumptionRequestReason
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            rawEnvironment = try container.decodeIfPresent(String.self, forKey: .environment)
            appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
            bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
            bundleVersion = try container.decodeIfPresent(String.self, forKey: .bundleVersion)
            signedTransactionInfo = try container.decodeIfPresent(Secret<String>.self, forKey: .signedTransactionInfo)
            signedRenewalInfo = try container.decodeIfPresent(Secret<String>.self, forKey: .signedRenewalInfo)
            rawStatus = try container.decodeIfPresent(Int32.self, forKey: .status)
            consumptionRequestReason = try container.decodeIfPresent(String.self, forKey: .consumptionRequestReason)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(rawEnvironment, forKey: .environment)
            try container.encodeIfPresent(appAppleId, forKey: .appAppleId)
            try container.encodeIfPresent(bundleId, forKey: .bundleId)
            try container.encodeIfPresent(bundleVersion, forKey: .bundleVersion)
            try container.encodeIfPresent(signedTransactionInfo, forKey: .signedTransactionInfo)
            try container.encodeIfPresent(signedRenewalInfo, forKey: .signedRenewalInfo)
            try container.encodeIfPresent(rawStatus, forKey: .status)
            try container.encodeIfPresent(consumptionRequestReason, forKey: .consumptionRequestReason)
        }
    }
}

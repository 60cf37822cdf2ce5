public import OpenCatCore

extension AppStore {
    /// The answer of Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`): per subscription
    /// group, the latest transaction of each original transaction with Apple's own status.
    ///
    /// [StatusResponse](https://developer.apple.com/documentation/appstoreserverapi/statusresponse)
    public struct StatusResponse: Codable, Hashable, Sendable {
        /// One subscription group and its latest transactions.
        public struct Group: Codable, Hashable, Sendable {
            /// The subscription group's identifier.
            public var subscriptionGroupIdentifier: String?
            /// The latest transaction of each original transaction in the group.
            public var lastTransactions: [LastTransaction]?
        }

        /// The latest transaction of one original transaction, with its status and renewal info (both signed).
        public struct LastTransaction: Codable, Hashable, Sendable {
            /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
            public var status: Int?
            /// The original transaction id the subscription renews under.
            public var originalTransactionId: String?
            /// The latest transaction, signed (JWS): verified before it is read.
            public var signedTransactionInfo: Secret<String>?
            /// The renewal information, signed (JWS): verified before it is read.
            public var signedRenewalInfo: Secret<String>?
        }

        /// `Production` or `Sandbox`.
        public var environment: String?
        /// The app's bundle id.
        public var bundleId: String?
        /// The app's Apple id (production only).
        public var appAppleId: Int64?
        /// One entry per subscription group.
        public var data: [Group]?
    }

    /// Apple's subscription status values.
    public enum SubscriptionStatus: Int, Sendable, Hashable, CaseIterable {
        /// Active.
        case active = 1
        /// Expired.
        case expired = 2
        /// In the billing retry period.
        case billingRetry = 3
        /// In the billing grace period.
        case gracePeriod = 4
        /// Revoked (refunded, or removed from Family Sharing).
        case revoked = 5
    }
}

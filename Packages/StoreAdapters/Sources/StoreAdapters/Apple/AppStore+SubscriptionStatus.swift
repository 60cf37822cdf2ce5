public import OpenCatCore

extension AppStore {
    /// The answer of Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`): per subscription
    /// group, the latest transaction of each original transaction with Apple's own status.
    ///
    /// [StatusResponse](https://developer.apple.com/documentation/appstoreserverapi/statusresponse)
    public struct StatusResponse: Codable, Hashable, Sendable {
        /// One subscription group and its latest transactions.
        public struct Group: Codable, Hashable, Sendable {
            public var subscriptionGroupIdentifier: String?
            public var lastTransactions: [LastTransaction]?
        }

        /// The latest transaction of one original transaction, with its status and renewal info (both signed).
        public struct LastTransaction: Codable, Hashable, Sendable {
            /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
            public var status: Int?
            public var originalTransactionId: String?
            public var signedTransactionInfo: Secret<String>?
            public var signedRenewalInfo: Secret<String>?
        }

        public var environment: String?
        public var bundleId: String?
        public var appAppleId: Int64?
        public var data: [Group]?
    }

    /// Apple's subscription status values.
    public enum SubscriptionStatus: Int, Sendable, Hashable, CaseIterable {
        case active = 1
        case expired = 2
        case billingRetry = 3
        case gracePeriod = 4
        case revoked = 5
    }
}

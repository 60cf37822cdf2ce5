public import Foundation
import OpenCatCore

extension AppStore {
    /// The answer of Get Transaction History v2 (`GET /inApps/v2/history/{transactionId}`): one page of the
    /// customer's signed transactions.
    ///
    /// [HistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/historyresponse)
    struct HistoryResponse: Decodable, Sendable {
        /// Where the next page starts (the next call's `revision` query).
        var revision: String?
        /// Whether more pages follow.
        var hasMore: Bool?
        /// The app's bundle identifier.
        var bundleId: String?
        /// The app's App Store identifier.
        var appAppleId: Int64?
        /// `Production` or `Sandbox`.
        var environment: String?
        /// The page's transactions, each a `JWSTransaction`.
        var signedTransactions: [Secret<String>]?
    }

    /// The answer of Get Refund History v2 (`GET /inApps/v2/refund/lookup/{transactionId}`): one page of the
    /// customer's refunded transactions.
    ///
    /// [RefundHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse)
    struct RefundHistoryResponse: Decodable, Sendable {
        /// The page's refunded transactions, each a `JWSTransaction`.
        var signedTransactions: [Secret<String>]?
        /// Where the next page starts.
        var revision: String?
        /// Whether more pages follow.
        var hasMore: Bool?
    }

    /// The body of Extend a Subscription Renewal Date (`PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`).
    ///
    /// [ExtendRenewalDateRequest](https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldaterequest)
    struct ExtendRenewalDateRequest: Encodable, Sendable {
        /// Whole days, 1 to 90.
        var extendByDays: Int
        /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
        var extendReasonCode: Int
        /// The caller's identifier of this request (a UUID).
        var requestIdentifier: String
    }

    /// The answer of Extend a Subscription Renewal Date.
    ///
    /// [ExtendRenewalDateResponse](https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldateresponse)
    struct ExtendRenewalDateResponse: Decodable, Sendable {
        /// The subscription's new expiration date (UNIX milliseconds).
        var effectiveDate: Int64?
        /// The subscription's original transaction id.
        var originalTransactionId: String?
        /// Whether the renewal date moved.
        var success: Bool?
        /// The subscription period's purchase-event id.
        var webOrderLineItemId: String?
    }

    /// The body of Extend Subscription Renewal Dates for All Active Subscribers
    /// (`POST /inApps/v1/subscriptions/extend/mass`).
    ///
    /// [MassExtendRenewalDateRequest](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldaterequest)
    struct MassExtendRenewalDateRequest: Encodable, Sendable {
        /// Whole days, 1 to 90.
        var extendByDays: Int
        /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
        var extendReasonCode: Int
        /// The auto-renewable subscription's product id.
        var productId: String
        /// The caller's identifier of this request (a UUID), which its status is read by.
        var requestIdentifier: String
        /// The storefronts (ISO 3166-1 alpha-3) to limit the extension to; absent for every storefront.
        var storefrontCountryCodes: [String]?
    }

    /// The answer of Extend Subscription Renewal Dates for All Active Subscribers: the request was received.
    ///
    /// [MassExtendRenewalDateResponse](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldateresponse)
    struct MassExtendRenewalDateResponse: Decodable, Sendable {
        /// The request identifier the request carried.
        var requestIdentifier: String?
    }

    /// The answer of Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`).
    ///
    /// [OrderLookupResponse](https://developer.apple.com/documentation/appstoreserverapi/orderlookupresponse)
    struct OrderLookupResponse: Decodable, Sendable {
        /// 0 the order id is valid, 1 it is not (then no transactions follow).
        var status: Int?
        /// The order's In-App Purchases, each a `JWSTransaction`.
        var signedTransactions: [Secret<String>]?
    }

    /// How far a request to extend every subscriber of a product has got (Get Status of Subscription Renewal Date
    /// Extensions, `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`). Dates are UNIX
    /// milliseconds on the wire.
    ///
    /// [MassExtendRenewalDateStatusResponse](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldatestatusresponse)
    public struct MassExtensionStatus: Sendable, Hashable, Codable {
        /// The identifier the extension request carried.
        public var requestIdentifier: String
        /// Whether the App Store has finished extending every eligible subscription.
        public var complete: Bool
        /// When it finished, once ``complete``.
        public var completeDate: Date?
        /// How many subscriptions were extended, once known.
        public var succeededCount: Int?
        /// How many subscriptions could not be extended, once known.
        public var failedCount: Int?

        /// A status.
        public init(
            requestIdentifier: String,
            complete: Bool,
            completeDate: Date? = nil,
            succeededCount: Int? = nil,
            failedCount: Int? = nil
        ) {
            self.requestIdentifier = requestIdentifier
            self.complete = complete
            self.completeDate = completeDate
            self.succeededCount = succeededCount
            self.failedCount = failedCount
        }

        private enum CodingKeys: String, CodingKey {
            case requestIdentifier, complete, completeDate, succeededCount, failedCount
        }

        /// Decodes Apple's answer; a missing `complete` reads as not complete.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requestIdentifier = try container.decodeIfPresent(String.self, forKey: .requestIdentifier) ?? ""
            complete = try container.decodeIfPresent(Bool.self, forKey: .complete) ?? false
            completeDate = try container.decodeAppStoreDateIfPresent(forKey: .completeDate)
            succeededCount = try container.decodeIfPresent(Int.self, forKey: .succeededCount)
            failedCount = try container.decodeIfPresent(Int.self, forKey: .failedCount)
        }

        /// Encodes it as Apple sends it.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(requestIdentifier, forKey: .requestIdentifier)
            try container.encode(complete, forKey: .complete)
            try container.encodeAppStoreDateIfPresent(completeDate, forKey: .completeDate)
            try container.encodeIfPresent(succeededCount, forKey: .succeededCount)
            try container.encodeIfPresent(failedCount, forKey: .failedCount)
        }
    }
}

public import Foundation
import OpenCatCore

// The App Store Server API's support endpoints: Send Consumption Information, Get Notification History, Request a Test
// Notification, Get Test Notification Status and Set App Account Token. The request bodies and results the adapter
// offers are public; Apple's answers are read through the internal wire types at the end.

extension AppStore {
    /// The consumption information Apple asks for after a customer requests a refund (a `CONSUMPTION_REQUEST`
    /// notification), sent with ``AppleStoreAdapter/sendConsumptionInformation(transactionId:_:)``.
    ///
    /// This is Apple's current request (App Store Server API 1.19,
    /// `PUT /inApps/v2/transactions/consumption/{transactionId}`). The older `ConsumptionRequestV1` fields
    /// (`accountTenure`, `playTime`, `lifetimeDollarsPurchased`, …) belong to Send Consumption Information V1, which
    /// Apple now keeps for Advanced Commerce API purchases only.
    ///
    /// [ConsumptionRequest](https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest)
    public struct ConsumptionRequest: Sendable, Hashable, Codable {
        /// Whether the app delivered a working In-App Purchase.
        ///
        /// [deliveryStatus](https://developer.apple.com/documentation/appstoreserverapi/deliverystatus)
        public enum DeliveryStatus: String, Sendable, Hashable, Codable, CaseIterable {
            /// `DELIVERED`: delivered and working.
            case delivered = "DELIVERED"
            /// `UNDELIVERED_QUALITY_ISSUE`: not delivered because of a quality issue.
            case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
            /// `UNDELIVERED_WRONG_ITEM`: the wrong item was delivered.
            case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
            /// `UNDELIVERED_SERVER_OUTAGE`: not delivered because of a server outage.
            case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
            /// `UNDELIVERED_OTHER`: not delivered for another reason.
            case undeliveredOther = "UNDELIVERED_OTHER"
        }

        /// The outcome the developer prefers for the refund request.
        ///
        /// [refundPreference](https://developer.apple.com/documentation/appstoreserverapi/refundpreference)
        public enum RefundPreference: String, Sendable, Hashable, Codable, CaseIterable {
            /// `DECLINE`: decline the refund.
            case decline = "DECLINE"
            /// `GRANT_FULL`: grant a full refund.
            case grantFull = "GRANT_FULL"
            /// `GRANT_PRORATED`: grant a prorated refund.
            case grantProrated = "GRANT_PRORATED"
        }

        /// Whether the customer consented to share consumption data. Apple refuses anything but `true`
        /// (`InvalidCustomerConsentedError`), and so does the adapter, before sending.
        public var customerConsented: Bool
        /// Whether the app delivered a working In-App Purchase.
        public var deliveryStatus: DeliveryStatus
        /// Whether a free sample, trial or description of the content was provided before the purchase.
        public var sampleContentProvided: Bool
        /// How much of the purchase the customer consumed, in milliunits of a percent: `0` to `100000` (100%).
        /// Must be `0` (or absent) unless ``deliveryStatus`` is `DELIVERED`; leave it out for auto-renewable
        /// subscriptions (Apple computes it).
        public var consumptionPercentage: Int?
        /// The outcome the developer prefers; with `GRANT_PRORATED`, a given ``consumptionPercentage`` must be
        /// between `1` and `99999`.
        public var refundPreference: RefundPreference?

        /// The field names Apple's request has, as ``init(fields:)`` reads them.
        public static let fieldNames = [
            "customerConsented", "deliveryStatus", "sampleContentProvided", "consumptionPercentage", "refundPreference",
        ]

        /// The fields of Apple's retired `ConsumptionRequestV1`, refused by ``init(fields:)`` with a message
        /// saying so.
        static let retiredFieldNames: Set<String> = [
            "accountTenure", "appAccountToken", "consumptionStatus", "lifetimeDollarsPurchased",
            "lifetimeDollarsRefunded", "platform", "playTime", "userStatus",
        ]

        /// A request from typed values (checked by ``validate()`` when sent).
        public init(
            customerConsented: Bool,
            deliveryStatus: DeliveryStatus,
            sampleContentProvided: Bool,
            consumptionPercentage: Int? = nil,
            refundPreference: RefundPreference? = nil
        ) {
            self.customerConsented = customerConsented
            self.deliveryStatus = deliveryStatus
            self.sampleContentProvided = sampleContentProvided
            self.consumptionPercentage = consumptionPercentage
            self.refundPreference = refundPreference
        }

        /// A request from Apple's field names with string values (the command line, cassettes):
        /// `customerConsented` and `sampleContentProvided` (`true` / `false`), `deliveryStatus` (`DELIVERED`,
        /// `UNDELIVERED_QUALITY_ISSUE`, …), and optionally `consumptionPercentage` (an integer, 0–100000) and
        /// `refundPreference` (`DECLINE`, `GRANT_FULL`, `GRANT_PRORATED`).
        /// - Throws: ``StoreAdapterError/Code/invalidProof`` for an unknown or retired field name, a missing
        ///   required field, an unreadable or out-of-range value, or a combination Apple refuses (see
        ///   ``validate()``).
        public init(fields: [String: String]) throws(StoreAdapterError) {
            for name in fields.keys.sorted() where !Self.fieldNames.contains(name) {
                if Self.retiredFieldNames.contains(name) {
                    throw Self.refusal(
                        "\(name) belongs to Apple's retired ConsumptionRequestV1 (now for Advanced Commerce purchases "
                            + "only); the current request has \(Self.fieldNames.joined(separator: ", "))",
                        reason: "retiredConsumptionField"
                    )
                }
                throw Self.refusal(
                    "\(name.prefix(64)) is not a consumption field; Apple's ConsumptionRequest has "
                        + Self.fieldNames.joined(separator: ", "),
                    reason: "unknownConsumptionField"
                )
            }
            var preference: RefundPreference?
            if fields["refundPreference"] != nil {
                preference = try Self.enumerated(fields, "refundPreference", as: RefundPreference.self)
            }
            self.init(
                customerConsented: try Self.boolean(fields, "customerConsented"),
                deliveryStatus: try Self.enumerated(fields, "deliveryStatus", as: DeliveryStatus.self),
                sampleContentProvided: try Self.boolean(fields, "sampleContentProvided"),
                consumptionPercentage: try Self.percentage(fields["consumptionPercentage"]),
                refundPreference: preference
            )
            try validate()
        }

        /// Checks what Apple documents before the request is sent: the customer consented, the percentage is
        /// within 0–100000, it is 0 unless the purchase was delivered, and with `GRANT_PRORATED` it is between 1
        /// and 99999.
        /// - Throws: ``StoreAdapterError/Code/invalidProof`` naming the rule.
        public func validate() throws(StoreAdapterError) {
            guard customerConsented else {
                throw Self.refusal(
                    "customerConsented must be true: Apple refuses consumption information the customer did not "
                        + "consent to share",
                    reason: "customerNotConsented"
                )
            }
            guard let percentage = consumptionPercentage else { return }
            guard (0...100_000).contains(percentage) else {
                throw Self.refusal(
                    "consumptionPercentage is in milliunits of a percent: 0 to 100000",
                    reason: "consumptionPercentageOutOfRange"
                )
            }
            if deliveryStatus != .delivered, percentage != 0 {
                throw Self.refusal(
                    "consumptionPercentage must be 0 when deliveryStatus is not DELIVERED",
                    reason: "undeliveredConsumptionPercentageNonZero"
                )
            }
            if refundPreference == .grantProrated, !(1...99_999).contains(percentage) {
                throw Self.refusal(
                    "with refundPreference GRANT_PRORATED, consumptionPercentage must be between 1 and 99999 "
                        + "(or absent for an auto-renewable subscription)",
                    reason: "consumptionPercentageOutOfRange"
                )
            }
        }

        private static func refusal(_ message: String, reason: String) -> StoreAdapterError {
            StoreAdapterError(.invalidProof, store: .apple, message, storeReason: reason)
        }

        private static func boolean(_ fields: [String: String], _ name: String) throws(StoreAdapterError) -> Bool {
            switch fields[name] {
            case "true": return true
            case "false": return false
            case nil: throw refusal("\(name) is required (true or false)", reason: "missingConsumptionField")
            default: throw refusal("\(name) must be true or false", reason: "invalidConsumptionField")
            }
        }

        private static func enumerated<Value: RawRepresentable<String> & CaseIterable>(
            _ fields: [String: String],
            _ name: String,
            as type: Value.Type
        ) throws(StoreAdapterError) -> Value {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            guard let text = fields[name] else {
                throw refusal("\(name) is required (\(allowed))", reason: "missingConsumptionField")
            }
            guard let value = Value(rawValue: text) else {
                throw refusal("\(name) must be one of \(allowed)", reason: "invalidConsumptionField")
            }
            return value
        }

        private static func percentage(_ text: String?) throws(StoreAdapterError) -> Int? {
            guard let text else { return nil }
            guard !text.isEmpty, text.utf8.count <= 6, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(text), (0...100_000).contains(value)
            else {
                throw refusal(
                    "consumptionPercentage must be a whole number of milliunits from 0 to 100000",
                    reason: "consumptionPercentageOutOfRange"
                )
            }
            return value
        }
    }

    /// The notifications to list with ``AppleStoreAdapter/notificationHistory(_:paginationToken:)``: a time span
    /// and optional filters.
    ///
    /// Apple keeps 180 days of history in production and 30 in the sandbox; the span must start within that and
    /// before it ends (an end in the future is read as now). Filter by `transactionId` or by `notificationType`
    /// (with an optional `notificationSubtype`), not both.
    ///
    /// [NotificationHistoryRequest](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest)
    public struct NotificationHistoryRequest: Sendable, Hashable, Codable {
        /// Where the span starts (sent in milliseconds).
        public var startDate: Date
        /// Where the span ends (sent in milliseconds).
        public var endDate: Date
        /// Only notifications of this type (`DID_RENEW`, `TEST`, …).
        public var notificationType: String?
        /// Only notifications of this subtype (`INITIAL_BUY`, `SUMMARY`, …); needs ``notificationType``.
        public var notificationSubtype: String?
        /// Only the notifications of the customer this transaction (any of theirs) belongs to.
        public var transactionId: String?
        /// Only the notifications that have not reached the server (or are still being retried).
        public var onlyFailures: Bool?

        /// A request for the span, with optional filters.
        public init(
            startDate: Date,
            endDate: Date,
            notificationType: String? = nil,
            notificationSubtype: String? = nil,
            transactionId: String? = nil,
            onlyFailures: Bool? = nil
        ) {
            self.startDate = startDate
            self.endDate = endDate
            self.notificationType = notificationType
            self.notificationSubtype = notificationSubtype
            self.transactionId = transactionId
            self.onlyFailures = onlyFailures
        }

        private enum CodingKeys: String, CodingKey {
            case startDate, endDate, notificationType, notificationSubtype, transactionId, onlyFailures
        }

        /// Reads Apple's body (dates in integer milliseconds).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startDate = Date(
                timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .startDate)) / 1000
            )
            endDate = Date(
                timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .endDate)) / 1000
            )
            notificationType = try container.decodeIfPresent(String.self, forKey: .notificationType)
            notificationSubtype = try container.decodeIfPresent(String.self, forKey: .notificationSubtype)
            transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
            onlyFailures = try container.decodeIfPresent(Bool.self, forKey: .onlyFailures)
        }

        /// Apple's body: dates as integer milliseconds since 1970, absent filters left out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeAppStoreDateIfPresent(startDate, forKey: .startDate)
            try container.encodeAppStoreDateIfPresent(endDate, forKey: .endDate)
            try container.encodeIfPresent(notificationType, forKey: .notificationType)
            try container.encodeIfPresent(notificationSubtype, forKey: .notificationSubtype)
            try container.encodeIfPresent(transactionId, forKey: .transactionId)
            try container.encodeIfPresent(onlyFailures, forKey: .onlyFailures)
        }
    }

    /// One attempt of the App Store to deliver a notification to the server.
    ///
    /// [sendAttemptItem](https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem)
    public struct SendAttempt: Sendable, Hashable, Codable {
        /// When the App Store tried.
        public var attemptDate: Date
        /// What happened: `SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`, `CIRCULAR_REDIRECT`, `NO_RESPONSE`, `SOCKET_ISSUE`,
        /// `UNSUPPORTED_CHARSET`, `INVALID_RESPONSE`, `PREMATURE_CLOSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE` or
        /// `OTHER` (kept as sent, so a value this version does not know survives).
        ///
        /// [sendAttemptResult](https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult)
        public var sendAttemptResult: String

        /// An attempt.
        public init(attemptDate: Date, sendAttemptResult: String) {
            self.attemptDate = attemptDate
            self.sendAttemptResult = sendAttemptResult
        }
    }

    /// One notification of the history: what it was, and the App Store's attempts to deliver it.
    public struct NotificationHistoryEntry: Sendable, Hashable {
        /// The notification's identifier (the same on every retry).
        public var notificationUUID: String
        /// The notification type as sent (`DID_RENEW`, `TEST`, …).
        public var notificationType: String
        /// The subtype as sent, if any.
        public var subtype: String?
        /// When the App Store signed the notification.
        public var signedDate: Date?
        /// The delivery attempts, oldest first (Apple keeps at most six).
        public var sendAttempts: [SendAttempt]
        /// The notification, verified like one the server receives (signature, app, environment, and the
        /// transaction and renewal info it carries).
        public var notification: VerifiedAppStoreNotification

        /// An entry.
        public init(
            notificationUUID: String,
            notificationType: String,
            subtype: String?,
            signedDate: Date?,
            sendAttempts: [SendAttempt],
            notification: VerifiedAppStoreNotification
        ) {
            self.notificationUUID = notificationUUID
            self.notificationType = notificationType
            self.subtype = subtype
            self.signedDate = signedDate
            self.sendAttempts = sendAttempts
            self.notification = notification
        }
    }

    /// A page of the notification history (Apple sends at most 20 entries a page).
    public struct NotificationHistoryPage: Sendable, Hashable {
        /// The notifications on this page.
        public var entries: [NotificationHistoryEntry]
        /// The pagination token of the next page; `nil` on the last page.
        public var nextCursor: String?

        /// A page.
        public init(entries: [NotificationHistoryEntry], nextCursor: String?) {
            self.entries = entries
            self.nextCursor = nextCursor
        }
    }

    /// The test notification the App Store sent, and its delivery attempts so far.
    ///
    /// [CheckTestNotificationResponse](https://developer.apple.com/documentation/appstoreserverapi/checktestnotificationresponse)
    public struct TestNotificationStatus: Sendable, Hashable {
        /// The test notification's identifier.
        public var notificationUUID: String
        /// Its type (`TEST`).
        public var notificationType: String
        /// The delivery attempts, oldest first; empty while none was made.
        public var sendAttempts: [SendAttempt]
        /// The test notification, verified like one the server receives.
        public var notification: VerifiedAppStoreNotification

        /// A status.
        public init(
            notificationUUID: String,
            notificationType: String,
            sendAttempts: [SendAttempt],
            notification: VerifiedAppStoreNotification
        ) {
            self.notificationUUID = notificationUUID
            self.notificationType = notificationType
            self.sendAttempts = sendAttempts
            self.notification = notification
        }
    }

    // MARK: - Apple's answers (wire)

    /// The answer of Get Notification History.
    ///
    /// [NotificationHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse)
    struct NotificationHistoryResponse: Decodable, Sendable {
        /// One notification and its delivery attempts.
        struct Item: Decodable, Sendable {
            var signedPayload: Secret<String>?
            var sendAttempts: [SendAttemptItem]?
        }

        var notificationHistory: [Item]?
        var hasMore: Bool?
        var paginationToken: String?
    }

    /// A delivery attempt as Apple sends it (milliseconds, raw result).
    struct SendAttemptItem: Decodable, Sendable {
        var attemptDate: Int64?
        var sendAttemptResult: String?
    }

    /// The answer of Request a Test Notification.
    ///
    /// [SendTestNotificationResponse](https://developer.apple.com/documentation/appstoreserverapi/sendtestnotificationresponse)
    struct SendTestNotificationResponse: Decodable, Sendable {
        var testNotificationToken: String?
    }

    /// The answer of Get Test Notification Status.
    struct CheckTestNotificationResponse: Decodable, Sendable {
        var signedPayload: Secret<String>?
        var sendAttempts: [SendAttemptItem]?
    }

    /// The body of Set App Account Token.
    ///
    /// [UpdateAppAccountTokenRequest](https://developer.apple.com/documentation/appstoreserverapi/updateappaccounttokenrequest)
    struct UpdateAppAccountTokenRequest: Encodable, Sendable {
        var appAccountToken: String
    }
}

public import Foundation
import HTTPTypes
import OpenCatCore

// The App Store Server API's support calls that return no purchase: Send Consumption Information, Get Notification
// History, Request a Test Notification, Get Test Notification Status and Set App Account Token.
//
// Each call goes to production first and to the sandbox when production answers that it does not know the thing asked
// about (unless `Configuration/environment` restricts to one), like `lookUpTransaction(id:)`. Every call is safe to
// repeat (a PUT, a read, or a test notification), so the shared client retries it on 429 and 5xx.
extension AppleStoreAdapter {
    /// Sends the consumption information Apple asked for with a `CONSUMPTION_REQUEST` notification
    /// (`PUT /inApps/v2/transactions/consumption/{transactionId}`, Apple's current Send Consumption Information;
    /// answered 202 Accepted).
    /// - Parameters:
    ///   - transactionId: the transaction of the notification (digits).
    ///   - request: the information; checked with ``AppStore/ConsumptionRequest/validate()`` before it is sent
    ///     (the customer must have consented).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (a bad transaction id, a refused request, or Apple's 400
    ///   answers with their code in `storeReason`), `notFound` (4040010 in every environment asked),
    ///   `unsupported` (4000185, a Family Sharing transaction), `unauthorized`, `rateLimited`, `storeUnavailable`,
    ///   `timeout`, `network`.
    public func sendConsumptionInformation(transactionId: String, _ request: AppStore.ConsumptionRequest)
        async throws
    {
        let id = try Self.checkedTransactionId(transactionId)
        try request.validate()
        _ = try await supportCall(
            .put,
            "/inApps/v2/transactions/consumption/" + id,
            body: request,
            fallbackOn: [AppStoreServerAPI.ErrorCode.transactionIdNotFound]
        )
    }

    /// A page of the notifications the App Store sent, or tried to send, to the server
    /// (`POST /inApps/v1/notifications/history?paginationToken=…`). Each notification is verified like one the
    /// server receives (``verifyNotification(signedPayload:)``).
    /// - Parameters:
    ///   - query: the span and filters; refused before sending when the span starts after it ends, starts earlier
    ///     than Apple keeps history (180 days, 30 when the adapter is configured for the sandbox), or filters by
    ///     both a transaction and a type.
    ///   - paginationToken: the previous page's ``AppStore/NotificationHistoryPage/nextCursor``; `nil` for the first
    ///     page.
    /// - Returns: the page; its `nextCursor` is `nil` on the last page.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (a refused request, a bad or expired pagination token, or a
    ///   notification that fails verification), `wrongApplication`, `notFound` (the transaction filtered by is
    ///   unknown), `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`, `malformedResponse`.
    public func notificationHistory(
        _ query: AppStore.NotificationHistoryRequest,
        paginationToken: String?
    ) async throws -> AppStore.NotificationHistoryPage {
        try checkHistoryRequest(query)
        var pairs: [(String, String)] = []
        var fallback: Set<Int64> = []
        if let token = paginationToken, !token.isEmpty {
            guard token.utf8.count <= 1024, token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 })
            else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .apple,
                    "the pagination token is not one the App Store issues",
                    storeReason: "invalidPaginationToken"
                )
            }
            pairs.append(("paginationToken", token))
            // A token is only valid in the environment that issued it.
            fallback.insert(AppStoreServerAPI.ErrorCode.invalidPaginationToken)
        }
        if query.transactionId != nil { fallback.insert(AppStoreServerAPI.ErrorCode.transactionIdNotFound) }
        let response = try await supportCall(
            .post,
            "/inApps/v1/notifications/history",
            query: pairs,
            body: query,
            fallbackOn: fallback
        )
        let answer = try http.decode(AppStore.NotificationHistoryResponse.self, from: response.body)
        let items = answer.notificationHistory ?? []
        guard items.count <= Self.maximumHistoryEntries else {
            throw StoreAdapterError(.malformedResponse, store: .apple, "too many notification history entries")
        }
        var entries: [AppStore.NotificationHistoryEntry] = []
        for item in items {
            guard let signed = item.signedPayload, !signed.revealed.isEmpty else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .apple,
                    "a notification history entry has no signedPayload"
                )
            }
            let notification = try await verifyNotification(signedPayload: signed)
            let (uuid, type) = try Self.identity(of: notification)
            entries.append(
                AppStore.NotificationHistoryEntry(
                    notificationUUID: uuid,
                    notificationType: type,
                    subtype: notification.payload.rawSubtype,
                    signedDate: notification.payload.signedDate,
                    sendAttempts: try Self.sendAttempts(item.sendAttempts),
                    notification: notification
                )
            )
        }
        var next: String?
        if answer.hasMore == true {
            guard let token = answer.paginationToken, !token.isEmpty else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .apple,
                    "the App Store said more notifications follow but sent no pagination token"
                )
            }
            next = token
        }
        return AppStore.NotificationHistoryPage(entries: entries, nextCursor: next)
    }

    /// Asks the App Store to send a `TEST` notification to the server's notification URL
    /// (`POST /inApps/v1/notifications/test`).
    /// - Returns: the test notification token, for ``testNotificationStatus(token:)``.
    /// - Throws: ``StoreAdapterError``: `notFound` (4040007, no notification URL is set for the app in any
    ///   environment asked), `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`,
    ///   `malformedResponse`.
    public func requestTestNotification() async throws -> String {
        let response = try await supportCall(
            .post,
            "/inApps/v1/notifications/test",
            fallbackOn: [AppStoreServerAPI.ErrorCode.serverNotificationUrlNotFound]
        )
        let answer = try http.decode(AppStore.SendTestNotificationResponse.self, from: response.body)
        guard let token = answer.testNotificationToken, Self.isTestNotificationToken(token) else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "the App Store answered without a usable testNotificationToken",
                httpStatus: response.status.code
            )
        }
        return token
    }

    /// The test notification a token names, verified, and the App Store's attempts to deliver it
    /// (`GET /inApps/v1/notifications/test/{testNotificationToken}`).
    /// - Parameter token: the token ``requestTestNotification()`` returned.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (a malformed token, 4000020, or a notification that fails
    ///   verification), `notFound` (4040008: the token expired or is unknown), `wrongApplication`,
    ///   `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`, `malformedResponse`.
    public func testNotificationStatus(token: String) async throws -> AppStore.TestNotificationStatus {
        guard Self.isTestNotificationToken(token) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the test notification token is not one the App Store issues",
                storeReason: "invalidTestNotificationToken"
            )
        }
        let response = try await supportCall(
            .get,
            "/inApps/v1/notifications/test/" + token,
            fallbackOn: [AppStoreServerAPI.ErrorCode.testNotificationNotFound]
        )
        let answer = try http.decode(AppStore.CheckTestNotificationResponse.self, from: response.body)
        guard let signed = answer.signedPayload, !signed.revealed.isEmpty else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "the test notification status has no signedPayload",
                httpStatus: response.status.code
            )
        }
        let notification = try await verifyNotification(signedPayload: signed)
        let (uuid, type) = try Self.identity(of: notification)
        return AppStore.TestNotificationStatus(
            notificationUUID: uuid,
            notificationType: type,
            sendAttempts: try Self.sendAttempts(answer.sendAttempts),
            notification: notification
        )
    }

    /// Sets, or replaces, the app account token of a purchase (for one made outside the app, such as an offer
    /// code redeemed in the App Store) (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`,
    /// answered 200).
    /// - Parameters:
    ///   - originalTransactionId: the purchase's original transaction id (digits).
    ///   - appAccountToken: the customer's UUID in the app's own system (sent lowercased).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (a bad id, 4000006, 4000183, or 4000187: not an original
    ///   transaction id), `unsupported` (4000185: a Family Sharing transaction), `notFound` (4040005 in every
    ///   environment asked), `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`.
    public func setAppAccountToken(originalTransactionId: String, appAccountToken: UUID) async throws {
        let id = try Self.checkedTransactionId(originalTransactionId)
        _ = try await supportCall(
            .put,
            "/inApps/v1/transactions/" + id + "/appAccountToken",
            body: AppStore.UpdateAppAccountTokenRequest(appAccountToken: appAccountToken.uuidString.lowercased()),
            fallbackOn: [
                AppStoreServerAPI.ErrorCode.originalTransactionIdNotFound,
                AppStoreServerAPI.ErrorCode.transactionIdNotFound,
            ]
        )
    }

    // MARK: - Shared

    /// At most this many history entries are read from one answer (Apple sends 20).
    private static let maximumHistoryEntries = 1_000
    /// At most this many delivery attempts are read per notification (Apple keeps six).
    private static let maximumSendAttempts = 100

    /// One support call: production first, then the sandbox when production answers one of `codes`, unless the
    /// configuration restricts to one environment. Any 2xx answer is success.
    private func supportCall(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable & Sendable)? = nil,
        fallbackOn codes: Set<Int64>
    ) async throws -> HTTPTransportResponse {
        try await askingEachEnvironment(fallbackOn: codes) { api, _, baseURL in
            let response = try await api.call(
                method,
                path,
                query: query,
                body: body,
                idempotent: true,
                baseURL: baseURL
            )
            guard (200...299).contains(response.status.code) else { throw Self.supportError(for: response, api: api) }
            return response
        }
    }

    /// Apple's answers to the support calls: their own codes first, then the adapter's shared mapping.
    private static func supportError(for response: HTTPTransportResponse, api: AppStoreServerAPI)
        -> StoreAdapterError
    {
        guard let payload = try? JSONDecoder().decode(AppStore.ErrorPayload.self, from: response.body),
            let code = payload.errorCode, let known = supportErrors[code]
        else { return api.error(for: response) }
        return StoreAdapterError(
            known.code,
            store: .apple,
            known.message,
            storeReason: String(code),
            httpStatus: response.status.code
        )
    }

    /// Apple's documented errors of these endpoints: the shared code and what it means.
    private static let supportErrors: [Int64: (code: StoreAdapterError.Code, message: String)] = [
        AppStoreServerAPI.ErrorCode.startDateTooFarInPast: (
            .invalidProof,
            "the history starts earlier than the App Store keeps notifications (180 days; 30 in the sandbox)"
        ),
        AppStoreServerAPI.ErrorCode.startDateAfterEndDate: (
            .invalidProof, "the history's start date is not before its end date"
        ),
        AppStoreServerAPI.ErrorCode.invalidPaginationToken: (
            .invalidProof, "the App Store refused the pagination token"
        ),
        AppStoreServerAPI.ErrorCode.invalidStartDate: (.invalidProof, "the App Store refused the start date"),
        AppStoreServerAPI.ErrorCode.invalidEndDate: (.invalidProof, "the App Store refused the end date"),
        AppStoreServerAPI.ErrorCode.paginationTokenExpired: (
            .invalidProof, "the pagination token expired; start again from the first page"
        ),
        AppStoreServerAPI.ErrorCode.invalidNotificationType: (
            .invalidProof, "the App Store refused the notification type or subtype"
        ),
        AppStoreServerAPI.ErrorCode.multipleFiltersSupplied: (
            .invalidProof, "filter the history by a transaction or by a notification type, not both"
        ),
        AppStoreServerAPI.ErrorCode.invalidTestNotificationToken: (
            .invalidProof, "the App Store refused the test notification token"
        ),
        AppStoreServerAPI.ErrorCode.invalidCustomerConsented: (
            .invalidProof, "the App Store refused the consumption information: the customer did not consent"
        ),
        AppStoreServerAPI.ErrorCode.invalidDeliveryStatus: (
            .invalidProof, "the App Store refused the consumption information's deliveryStatus"
        ),
        AppStoreServerAPI.ErrorCode.invalidSampleContentProvided: (
            .invalidProof, "the App Store refused the consumption information's sampleContentProvided"
        ),
        AppStoreServerAPI.ErrorCode.appTransactionIdNotSupported: (
            .invalidProof, "the App Store does not take an app transaction id here"
        ),
        AppStoreServerAPI.ErrorCode.invalidAppAccountTokenUUID: (
            .invalidProof, "the App Store refused the app account token: not a valid UUID"
        ),
        AppStoreServerAPI.ErrorCode.familyTransactionNotSupported: (
            .unsupported, "the App Store does not offer this for a purchase obtained through Family Sharing"
        ),
        AppStoreServerAPI.ErrorCode.transactionIdNotOriginalTransactionId: (
            .invalidProof, "the App Store expects the purchase's original transaction id"
        ),
        AppStoreServerAPI.ErrorCode.accountNotFound: (.notFound, "the App Store does not know the customer's account"),
        // Apple lists the two "retryable" not-found codes among the errors to retry: not final, so not notFound.
        AppStoreServerAPI.ErrorCode.accountNotFoundRetryable: (
            .storeUnavailable, "the App Store does not know the customer's account yet; try again later"
        ),
        AppStoreServerAPI.ErrorCode.originalTransactionIdNotFound: (
            .notFound, "the App Store does not know this original transaction"
        ),
        AppStoreServerAPI.ErrorCode.originalTransactionIdNotFoundRetryable: (
            .storeUnavailable, "the App Store does not know this original transaction yet; try again later"
        ),
        AppStoreServerAPI.ErrorCode.serverNotificationUrlNotFound: (
            .notFound, "no App Store Server Notifications URL is set for the app in this environment"
        ),
        AppStoreServerAPI.ErrorCode.testNotificationNotFound: (
            .notFound, "the test notification expired or its status is not available"
        ),
    ]

    /// Whether a test notification token is safe in a path: letters, digits, `-`, `_` and `.`, at most 200.
    private static func isTestNotificationToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 200 && token != "." && token != ".."
            && token.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }

    /// Checks a history request against what Apple documents, before it is sent.
    private func checkHistoryRequest(_ query: AppStore.NotificationHistoryRequest) throws(StoreAdapterError) {
        func refuse(_ message: String, _ reason: String) -> StoreAdapterError {
            StoreAdapterError(.invalidProof, store: .apple, message, storeReason: reason)
        }
        guard query.startDate < query.endDate else {
            throw refuse("the history's start date must be before its end date", "startDateAfterEndDate")
        }
        let days = configuration.environment == .sandbox ? 30 : 180
        let earliest = configuration.httpClient.clock.currentDate.addingTimeInterval(-Double(days) * 86_400)
        guard query.startDate >= earliest else {
            throw refuse(
                "the App Store keeps \(days) days of notification history: start the span after "
                    + earliest.formatted(.iso8601),
                "startDateTooFarInPast"
            )
        }
        if query.transactionId != nil, query.notificationType != nil {
            throw refuse(
                "filter the history by a transaction or by a notification type, not both",
                "multipleFiltersSupplied"
            )
        }
        if query.notificationSubtype != nil, query.notificationType == nil {
            throw refuse("a notification subtype needs its notification type", "invalidNotificationType")
        }
        for value in [query.notificationType, query.notificationSubtype].compactMap({ $0 }) {
            guard !value.isEmpty, value.utf8.count <= 64,
                value.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
            else {
                throw refuse(
                    "a notification type or subtype is written like DID_RENEW or INITIAL_BUY",
                    "invalidNotificationType"
                )
            }
        }
        if let id = query.transactionId { _ = try Self.checkedTransactionId(id) }
    }

    /// A verified notification's identifier and type, which every notification carries.
    private static func identity(of notification: VerifiedAppStoreNotification) throws -> (String, String) {
        guard let uuid = notification.payload.notificationUUID, !uuid.isEmpty,
            let type = notification.payload.rawNotificationType, !type.isEmpty
        else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "a notification has no notificationUUID or notificationType"
            )
        }
        return (uuid, type)
    }

    /// Apple's delivery attempts, each with its date and result.
    private static func sendAttempts(_ items: [AppStore.SendAttemptItem]?) throws -> [AppStore.SendAttempt] {
        let items = items ?? []
        guard items.count <= maximumSendAttempts else {
            throw StoreAdapterError(.malformedResponse, store: .apple, "too many notification send attempts")
        }
        return try items.map { item in
            guard let date = AppleMilliseconds.date(item.attemptDate), let result = item.sendAttemptResult,
                !result.isEmpty
            else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .apple,
                    "a notification send attempt has no attemptDate or sendAttemptResult"
                )
            }
            return AppStore.SendAttempt(attemptDate: date, sendAttemptResult: result)
        }
    }
}

extension AppStoreServerAPI.ErrorCode {
    // Apple's codes of the support endpoints (https://developer.apple.com/documentation/appstoreserverapi/error-codes).
    fileprivate static let startDateTooFarInPast: Int64 = 4_000_012
    fileprivate static let startDateAfterEndDate: Int64 = 4_000_013
    fileprivate static let invalidPaginationToken: Int64 = 4_000_014
    fileprivate static let invalidStartDate: Int64 = 4_000_015
    fileprivate static let invalidEndDate: Int64 = 4_000_016
    fileprivate static let paginationTokenExpired: Int64 = 4_000_017
    fileprivate static let invalidNotificationType: Int64 = 4_000_018
    fileprivate static let multipleFiltersSupplied: Int64 = 4_000_019
    fileprivate static let invalidTestNotificationToken: Int64 = 4_000_020
    fileprivate static let invalidCustomerConsented: Int64 = 4_000_035
    fileprivate static let invalidDeliveryStatus: Int64 = 4_000_036
    fileprivate static let invalidSampleContentProvided: Int64 = 4_000_041
    fileprivate static let appTransactionIdNotSupported: Int64 = 4_000_048
    fileprivate static let invalidAppAccountTokenUUID: Int64 = 4_000_183
    fileprivate static let familyTransactionNotSupported: Int64 = 4_000_185
    fileprivate static let transactionIdNotOriginalTransactionId: Int64 = 4_000_187
    fileprivate static let accountNotFound: Int64 = 4_040_001
    fileprivate static let accountNotFoundRetryable: Int64 = 4_040_002
    fileprivate static let originalTransactionIdNotFound: Int64 = 4_040_005
    fileprivate static let originalTransactionIdNotFoundRetryable: Int64 = 4_040_006
    fileprivate static let serverNotificationUrlNotFound: Int64 = 4_040_007
    fileprivate static let testNotificationNotFound: Int64 = 4_040_008
}

public import Foundation
public import OpenCatCore

// App Store Server Notifications V2: the signed payload verified, the app and environment checked, and the
// transaction and renewal info it nests verified and normalized.
extension AppleStoreAdapter {
    /// Verifies an App Store Server Notification V2 and the signed transaction and renewal info it carries.
    /// - Parameter signedPayload: the `signedPayload` of the POST body (see ``AppStore/ResponseBodyV2``).
    /// - Returns: the decoded notification, with the normalized purchase when it carries a transaction.
    /// - Throws: ``StoreAdapterError`` `invalidProof` (any JWS fails verification) or `wrongApplication`
    ///   (another bundle id or `appAppleId`, or an environment other than the configured one).
    public func verifyNotification(signedPayload: Secret<String>) async throws -> VerifiedAppStoreNotification {
        try await notification(try await verifier.verify(signedPayload, as: ResponseBodyV2DecodedPayload.self))
    }

    /// Checks a verified notification payload and verifies the signed data it nests.
    func notification(_ payload: ResponseBodyV2DecodedPayload) async throws -> VerifiedAppStoreNotification {
        let bundleId: String?
        let appAppleId: Int64?
        let rawEnvironment: String?
        if let data = payload.data {
            (bundleId, appAppleId, rawEnvironment) = (data.bundleId, data.appAppleId, data.rawEnvironment)
        } else if let summary = payload.summary {
            (bundleId, appAppleId, rawEnvironment) = (summary.bundleId, summary.appAppleId, summary.rawEnvironment)
        } else if let token = payload.externalPurchaseToken {
            (bundleId, appAppleId, rawEnvironment) = (token.bundleId, token.appAppleId, token.environment.rawValue)
        } else {
            (bundleId, appAppleId, rawEnvironment) = (nil, nil, nil)
        }
        let environment = ApplePurchaseMapping.environment(rawEnvironment)
        try checkApplication(bundleId: bundleId, environment: environment, what: "notification")
        if let expected = configuration.appAppleId, environment == .production, appAppleId != expected {
            throw StoreAdapterError(
                .wrongApplication,
                store: .apple,
                "the notification belongs to another App Store app",
                storeReason: "appAppleIdMismatch"
            )
        }
        let transaction = try await payload.data?.signedTransactionInfo.asyncMap { try await verifiedTransaction($0) }
        let renewalInfo = try await payload.data?.signedRenewalInfo.asyncMap {
            try await verifiedRenewalInfo($0, for: transaction)
        }
        var normalized = try transaction.map {
            try purchase(transaction: $0, renewalInfo: renewalInfo, expectedProductId: nil)
        }
        if let status = payload.data?.rawStatus { normalized?.storeStatus = String(status) }
        return VerifiedAppStoreNotification(
            payload: payload,
            transaction: transaction,
            renewalInfo: renewalInfo,
            purchase: normalized,
            environment: environment
        )
    }

    /// Verifies an App Store Server Notification V2 from the raw POST body (`{"signedPayload": "…"}`).
    /// - Throws: ``StoreAdapterError`` `invalidProof` if the body is not such JSON, else as
    ///   ``verifyNotification(signedPayload:)``.
    public func verifyNotification(body: Data) async throws -> VerifiedAppStoreNotification {
        // The body is `{"signedPayload": "…"}`: the JWS limit plus room for the envelope.
        guard body.count <= configuration.limits.maximumNotificationBytes + 1024 else {
            throw AppleJWSCheck.tooLarge.error("the notification body is larger than the notification limit")
        }
        guard let decoded = try? JSONDecoder().decode(AppStore.ResponseBodyV2.self, from: body) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the notification body has no signedPayload",
                storeReason: "malformedJWS"
            )
        }
        return try await verifyNotification(signedPayload: decoded.signedPayload)
    }
}

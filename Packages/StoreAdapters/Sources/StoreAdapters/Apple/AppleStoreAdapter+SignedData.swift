import Foundation
public import OpenCatCore

/// Any payload the App Store signs, verified and checked by ``AppleStoreAdapter/verifySignedData(_:)``.
public enum VerifiedAppleSignedData: Sendable, Hashable {
    /// A signed transaction (`JWSTransaction`), normalized.
    case transaction(VerifiedPurchase)
    /// Signed renewal info (`JWSRenewalInfo`). It names no bundle id, so only chain, signature and environment are
    /// checked.
    case renewalInfo(JWSRenewalInfoDecodedPayload)
    /// An App Store Server Notification V2, with the signed transaction and renewal info it nests.
    case notification(VerifiedAppStoreNotification)

    /// The kind's name: `transaction`, `renewalInfo` or `notification`.
    public var kind: String {
        switch self {
        case .transaction: "transaction"
        case .renewalInfo: "renewalInfo"
        case .notification: "notification"
        }
    }
}

extension AppleStoreAdapter {
    /// Verifies whatever App Store signed data it is given and says what it was: a signed transaction, signed
    /// renewal info, or a notification — as a compact JWS (`signedPayload` included), or as the whole notification
    /// POST body `{"signedPayload": "…"}`.
    ///
    /// The chain and ES256 signature are verified before the payload is looked at; its kind is then told from its
    /// fields (`notificationType`; `transactionId`; renewal fields without a transaction id) and the same checks
    /// run as for the dedicated calls (bundle id, environment, backdating, nested signed data).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (unverifiable, or a payload of no known kind:
    ///   `unknownSignedData`), `wrongApplication`, and what the dedicated calls throw.
    public func verifySignedData(_ signedData: Secret<String>) async throws -> VerifiedAppleSignedData {
        let jws = try Self.compactJWS(in: signedData.revealed, limit: configuration.limits.maximumNotificationBytes)
        let payload = try await verifier.verifyPayload(jws)
        let fields = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] ?? [:]
        do {
            if fields["notificationType"] != nil {
                let notification = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: payload)
                return .notification(try await self.notification(notification))
            }
            if fields["transactionId"] != nil {
                let transaction = try checkedTransaction(
                    try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: payload)
                )
                return .transaction(try purchase(transaction: transaction, renewalInfo: nil, expectedProductId: nil))
            }
            if fields["autoRenewStatus"] != nil || fields["autoRenewProductId"] != nil {
                let renewalInfo = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: payload)
                return .renewalInfo(try checkedRenewalInfo(renewalInfo, for: nil))
            }
        } catch let error as DecodingError {
            throw AppleJWSCheck.malformedJWS.error(
                "the signed payload is not a readable App Store payload: \(StoreHTTP.summary(of: error))"
            )
        }
        throw StoreAdapterError(
            .invalidProof,
            store: .apple,
            "the signed payload is neither a transaction, renewal info nor a notification",
            storeReason: "unknownSignedData"
        )
    }

    /// The compact JWS in `text`: the text itself, or the `signedPayload` of a notification body.
    private static func compactJWS(in text: String, limit: Int) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.first == "{" else { return trimmed }
        guard trimmed.utf8.count <= limit + 1024 else {
            throw AppleJWSCheck.tooLarge.error("the notification body is larger than the notification limit")
        }
        guard let body = try? JSONDecoder().decode(AppStore.ResponseBodyV2.self, from: Data(trimmed.utf8)) else {
            throw AppleJWSCheck.malformedJWS.error("the notification body has no signedPayload")
        }
        return body.signedPayload.revealed
    }
}

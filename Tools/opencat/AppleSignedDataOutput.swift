import Foundation
import StoreAdapters

/// What `opencat verify apple --jws` prints: a transaction as the normalized purchase (unchanged since 0.1), renewal
/// info and notifications as objects with a `kind`.
enum AppleSignedDataOutput: Encodable {
    case transaction(VerifiedPurchase)
    case renewalInfo(RenewalInfo)
    case notification(Notification)

    init(_ verified: VerifiedAppleSignedData) {
        switch verified {
        case .transaction(let purchase): self = .transaction(purchase)
        case .renewalInfo(let info): self = .renewalInfo(RenewalInfo(info))
        case .notification(let notification): self = .notification(Notification(notification))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .transaction(let purchase): try purchase.encode(to: encoder)
        case .renewalInfo(let info): try info.encode(to: encoder)
        case .notification(let notification): try notification.encode(to: encoder)
        }
    }

    /// A verified `JWSRenewalInfo`.
    struct RenewalInfo: Encodable {
        var kind = "renewalInfo"
        var originalTransactionId: String?
        var productId: String?
        var autoRenewProductId: String?
        var willRenew: Bool?
        var isInBillingRetryPeriod: Bool?
        var gracePeriodExpiresDate: Date?
        var renewalDate: Date?
        var environment: String?
        var signedDate: Date?

        init(_ info: JWSRenewalInfoDecodedPayload) {
            originalTransactionId = info.originalTransactionId
            productId = info.productId
            autoRenewProductId = info.autoRenewProductId
            willRenew = info.autoRenewStatus.map { $0 == .on }
            isInBillingRetryPeriod = info.isInBillingRetryPeriod
            gracePeriodExpiresDate = info.gracePeriodExpiresDate
            renewalDate = info.renewalDate
            environment = info.rawEnvironment
            signedDate = info.signedDate
        }
    }

    /// A verified App Store Server Notification V2.
    struct Notification: Encodable {
        var kind = "notification"
        var notificationType: String?
        var subtype: String?
        var notificationUUID: String?
        var bundleId: String?
        var environment: String?
        var signedDate: Date?
        var purchase: VerifiedPurchase?
        var renewalInfo: RenewalInfo?

        init(_ notification: VerifiedAppStoreNotification) {
            let payload = notification.payload
            notificationType = payload.rawNotificationType
            subtype = payload.rawSubtype
            notificationUUID = payload.notificationUUID
            bundleId = payload.data?.bundleId ?? payload.summary?.bundleId ?? payload.externalPurchaseToken?.bundleId
            environment =
                payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment
                ?? payload.externalPurchaseToken?.environment.rawValue
            signedDate = payload.signedDate
            purchase = notification.purchase
            renewalInfo = notification.renewalInfo.map(RenewalInfo.init)
        }
    }
}

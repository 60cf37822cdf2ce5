import Foundation
import OpenCatCore

/// Turns verified App Store payloads into the normalized ``VerifiedPurchase``.
///
/// State: `revocationDate` → refunded; otherwise no `expiresDate` or a future one → active; an expired
/// subscription is gracePeriod while the renewal info's `gracePeriodExpiresDate` is ahead, billingRetry while
/// `isInBillingRetryPeriod`, else expired. Environment: `Production` → production, anything else (`Sandbox`,
/// `Xcode`, `LocalTesting`, unknown) → sandbox.
enum ApplePurchaseMapping {
    /// The normalized environment of a raw App Store environment value.
    static func environment(_ raw: String?) -> VerifiedPurchase.Environment {
        raw == AppStore.Environment.production.rawValue ? .production : .sandbox
    }

    /// The normalized purchase.
    /// - Parameter now: the reference time for expiry and grace period.
    /// - Throws: `invalidProof` if the payload lacks the transaction id, product id or every date.
    static func purchase(
        transaction: JWSTransactionDecodedPayload,
        renewalInfo: JWSRenewalInfoDecodedPayload?,
        now: Date
    ) throws -> VerifiedPurchase {
        guard let transactionId = transaction.transactionId, !transactionId.isEmpty else {
            throw missing("transactionId")
        }
        guard let productId = transaction.productId, !productId.isEmpty else { throw missing("productId") }
        guard let purchaseDate = transaction.purchaseDate ?? transaction.originalPurchaseDate ?? transaction.signedDate
        else {
            throw missing("purchaseDate")
        }
        let price = transaction.price.flatMap { price in
            transaction.currency.map { Money(minorUnits: price, currency: $0, exponent: 3) }
        }
        return VerifiedPurchase(
            store: .apple,
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId,
            productId: productId,
            purchaser: transaction.appAccountToken.flatMap { $0.isEmpty ? nil : $0.lowercased() },
            purchaseDate: purchaseDate,
            expirationDate: transaction.expiresDate,
            gracePeriodExpirationDate: renewalInfo?.gracePeriodExpiresDate,
            state: state(transaction: transaction, renewalInfo: renewalInfo, now: now),
            environment: environment(transaction.rawEnvironment),
            quantity: Int(transaction.quantity ?? 1),
            price: price,
            refundedAmount: refundedAmount(transaction: transaction, price: price),
            willRenew: transaction.revocationDate == nil && transaction.isUpgraded != true
                && renewalInfo?.autoRenewStatus == .on,
            finalizedByAdapter: false,
            storeStatus: nil,
            verifiedAt: transaction.signedDate
        )
    }

    static func state(
        transaction: JWSTransactionDecodedPayload,
        renewalInfo: JWSRenewalInfoDecodedPayload?,
        now: Date
    ) -> VerifiedPurchase.State {
        if transaction.revocationDate != nil { return .refunded }
        // Upgraded to a higher-level subscription of the group: that transaction grants access now, this one not.
        if transaction.isUpgraded == true { return .expired }
        guard let expiresDate = transaction.expiresDate, expiresDate <= now else { return .active }
        if let graceEnd = renewalInfo?.gracePeriodExpiresDate, now < graceEnd { return .gracePeriod }
        if renewalInfo?.isInBillingRetryPeriod == true { return .billingRetry }
        return .expired
    }

    /// How long before its `purchaseDate` a transaction may be signed: Apple bills a renewal up to a day before
    /// the new period starts, and the renewal's `purchaseDate` is the period's start.
    static let renewalBillingLead: TimeInterval = 86_400

    /// Refuses signed data dated before the purchase it describes. Chains are validated at `signedDate`, so a
    /// holder of an expired (or revoked) signing key could otherwise sign new purchases with an old date. The
    /// `originalPurchaseDate` must precede `signedDate`; the `purchaseDate` may follow it by at most
    /// ``renewalBillingLead``.
    static func checkSignedAfterPurchase(_ transaction: JWSTransactionDecodedPayload) throws {
        guard let signedDate = transaction.signedDate else { return }
        let tooEarly =
            transaction.originalPurchaseDate.map { signedDate < $0 } == true
            || transaction.purchaseDate.map { signedDate < $0.addingTimeInterval(-renewalBillingLead) } == true
        if tooEarly {
            throw AppleJWSCheck.signedBeforePurchase.error("the transaction is signed before it was purchased")
        }
    }

    /// The refunded amount when Apple says how much: all of it (`REFUND_FULL`), or `revocationPercentage`
    /// milli-percent of it (`REFUND_PRORATED`).
    static func refundedAmount(transaction: JWSTransactionDecodedPayload, price: Money?) -> Money? {
        guard transaction.revocationDate != nil, let price else { return nil }
        switch transaction.revocationType {
        case .refundFull:
            return price
        case .refundProrated:
            guard let share = transaction.revocationPercentage else { return nil }
            return Money(amount: price.amount * Decimal(share) / Decimal(100_000), currency: price.currency)
        case .familyRevoke, nil:
            return nil
        }
    }

    private static func missing(_ field: String) -> StoreAdapterError {
        StoreAdapterError(
            .invalidProof,
            store: .apple,
            "the signed transaction has no \(field)",
            storeReason: "missing:\(field)"
        )
    }
}

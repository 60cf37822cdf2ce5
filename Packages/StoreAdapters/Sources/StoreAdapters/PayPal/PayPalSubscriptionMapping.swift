public import Foundation
import OpenCatCore

// The pure mapping of a PayPal subscription to the normalized ``VerifiedPurchase`` (no HTTP).
extension PayPalAdapter {
    /// Maps a subscription:
    ///
    /// | PayPal status | state | until |
    /// |---|---|---|
    /// | `APPROVAL_PENDING`, `APPROVED` | pending | – |
    /// | `ACTIVE` | active (`ACTIVE/trial` in a trial tenure) | `billing_info.next_billing_time` |
    /// | `ACTIVE` with `failed_payments_count` > 0 | gracePeriod: PayPal keeps the subscription active while it retries, up to the plan's failure threshold | `next_billing_time` |
    /// | `SUSPENDED` after failed payments | billingRetry (past the plan's failure threshold) | – |
    /// | `SUSPENDED` without a failed payment | expired (`SUSPENDED/paused`: the merchant paused it) | – |
    /// | `CANCELLED`, `EXPIRED` | expired | `status_update_time` |
    /// | other | throws `malformedResponse` | – |
    ///
    /// The product is the plan id, or the product ``Configuration/subscriptionPlans`` maps it to; the purchaser is
    /// `custom_id`; the price is the last payment's exact amount.
    public static func purchase(
        from subscription: PayPal.Subscription,
        expectedProductId: String?,
        configuration: Configuration,
        verifiedAt: Date? = nil
    ) throws -> VerifiedPurchase {
        let productId = try Self.productId(of: subscription, expected: expectedProductId, configuration: configuration)
        let billing = subscription.billingInfo
        // The last cycle of a fixed plan has no next billing time: its final payment time ends it.
        let nextBilling = (billing?.nextBillingTime ?? billing?.finalPaymentTime).flatMap(PayPalDate.parse)
        var expiration = nextBilling
        var grace: Date?
        var storeStatus = subscription.status.rawValue
        let state: VerifiedPurchase.State
        switch subscription.status {
        case .approvalPending, .approved:
            state = .pending
            expiration = nil
        case .active where (billing?.failedPaymentsCount ?? 0) > 0:
            state = .gracePeriod
            grace = nextBilling
            storeStatus += "/failed_payments=\(billing?.failedPaymentsCount ?? 0)"
        case .active:
            state = .active
            if subscription.isInTrial { storeStatus += "/trial" }
        case .suspended where (billing?.failedPaymentsCount ?? 0) == 0:
            // Suspended with no failed payment: the merchant paused it; no access until it is re-activated.
            state = .expired
            expiration = subscription.statusUpdateTime.flatMap(PayPalDate.parse)
            storeStatus += "/paused"
        case .suspended:
            state = .billingRetry
        case .cancelled, .expired:
            state = .expired
            expiration = subscription.statusUpdateTime.flatMap(PayPalDate.parse) ?? nextBilling
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "unknown subscription status",
                storeReason: subscription.status.rawValue
            )
        }
        if state == .active || state == .gracePeriod, expiration == nil {
            // Never an open-ended grant: an active subscription must say until when.
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "an active subscription without a next billing time",
                storeReason: subscription.status.rawValue
            )
        }
        let start = (subscription.startTime ?? subscription.createTime).flatMap(PayPalDate.parse)
        return VerifiedPurchase(
            store: .paypal,
            transactionId: subscription.id,
            originalTransactionId: subscription.id,
            productId: productId,
            purchaser: subscription.customId,
            purchaseDate: start ?? Date(timeIntervalSince1970: 0),
            expirationDate: expiration,
            gracePeriodExpirationDate: grace,
            state: state,
            environment: configuration.environment == .live ? .production : .sandbox,
            quantity: subscription.quantity.flatMap { Int($0) } ?? 1,
            price: billing?.lastPayment?.amount?.exact,
            willRenew: (state == .active || state == .gracePeriod) && nextBilling != nil,
            storeStatus: storeStatus,
            verifiedAt: verifiedAt
        )
    }

    /// The subscription's product: its plan, or the product `subscriptionPlans` maps it to (a plan not listed there,
    /// when plans are configured, is another app's).
    static func productId(
        of subscription: PayPal.Subscription,
        expected expectedProductId: String?,
        configuration: Configuration
    )
        throws -> String
    {
        guard let planId = subscription.planId, !planId.isEmpty else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the subscription has no plan",
                storeReason: "plan_id missing"
            )
        }
        // With plans configured, a plan not listed (another app's, on the same merchant account) is refused.
        if !configuration.subscriptionPlans.isEmpty, configuration.subscriptionPlans[planId] == nil {
            throw StoreAdapterError(
                .wrongApplication,
                store: .paypal,
                "the subscription's plan is not one of this app's",
                storeReason: "plan_id"
            )
        }
        let productId = configuration.subscriptionPlans[planId] ?? planId
        if let expectedProductId, expectedProductId != productId {
            throw StoreAdapterError(
                .productMismatch,
                store: .paypal,
                "the subscription is for another plan",
                storeReason: "plan_id"
            )
        }
        return productId
    }
}

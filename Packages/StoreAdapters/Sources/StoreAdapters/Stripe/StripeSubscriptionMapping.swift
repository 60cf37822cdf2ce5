public import Foundation
import OpenCatCore

// The pure mapping of a Stripe Billing subscription to the normalized ``VerifiedPurchase`` (no HTTP).
extension StripeAdapter {
    /// What a `past_due` subscription (a renewal payment failed; Stripe is retrying) grants.
    public enum PastDuePolicy: Sendable, Hashable {
        /// No access while Stripe retries (``VerifiedPurchase/State/billingRetry``): the default, as the App Store
        /// and Play do without a grace period.
        case billingRetry
        /// Access while Stripe retries (``VerifiedPurchase/State/gracePeriod``), until the next retry or, without
        /// one, the end of the period.
        case gracePeriod
    }

    /// Maps a subscription (with `latest_invoice` expanded) to the normalized result:
    ///
    /// | Stripe status | state | until |
    /// |---|---|---|
    /// | `trialing` | active | `trial_end` |
    /// | `active` | active (expired while `pause_collection` is set) | `current_period_end`, or an earlier `cancel_at` (will not renew when `cancel_at_period_end`, `cancel_at` or `pause_collection` is set) |
    /// | `past_due` | billingRetry, or gracePeriod (``PastDuePolicy``) | the next retry, at most a week into the unpaid period |
    /// | `incomplete` | pending | – |
    /// | `unpaid`, `canceled`, `incomplete_expired`, `paused` | expired | `ended_at` or the period's end |
    /// | other | throws `malformedResponse` | – |
    ///
    /// The product is `metadata[product_id]` (the configured key), else the first item's price `lookup_key`; the
    /// price is the first item's `unit_amount` × quantity, exact in the currency's minor units, and 0 in that currency
    /// while `trialing` (what the period costs: a trial is not a paid period).
    public static func purchase(
        from subscription: Stripe.Subscription,
        expectedProductId: String?,
        configuration: Configuration,
        verifiedAt: Date? = nil
    ) throws -> VerifiedPurchase {
        let item = subscription.items.first
        guard
            let productId = subscription.metadata[configuration.productMetadataKey] ?? item?.price.lookupKey,
            !productId.isEmpty
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .stripe,
                "the subscription names no product (metadata[\(configuration.productMetadataKey)] or a price lookup_key)",
                storeReason: "metadata.\(configuration.productMetadataKey) missing"
            )
        }
        if let expectedProductId, expectedProductId != productId {
            throw StoreAdapterError(
                .productMismatch,
                store: .stripe,
                "the subscription is for another product",
                storeReason: "metadata.\(configuration.productMetadataKey)"
            )
        }
        func date(_ seconds: Int64?) -> Date? { seconds.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
        var (state, expiration, grace) = try access(of: subscription, pastDue: configuration.pastDue)
        if let cancelAt = date(subscription.cancelAt), let end = expiration, cancelAt < end { expiration = cancelAt }
        if state == .active, expiration == nil {
            // Never an open-ended grant: an active subscription must say until when.
            throw StoreAdapterError(
                .malformedResponse,
                store: .stripe,
                "an active subscription without a period end",
                storeReason: subscription.status.rawValue
            )
        }
        // What this period costs: nothing during a trial (Stripe bills the trial with a 0 invoice).
        var price = item.flatMap(Self.price(of:))
        if subscription.status == .trialing, let listed = price { price = Money(amount: 0, currency: listed.currency) }
        return VerifiedPurchase(
            store: .stripe,
            transactionId: subscription.latestInvoice.map {
                switch $0 {
                case .id(let id): id
                case .object(let invoice): invoice.id
                }
            } ?? subscription.id,
            originalTransactionId: subscription.id,
            productId: productId,
            purchaser: subscription.metadata[configuration.purchaserMetadataKey],
            purchaseDate: date(subscription.startDate ?? subscription.created) ?? Date(timeIntervalSince1970: 0),
            expirationDate: expiration,
            gracePeriodExpirationDate: grace,
            state: state,
            environment: subscription.livemode ? .production : .sandbox,
            quantity: Int(clamping: item?.quantity ?? 1),
            price: price,
            willRenew: state != .expired && subscription.willRenew,
            storeStatus: subscription.pauseCollection == nil
                ? subscription.status.rawValue : "\(subscription.status.rawValue)/paused",
            verifiedAt: verifiedAt
        )
    }

    /// The access a subscription's status gives: the state, until when, and the grace period's end.
    static func access(of subscription: Stripe.Subscription, pastDue: PastDuePolicy) throws -> (
        state: VerifiedPurchase.State, expiration: Date?, grace: Date?
    ) {
        func date(_ seconds: Int64?) -> Date? { seconds.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
        let periodEnd = date(subscription.periodEnd)
        var expiration = periodEnd
        var grace: Date?
        let state: VerifiedPurchase.State
        switch subscription.status {
        case .trialing:
            state = subscription.pauseCollection == nil ? .active : .expired
            expiration = date(subscription.trialEnd) ?? periodEnd
        case .active:
            // Collection paused: the periods roll on unpaid, so no access until it resumes.
            state = subscription.pauseCollection == nil ? .active : .expired
        case .pastDue:
            switch pastDue {
            case .billingRetry:
                state = .billingRetry
            case .gracePeriod:
                // Until Stripe's next retry, never past a week after the unpaid period began (Stripe has already
                // moved current_period_end to the end of that unpaid period).
                state = .gracePeriod
                let ceiling = date(subscription.currentPeriodStart.map { $0 &+ 7 * 86_400 }) ?? periodEnd
                let retry = date(subscription.latestInvoice?.expanded?.nextPaymentAttempt)
                grace = [retry, ceiling].compactMap { $0 }.min()
            }
        case .incomplete:
            state = .pending
        case .unpaid, .canceled, .incompleteExpired, .paused:
            state = .expired
            expiration = date(subscription.endedAt) ?? periodEnd ?? date(subscription.canceledAt)
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .stripe,
                "unknown subscription status",
                storeReason: subscription.status.rawValue
            )
        }
        return (state, expiration, grace)
    }

    /// The first item's price × quantity, exact in the currency's minor units (nil when it overflows).
    static func price(of item: Stripe.Subscription.Item) -> Money? {
        var price: Money?
        if let unit = item.price.unitAmount {
            let (total, overflow) = unit.multipliedReportingOverflow(by: max(1, item.quantity ?? 1))
            if !overflow {
                price = Money(
                    minorUnits: total,
                    currency: item.price.currency,
                    exponent: Stripe.minorUnitExponent(forCurrency: item.price.currency)
                )
            }
        }
        return price
    }
}

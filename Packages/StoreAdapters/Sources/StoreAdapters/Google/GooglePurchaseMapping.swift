import Foundation
import OpenCatCore

/// Turns Google Play Developer API answers into the normalized ``VerifiedPurchase``: pure, no HTTP (the adapter
/// fetches, acknowledges and sets ``VerifiedPurchase/finalizedByAdapter``).
///
/// Products (`purchases.products`): `purchaseState` 0 → active, 2 → pending, 1 (canceled) → `notPaid`; `purchaseType`
/// 0 (test) → sandbox. Subscriptions (`purchases.subscriptionsv2`): ACTIVE → active, IN_GRACE_PERIOD → grace period
/// (its line item's `expiryTime` is the end of grace), ON_HOLD → billing retry, PAUSED and EXPIRED → expired,
/// CANCELED → active until `expiryTime`, PENDING → pending, PENDING_PURCHASE_CANCELED → `notPaid`; a
/// `testPurchase` → sandbox. Unknown states are `malformedResponse`, never a guess.
enum GooglePurchaseMapping {
    /// A one-time product purchase.
    /// - Parameters:
    ///   - productId: the product the proof names (the purchase must not report another).
    ///   - verifiedAt: Google's HTTP `Date`, if any.
    static func product(
        _ purchase: ProductPurchase,
        proof: PurchaseProof,
        productId: String,
        verifiedAt storeDate: Date?
    ) throws -> VerifiedPurchase {
        if let reported = purchase.productId, reported != productId {
            throw StoreAdapterError(.productMismatch, store: .google, "the purchase is for another product")
        }
        guard let millis = purchase.purchaseTimeMillis?.value else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "the product purchase has no purchaseTimeMillis"
            )
        }
        let state: VerifiedPurchase.State
        let status: String
        switch purchase.purchaseState {
        case .purchased:
            (state, status) = (.active, "purchased")
        case .pending:
            (state, status) = (.pending, "pending")
        case .canceled:
            throw StoreAdapterError(
                .notPaid,
                store: .google,
                "the purchase was canceled",
                storeReason: "purchaseState=1"
            )
        case let other:
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "unknown product purchaseState",
                storeReason: other.map { "purchaseState=\($0.rawValue)" } ?? "purchaseState missing"
            )
        }

        return VerifiedPurchase(
            store: .google,
            transactionId: purchase.orderId ?? proof.fingerprint,
            productId: productId,
            purchaser: purchase.obfuscatedExternalAccountId,
            purchaseDate: Date(timeIntervalSince1970: TimeInterval(millis) / 1000),
            state: state,
            environment: purchase.purchaseType == .test ? .sandbox : .production,
            quantity: Int(purchase.quantity ?? 1),
            finalizedByAdapter: false,
            storeStatus: status,
            verifiedAt: storeDate
        )
    }

    /// A one-time product purchase read without its product id (`purchases.productsv2`): the first line item's
    /// product, the units of that product across the line items, `PURCHASED` → active, `PENDING` → pending,
    /// `CANCELLED` → `notPaid`, a `testPurchaseContext` → sandbox. A pending purchase has no completion time yet: its
    /// purchase date is Google's HTTP `Date` (`now` without one).
    /// - Parameters:
    ///   - now: the time to report for a purchase Google has not completed.
    ///   - verifiedAt: Google's HTTP `Date`, if any.
    static func productV2(
        _ purchase: ProductPurchaseV2,
        proof: PurchaseProof,
        now: Date,
        verifiedAt storeDate: Date?
    ) throws -> VerifiedPurchase {
        guard let items = purchase.productLineItem, let productId = items.first?.productId, !productId.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the product purchase has no line item")
        }
        let rawState = purchase.purchaseStateContext?.purchaseState
        let state: VerifiedPurchase.State
        switch rawState {
        case .purchased?: state = .active
        case .pending?: state = .pending
        case .cancelled?:
            throw StoreAdapterError(.notPaid, store: .google, "the purchase was cancelled", storeReason: "CANCELLED")
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "unknown product purchaseState",
                storeReason: rawState.map { "purchaseState=\($0.rawValue)" } ?? "purchaseState missing"
            )
        }
        let purchaseDate =
            try purchase.purchaseCompletionTime.map { try timestamp($0, field: "purchaseCompletionTime") }
            ?? (state == .pending ? storeDate ?? now : nil)
        guard let purchaseDate else {
            throw StoreAdapterError(.malformedResponse, store: .google, "a purchased product has no completion time")
        }
        let quantity = items.filter { $0.productId == productId }.reduce(0) {
            $0 + ($1.productOfferDetails?.quantity ?? 1)
        }
        return VerifiedPurchase(
            store: .google,
            transactionId: purchase.orderId ?? proof.fingerprint,
            productId: productId,
            purchaser: purchase.obfuscatedExternalAccountId,
            purchaseDate: purchaseDate,
            state: state,
            environment: purchase.testPurchaseContext == nil ? .production : .sandbox,
            quantity: quantity,
            finalizedByAdapter: false,
            storeStatus: state == .active ? "purchased" : "pending",
            verifiedAt: storeDate
        )
    }

    /// A subscription.
    /// - Parameters:
    ///   - now: the reference time for "canceled but not yet expired" (Google's own time when it sent one).
    ///   - verifiedAt: Google's HTTP `Date`, if any.
    static func subscription(
        _ subscription: SubscriptionPurchaseV2,
        proof: PurchaseProof,
        now: Date,
        verifiedAt storeDate: Date?
    ) throws -> VerifiedPurchase {
        guard let items = subscription.lineItems, !items.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the subscription has no line items")
        }
        let item: SubscriptionPurchaseLineItem
        if let wanted = proof.productId {
            guard let match = items.first(where: { $0.productId == wanted }) else {
                throw StoreAdapterError(.productMismatch, store: .google, "the subscription is for another product")
            }
            item = match
        } else {
            item = items[0]
        }
        guard let productId = item.productId, !productId.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the subscription line item has no productId")
        }
        let expiry = try item.expiryTime.map { try Self.timestamp($0, field: "expiryTime") }
        let start = try subscription.startTime.map { try Self.timestamp($0, field: "startTime") }
        let autoRenew = item.autoRenewingPlan?.autoRenewEnabled ?? false
        let rawState = subscription.subscriptionState?.rawValue ?? "missing"

        let state: VerifiedPurchase.State
        var willRenew = false
        switch subscription.subscriptionState {
        case .active:
            (state, willRenew) = (.active, autoRenew)
        case .inGracePeriod:
            (state, willRenew) = (.gracePeriod, autoRenew)
        case .onHold:
            (state, willRenew) = (.billingRetry, autoRenew)
        case .paused:
            state = .expired
        case .canceled:
            state = expiry.map { $0 > now } == true ? .active : .expired
        case .expired:
            state = .expired
        case .pending:
            state = .pending
        case .pendingPurchaseCanceled:
            throw StoreAdapterError(
                .notPaid,
                store: .google,
                "the pending subscription purchase was canceled",
                storeReason: rawState
            )
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "unknown subscriptionState",
                storeReason: rawState
            )
        }

        let orderId = item.latestSuccessfulOrderId ?? subscription.latestOrderId
        return VerifiedPurchase(
            store: .google,
            transactionId: orderId ?? proof.fingerprint,
            originalTransactionId: orderId.map(Self.originalOrderId),
            productId: productId,
            purchaser: subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            purchaseDate: start ?? now,
            expirationDate: expiry,
            // subscriptionsv2 has no grace end of its own: while in grace, the line item's expiryTime is the end of
            // the grace period (the engine bounds it as well).
            gracePeriodExpirationDate: state == .gracePeriod ? expiry : nil,
            state: state,
            environment: subscription.testPurchase != nil ? .sandbox : .production,
            // What this period costs: nothing in a free trial (`offerPhase.freeTrial`), else the recurring price.
            price: item.autoRenewingPlan?.recurringPrice?.money.map {
                item.offerPhase?.freeTrial == nil ? $0 : Money(amount: 0, currency: $0.currency)
            },
            willRenew: willRenew,
            finalizedByAdapter: false,
            storeStatus: rawState,
            verifiedAt: storeDate
        )
    }

    static func timestamp(_ text: String, field: String) throws -> Date {
        guard let date = RFC3339Timestamp.date(from: text) else {
            throw StoreAdapterError(.malformedResponse, store: .google, "\(field) is not an RFC 3339 timestamp")
        }
        return date
    }

    /// Google's renewal order ids extend the first one: `GPA.1234-5678-9012-34567..2` → `GPA.1234-5678-9012-34567`.
    static func originalOrderId(_ orderId: String) -> String {
        guard let range = orderId.range(of: "..") else { return orderId }
        return String(orderId[..<range.lowerBound])
    }
}

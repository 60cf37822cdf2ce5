import Foundation
import HTTPTypes
public import OpenCatCore

/// Google Play's operations, through the Google Play Developer API (androidpublisher v3):
///
/// - consume: `purchases.products.consume` (`POST …/purchases/products/{productId}/tokens/{token}:consume`, empty
///   body);
/// - acknowledge: `purchases.products.acknowledge` or `purchases.subscriptions.acknowledge`
///   (`{"developerPayload"?}`, the proof's `developerPayload` context value when it has one);
/// - refund: `orders.refund` (`POST …/orders/{orderId}:refund?revoke=true`, empty body): in full, and access ends;
/// - revoke: `purchases.subscriptionsv2.revoke` (`{"revocationContext": {"fullRefund": {}}}`);
/// - cancel: `purchases.subscriptionsv2.cancel` (`DEVELOPER_REQUESTED_STOP_PAYMENTS`: no further payment, access until
///   the end of the paid period; Google has no immediate cancellation, which is a revoke);
/// - extend: `purchases.subscriptionsv2.defer` (`deferDuration` in seconds, with the `etag` read just before);
/// - lookup-order: `orders.get` (`GET …/orders/{orderId}`), read only.
///
/// Each reads the purchase first: one already consumed, acknowledged, cancelled or ended is
/// ``StoreAdapterError/Code/alreadyDone`` with Google's field as the reason, and the proof's expected purchaser is
/// checked before anything changes. It then acts, and returns the purchase as ``verify(_:)`` reads it again. Google answers the operations
/// with an empty body, so a refund or revoke that succeeded is reported `refunded` even while the purchase itself
/// still reads as it did (Google records refunds in the Voided Purchases API, not on the purchase).
///
/// Consume, acknowledge, cancel and revoke are safe to repeat (the shared client retries them on 5xx); a refund and a
/// deferral are sent once (retried only on 429, which promises nothing was done).
extension GooglePlayAdapter: StoreOperations {
    /// Consume, acknowledge, refund, revoke, cancel, extend (defer) and order look-up; the rest with Google's reason.
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        switch operation {
        case .consume, .acknowledge, .refund, .revoke, .cancelSubscription, .extendSubscription, .lookUpOrder,
            .lookUpOrders, .productPurchase:
            .supported
        case .transactionHistory, .subscriptions:
            .unsupported(
                "Google Play has no API listing one customer's purchases; voided purchases are read by verify"
            )
        case .refundHistory, .refundStatus:
            .unsupported(
                "Google Play keeps no refunds by customer or by id; the Voided Purchases API lists them by time"
            )
        case .extendAllSubscriptions:
            .unsupported("Google Play has no mass extension")
        case .suspendSubscription, .resumeSubscription:
            .unsupported("Google Play pauses a subscription and restarts it only at the subscriber's request")
        case .sendConsumption, .notificationHistory, .testNotification, .setAppAccountToken, .appTransaction:
            .unsupported("only the App Store offers \(operation)")
        case .refunds, .cancelRefund, .invoices: .unsupported("only Stripe offers \(operation)")
        default:
            .unsupported("Google Play has no \(operation) operation")
        }
    }

    /// Consumes a one-time product (`purchases.products.consume`) so it can be bought again, then reads it again.
    /// Consuming also acknowledges it, so the result says ``VerifiedPurchase/finalizedByAdapter``.
    /// - Parameter proof: a `.googleProductPurchaseToken` proof with its `productId`.
    /// - Throws: ``StoreAdapterError``: ``StoreAdapterError/Code/alreadyDone`` when Google reports it consumed
    ///   (`consumptionState` 1).
    public func consume(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try checked(proof, .googleProductPurchaseToken, for: .consume)
        let path = try productPath(proof)
        let purchase = try await product(proof, path: path)
        if purchase.consumptionState == .consumed {
            throw alreadyDone("the purchase is consumed already", reason: "consumptionState=1")
        }
        try await perform(path + ":consume", body: Data(), idempotent: true)
        var result = try await verify(proof)
        result.finalizedByAdapter = true
        return result
    }

    /// Acknowledges a one-time product (`purchases.products.acknowledge`) or a subscription
    /// (`purchases.subscriptions.acknowledge`), then reads it again; the result says
    /// ``VerifiedPurchase/finalizedByAdapter``.
    /// - Parameter proof: a Google purchase token proof (a product proof with its `productId`); a `developerPayload`
    ///   context value is sent with it.
    /// - Throws: ``StoreAdapterError``: ``StoreAdapterError/Code/alreadyDone`` when Google reports it acknowledged.
    public func acknowledge(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try checked(proof, .googleProductPurchaseToken, .googleSubscriptionPurchaseToken, for: .acknowledge)
        let body = try GoogleOperationBodies.json(
            GoogleOperationBodies.AcknowledgeRequest(developerPayload: proof.context["developerPayload"])
        )
        if proof.kind == .googleProductPurchaseToken {
            let path = try productPath(proof)
            let purchase = try await product(proof, path: path)
            if purchase.acknowledgementState == .acknowledged {
                throw alreadyDone("the purchase is acknowledged already", reason: "acknowledgementState=1")
            }
            try await perform(path + ":acknowledge", body: body, idempotent: true)
        } else {
            let subscription = try await subscription(proof).purchase
            if subscription.acknowledgementState == .acknowledged {
                throw alreadyDone(
                    "the subscription is acknowledged already",
                    reason: SubscriptionPurchaseV2.AcknowledgementState.acknowledged.rawValue
                )
            }
            let items = subscription.lineItems ?? []
            guard let productId = proof.productId ?? items.first?.productId, !productId.isEmpty else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .google,
                    "the subscription line item has no productId"
                )
            }
            let token = Self.segment(proof.token.revealed)
            try await perform(
                "\(applicationPath)/purchases/subscriptions/\(Self.segment(productId))/tokens/\(token):acknowledge",
                body: body,
                idempotent: true
            )
        }
        var result = try await verify(proof)
        result.finalizedByAdapter = true
        return result
    }

    /// Refunds an order in full and ends its access (`orders.refund` with `revoke=true`), then reads the purchase of
    /// `request.proof` again; the result is `refunded`.
    ///
    /// The purchase is read first: its order must be the refunded one (a subscription's renewals share the first
    /// order's id before `..N`), and one already `refunded` (the Voided Purchases API lists it, when
    /// ``Configuration/consultVoidedPurchases`` is on) is ``StoreAdapterError/Code/alreadyDone``.
    /// - Parameter request: `transactionId` the order id (`GPA.…`); `proof` the purchase's token proof (required);
    ///   no `amount` (Google refunds orders in full).
    /// - Throws: ``StoreAdapterError``.
    public func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase {
        let orderId = request.transactionId
        guard !orderId.isEmpty, orderId.count <= 255 else {
            throw StoreAdapterError(.invalidProof, store: .google, "a Google Play refund names an order id (GPA.…)")
        }
        guard request.amount == nil else {
            throw StoreAdapterError(
                .invalidProof,
                store: .google,
                "Google Play refunds orders in full; leave the amount out",
                storeReason: "amount"
            )
        }
        guard let proof = request.proof else {
            throw StoreAdapterError(
                .invalidProof,
                store: .google,
                "a Google Play refund needs the purchase's token proof, to read the purchase afterwards"
            )
        }
        let before: VerifiedPurchase
        do {
            before = try await verify(proof)
        } catch let error as StoreAdapterError where error.code == .notPaid {
            // A one-time product refunded with revoke reads as canceled (purchaseState 1): refunded already.
            throw alreadyDone("the order is refunded already", reason: error.storeReason ?? "canceled")
        }
        let base = GooglePurchaseMapping.originalOrderId
        guard base(orderId) == base(before.transactionId) else {
            throw StoreAdapterError(.invalidProof, store: .google, "the order id is not the proof's purchase's")
        }
        if before.state == .refunded {
            throw alreadyDone("the order is refunded already", reason: before.storeStatus ?? "refunded")
        }
        try await perform(
            "\(applicationPath)/orders/\(Self.segment(orderId)):refund?revoke=true",
            body: Data(),
            idempotent: false
        )
        let after: VerifiedPurchase
        do {
            after = try await verify(proof)
        } catch let error as StoreAdapterError where error.code == .notPaid {
            // A revoked one-time product may read as canceled (purchaseState 1): it is the refunded purchase.
            var revoked = before
            revoked.storeStatus = error.storeReason
            after = revoked
        }
        return Self.revoked(after, refundedOrder: orderId)
    }

    /// Revokes a subscription with a full refund of its latest charge (`purchases.subscriptionsv2.revoke`): access
    /// ends now. Returns it as read again, `refunded`.
    /// - Parameter proof: a `.googleSubscriptionPurchaseToken` proof.
    /// - Throws: ``StoreAdapterError``: ``StoreAdapterError/Code/alreadyDone`` when the subscription has ended
    ///   already (`SUBSCRIPTION_STATE_EXPIRED`: revoked or expired).
    public func revoke(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try checked(proof, .googleSubscriptionPurchaseToken, for: .revoke)
        let subscription = try await subscription(proof).purchase
        if subscription.subscriptionState == .expired {
            throw alreadyDone(
                "the subscription has ended already",
                reason: SubscriptionPurchaseV2.SubscriptionState.expired.rawValue
            )
        }
        try await perform(
            "\(subscriptionPath(proof)):revoke",
            body: try GoogleOperationBodies.json(GoogleOperationBodies.RevokeRequest()),
            idempotent: false
        )
        return Self.revoked(try await verify(proof), refundedOrder: nil)
    }

    /// Cancels a subscription at the end of its paid period (`purchases.subscriptionsv2.cancel`,
    /// `DEVELOPER_REQUESTED_STOP_PAYMENTS`), then reads it again.
    /// - Parameters:
    ///   - id: the subscription's purchase token.
    ///   - atPeriodEnd: must be `true`: Google has no immediate cancellation (``revoke(_:)`` ends access now, with
    ///     a refund).
    /// - Throws: ``StoreAdapterError``: ``StoreAdapterError/Code/unsupported`` for `atPeriodEnd` false;
    ///   ``StoreAdapterError/Code/alreadyDone`` when it is cancelled or ended already.
    public func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase {
        guard atPeriodEnd else {
            throw StoreAdapterError(
                .unsupported,
                store: .google,
                "Google Play cancels a subscription at the end of its period only; use revoke to end access now",
                storeReason: StoreOperation.cancelSubscription.rawValue
            )
        }
        let proof = PurchaseProof(store: .google, kind: .googleSubscriptionPurchaseToken, token: Secret(id))
        try checked(proof, .googleSubscriptionPurchaseToken, for: .cancelSubscription)
        let state = try await subscription(proof).purchase.subscriptionState
        if let state, state == .canceled || state == .expired || state == .pendingPurchaseCanceled {
            throw alreadyDone("the subscription is cancelled or ended already", reason: state.rawValue)
        }
        try await perform(
            "\(subscriptionPath(proof)):cancel",
            body: try GoogleOperationBodies.json(GoogleOperationBodies.CancelRequest.developerStopPayments),
            idempotent: true
        )
        return try await verify(proof)
    }

    /// Defers a subscription's renewal by whole days (`purchases.subscriptionsv2.defer`, every item of it), with
    /// the `etag` read just before, then reads it again. Google defers again for every request, so a repeated one
    /// moves it again: it is sent once (retried only on 429). Only `days` is used (Google takes no reason).
    /// - Parameters:
    ///   - proof: a `.googleSubscriptionPurchaseToken` proof.
    ///   - change: the days to add (at least 1).
    /// - Throws: ``StoreAdapterError``.
    public func extendSubscription(_ proof: PurchaseProof, by change: StoreExtension) async throws -> VerifiedPurchase {
        try checked(proof, .googleSubscriptionPurchaseToken, for: .extendSubscription)
        let (seconds, overflow) = change.days.multipliedReportingOverflow(by: 86_400)
        guard change.days > 0, !overflow else {
            throw StoreAdapterError(.invalidProof, store: .google, "a deferral is a positive number of days")
        }
        guard let etag = try await subscription(proof).etag, !etag.isEmpty else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "purchases.subscriptionsv2.get gave no etag, which a deferral must send"
            )
        }
        let body = GoogleOperationBodies.DeferRequest(
            deferralContext: .init(etag: etag, deferDuration: "\(seconds)s")
        )
        try await perform(
            "\(subscriptionPath(proof)):defer",
            body: try GoogleOperationBodies.json(body),
            idempotent: false
        )
        return try await verify(proof)
    }

    /// The purchases of an order (Google's `orders.get`, `GET …/applications/{packageName}/orders/{orderId}`;
    /// <https://developers.google.com/android-publisher/api-ref/rest/v3/orders/get>), one per line item: the order id
    /// as the transaction id, the product, `createTime` as the purchase date, a subscription's paid period end as the
    /// expiry, the line item's total (else the order's) as the price and `oneTimePurchaseDetails.quantity`. The order's
    /// `state` is the store status and gives the state: `PROCESSED` and `PENDING_REFUND` active, `PENDING` pending,
    /// `REFUNDED` refunded (the price refunded), `CANCELED` expired; `PARTIALLY_REFUNDED` is refunded by the sum of
    /// its processed `orderHistory.partialRefundEvents` (Google names no refunded amount of the order itself; an
    /// item's share in proportion to its total), or active while none is processed. An order carries no test flag, so
    /// the environment is production. An unknown order is ``StoreAdapterError/Code/notFound`` (404).
    public func lookUpOrder(orderId: String) async throws -> [VerifiedPurchase] {
        guard orderId.hasPrefix("GPA."), orderId.utf8.count <= 128 else {
            throw StoreAdapterError(.invalidProof, store: .google, "a Google Play order id starts with GPA.")
        }
        let order = try http.decode(
            Order.self,
            from: try await read("\(applicationPath)/orders/\(Self.segment(orderId))")
        )
        return try Self.purchases(of: order, orderId: orderId)
    }

    /// The purchases of several orders in one call (Google's `orders.batchget`, `GET
    /// …/applications/{packageName}/orders:batchGet?orderIds=…&orderIds=…`;
    /// <https://developers.google.com/android-publisher/api-ref/rest/v3/orders/batchget>), each order mapped as
    /// ``lookUpOrder(orderId:)`` maps it, in the order the ids were given.
    ///
    /// `orderIds`: 1 to 1000 distinct order ids (Google's limits, checked before anything is sent). Google fails the
    /// whole request when one id is unknown (``StoreAdapterError/Code/notFound``); an order it leaves out of a
    /// successful answer is ``StoreAdapterError/Code/malformedResponse``.
    public func lookUpOrders(orderIds: [String]) async throws -> [VerifiedPurchase] {
        guard (1...1000).contains(orderIds.count), Set(orderIds).count == orderIds.count else {
            throw StoreAdapterError(.invalidProof, store: .google, "orders.batchget takes 1 to 1000 distinct order ids")
        }
        guard orderIds.allSatisfy({ $0.hasPrefix("GPA.") && $0.utf8.count <= 128 }) else {
            throw StoreAdapterError(.invalidProof, store: .google, "a Google Play order id starts with GPA.")
        }
        let query = APIRequest.query(orderIds.map { ("orderIds", $0) })
        let answer = try http.decode(
            BatchGetOrdersResponse.self,
            from: try await read("\(applicationPath)/orders:batchGet?\(query)")
        )
        let byId = Dictionary(
            (answer.orders ?? []).map { ($0.orderId ?? "", $0) },
            uniquingKeysWith: { first, _ in first }
        )
        return try orderIds.flatMap { id -> [VerifiedPurchase] in
            guard let order = byId[id] else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .google,
                    "orders.batchget left out a requested order"
                )
            }
            return try Self.purchases(of: order, orderId: id)
        }
    }

    /// An order's line items as purchases (see ``lookUpOrder(orderId:)``).
    static func purchases(of order: Order, orderId: String) throws -> [VerifiedPurchase] {
        let state = order.state ?? ""
        let mapped: VerifiedPurchase.State
        let partlyRefunded = state == "PARTIALLY_REFUNDED" ? try order.orderHistory?.processedPartialRefunds() : nil
        switch state {
        case "PROCESSED", "PENDING_REFUND": mapped = .active
        case "PARTIALLY_REFUNDED": mapped = partlyRefunded == nil ? .active : .refunded
        case "PENDING": mapped = .pending
        case "REFUNDED": mapped = .refunded
        case "CANCELED": mapped = .expired
        default:
            throw StoreAdapterError(.malformedResponse, store: .google, "the order's state is not one Google documents")
        }
        guard let created = order.createTime else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the order has no createTime")
        }
        let purchaseDate = try GooglePurchaseMapping.timestamp(created, field: "createTime")
        return try (order.lineItems ?? []).map { item in
            guard let productId = item.productId, !productId.isEmpty else {
                throw StoreAdapterError(.malformedResponse, store: .google, "a line item has no productId")
            }
            let price = (item.total ?? order.total)?.money
            var refunded = mapped == .refunded ? price : nil
            if let partlyRefunded {
                refunded = Self.share(of: partlyRefunded, for: price, in: order.total?.money)
            }
            return VerifiedPurchase(
                store: .google,
                transactionId: order.orderId ?? orderId,
                originalTransactionId: order.orderId.map(GooglePurchaseMapping.originalOrderId),
                productId: productId,
                purchaseDate: purchaseDate,
                expirationDate: try item.subscriptionDetails?.servicePeriodEndTime.map {
                    try GooglePurchaseMapping.timestamp($0, field: "servicePeriodEndTime")
                },
                state: mapped,
                environment: .production,
                quantity: item.oneTimePurchaseDetails?.quantity ?? 1,
                price: price,
                refundedAmount: refunded,
                storeStatus: state
            )
        }
    }

    /// An item's part of an order's refund: all of it when the item is the whole order, else in proportion to the
    /// item's total (exact, rounded down to the currency's minor unit, never more than the item's price).
    static func share(of refund: Money, for price: Money?, in total: Money?) -> Money {
        guard let price, let total, total.amount > 0, price.amount != total.amount,
            price.currency.uppercased() == refund.currency.uppercased(),
            total.currency.uppercased() == refund.currency.uppercased()
        else { return refund }
        var exact = refund.amount * price.amount / total.amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, Money.minorUnitDigits(refund.currency.uppercased()), .down)
        return Money(amount: min(rounded, price.amount), currency: refund.currency)
    }

    // MARK: - Reading before acting

    /// Refuses a proof that is not a Google one of the given kinds, is empty, or names another package.
    private func checked(_ proof: PurchaseProof, _ kinds: PurchaseProof.Kind..., for operation: StoreOperation)
        throws(StoreAdapterError)
    {
        try checkProof(proof)
        guard kinds.contains(proof.kind) else {
            let names = kinds.map(\.rawValue).joined(separator: " or ")
            throw StoreAdapterError(.invalidProof, store: .google, "Google Play's \(operation) takes a \(names) proof")
        }
    }

    /// `…/purchases/products/{productId}/tokens/{token}` of a product proof.
    private func productPath(_ proof: PurchaseProof) throws(StoreAdapterError) -> String {
        guard let productId = proof.productId, !productId.isEmpty else {
            throw StoreAdapterError(.invalidProof, store: .google, "a Google Play product proof needs its product id")
        }
        return
            "\(applicationPath)/purchases/products/\(Self.segment(productId))/tokens/\(Self.segment(proof.token.revealed))"
    }

    /// `…/purchases/subscriptionsv2/tokens/{token}` of a subscription proof.
    private func subscriptionPath(_ proof: PurchaseProof) -> String {
        "\(applicationPath)/purchases/subscriptionsv2/tokens/\(Self.segment(proof.token.revealed))"
    }

    /// The product purchase as `purchases.products.get` answers it, its purchaser checked.
    private func product(_ proof: PurchaseProof, path: String) async throws -> ProductPurchase {
        let purchase = try http.decode(ProductPurchase.self, from: try await read(path))
        if let reported = purchase.productId, reported != proof.productId {
            throw StoreAdapterError(.productMismatch, store: .google, "the purchase is for another product")
        }
        try PurchaserBinding.check(
            proof,
            reported: purchase.obfuscatedExternalAccountId,
            field: "obfuscatedExternalAccountId"
        )
        return purchase
    }

    /// The subscription as `purchases.subscriptionsv2.get` answers it, with its etag; its product (when the proof
    /// names one) and purchaser checked.
    private func subscription(_ proof: PurchaseProof) async throws -> (purchase: SubscriptionPurchaseV2, etag: String?)
    {
        let body = try await read(subscriptionPath(proof))
        let purchase = try http.decode(SubscriptionPurchaseV2.self, from: body)
        if let wanted = proof.productId, !(purchase.lineItems ?? []).contains(where: { $0.productId == wanted }) {
            throw StoreAdapterError(.productMismatch, store: .google, "the subscription is for another product")
        }
        try PurchaserBinding.check(
            proof,
            reported: purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            field: "externalAccountIdentifiers.obfuscatedExternalAccountId"
        )
        return (purchase, try http.decode(GoogleOperationBodies.SubscriptionETag.self, from: body).etag)
    }

    // MARK: - HTTP

    /// A `GET`'s body, or the mapped error.
    private func read(_ path: String) async throws -> Data {
        let response = try await sendAuthorized(.get, path: path)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        return response.body
    }

    /// A `POST` whose success answer (an empty body) carries nothing to read.
    private func perform(_ path: String, body: Data, idempotent: Bool) async throws {
        let response = try await sendAuthorized(.post, path: path, body: body, idempotent: idempotent)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
    }

    /// ``StoreAdapterError/Code/alreadyDone`` with Google's field as the reason.
    private func alreadyDone(_ message: String, reason: String) -> StoreAdapterError {
        StoreAdapterError(.alreadyDone, store: .google, message, storeReason: reason)
    }

    /// A purchase Google refunded and revoked: `refunded`, not renewing; the refunded amount is its price when the
    /// refunded order is its latest one (or unnamed: a revoke refunds the latest charge).
    static func revoked(_ purchase: VerifiedPurchase, refundedOrder: String?) -> VerifiedPurchase {
        guard purchase.state != .refunded else { return purchase }
        var revoked = purchase
        revoked.state = .refunded
        revoked.willRenew = false
        if revoked.refundedAmount == nil, refundedOrder == nil || refundedOrder == purchase.transactionId {
            revoked.refundedAmount = purchase.price
        }
        return revoked
    }
}

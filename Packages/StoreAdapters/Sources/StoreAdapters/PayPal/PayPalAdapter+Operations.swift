import Foundation
import HTTPTypes
import Logging
import OpenCatCore

/// PayPal's operations: refunding a capture (`POST /v2/payments/captures/{capture_id}/refund`, full or partial),
/// cancelling, suspending and activating a subscription (`POST /v1/billing/subscriptions/{id}/cancel`, `…/suspend`
/// and `…/activate`), and
/// a subscription's payments (`GET /v1/billing/subscriptions/{id}/transactions`). Each returns the purchase as
/// PayPal reports it afterwards, read through ``verify(_:)``'s own path and mapping.
///
/// Errors are ``verify(_:)``'s (404 / `RESOURCE_NOT_FOUND` → ``StoreAdapterError/Code/notFound``, 429 →
/// ``StoreAdapterError/Code/rateLimited``, 5xx after retries → ``StoreAdapterError/Code/storeUnavailable``, …),
/// except that PayPal's "already done" answers become ``StoreAdapterError/Code/alreadyDone`` (422
/// `CAPTURE_FULLY_REFUNDED`; 422 `SUBSCRIPTION_STATUS_INVALID` for a subscription that is cancelled, expired or, for
/// a suspension, suspended already) and PayPal's other 422 refusals of an operation (`REFUND_AMOUNT_EXCEEDED`,
/// `REFUND_TIME_LIMIT_EXCEEDED`, a cancel of a subscription still `APPROVAL_PENDING`, …) become
/// ``StoreAdapterError/Code/invalidProof`` with PayPal's `NAME/ISSUE` as the store reason.
extension PayPalAdapter: StoreOperations {
    /// PayPal offers refunds, cancelling, suspending and activating subscriptions, and a subscription's payments; every other
    /// operation is unsupported, with the reason the operations matrix shows (`Fixtures/operations/scenarios.json`).
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        switch operation {
        case .transactionHistory, .refund, .cancelSubscription, .suspendSubscription, .resumeSubscription,
            .refundStatus:
            .supported
        case .refundHistory:
            .unsupported("PayPal reports refunds on the capture itself, which verify reads")
        case .subscriptions:
            .unsupported("PayPal lists no subscriptions by customer; a subscription id is what verify reads")
        case .extendSubscription:
            .unsupported("PayPal has no call that moves a subscription's next billing date")
        case .extendAllSubscriptions:
            .unsupported("PayPal has no mass extension")
        case .consume:
            .unsupported("a PayPal order has nothing to consume")
        case .acknowledge:
            .unsupported("a PayPal capture needs no acknowledgement")
        case .revoke:
            .unsupported("PayPal cancels and refunds separately (cancel, refund)")
        case .lookUpOrder:
            .unsupported("a PayPal order id is the proof verify reads")
        case .sendConsumption, .notificationHistory, .testNotification, .setAppAccountToken, .appTransaction:
            .unsupported("only the App Store offers \(operation)")
        case .refunds, .cancelRefund, .invoices: .unsupported("only Stripe offers \(operation)")
        case .lookUpOrders, .productPurchase: .unsupported("only Google Play offers \(operation)")
        default:
            .unsupported("PayPal has no \(operation) operation")
        }
    }

    /// Refunds a capture, in full (an empty JSON body: what is left of it) or in part (`amount`, PayPal's exact
    /// decimal string in the currency's precision: no decimals for HUF, JPY and TWD, two otherwise), with
    /// `PayPal-Request-Id` = ``StoreRefundRequest/idempotencyKey`` (PayPal keeps it 45 days, so a repeat returns the
    /// same refund instead of a second one), then reads the purchase again.
    ///
    /// ``StoreRefundRequest/transactionId`` is the capture id, which is what ``verify(_:)`` reports as a PayPal
    /// order's transaction id; when it equals the token of a `paypalOrder` ``StoreRefundRequest/proof`` (an order
    /// verified before it was captured reports the order id), the order is read and its first capture refunded.
    /// Afterwards the purchase is verified with ``StoreRefundRequest/proof`` if given, else with the order the
    /// capture belongs to (`GET /v2/payments/captures/{id}`, `supplementary_data.related_ids.order_id`). A refund
    /// PayPal has not completed yet adds `/refund=<status>` (`PENDING`, `FAILED`) to
    /// ``VerifiedPurchase/storeStatus``. Subscription payments (v1 sales) are not refunded here.
    ///
    /// A capture refunded in full already (422 `CAPTURE_FULLY_REFUNDED`) is ``StoreAdapterError/Code/alreadyDone``;
    /// an unknown capture is ``StoreAdapterError/Code/notFound``.
    public func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase {
        let key = request.idempotencyKey
        guard !key.isEmpty, key.utf8.count <= 255, key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "a PayPal-Request-Id is 1 to 255 printable ASCII characters without spaces"
            )
        }
        var body: JSONValue = [:]
        if let amount = request.amount {
            body = [
                "amount": [
                    "value": .string(try Self.paypalValue(amount)),
                    "currency_code": .string(amount.currency.uppercased()),
                ]
            ]
        }
        let captureId = try await captureId(for: request)
        let response = try await api.send(
            .post,
            path: "/v2/payments/captures/\(captureId)/refund",
            headers: [(.paypalRequestId, key)],
            body: body.serialized()
        )
        guard [200, 201].contains(response.status.code) else {
            throw operationError(
                for: response,
                subject: "capture",
                action: "refund",
                alreadyDone: ("CAPTURE_FULLY_REFUNDED", "the capture is refunded in full already")
            )
        }
        let refund = try api.http.decode(PayPal.Refund.self, from: response.body)
        configuration.logger.debug(
            "paypal capture refunded",
            metadata: ["partial": "\(request.amount != nil)", "status": "\(refund.status?.rawValue ?? "-")"]
        )
        let proof: PurchaseProof
        if let given = request.proof {
            proof = given
        } else {
            proof = PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(try await orderId(of: captureId)))
        }
        var purchase = try await verify(proof)
        if let status = refund.status, status != .completed {
            purchase.storeStatus = (purchase.storeStatus.map { $0 + "/" } ?? "") + "refund=\(status)"
        }
        return purchase
    }

    /// Cancels a subscription at once (`POST /v1/billing/subscriptions/{id}/cancel` with a `reason`), then reads it
    /// again: it maps as ``VerifiedPurchase/State/expired`` from PayPal's `status_update_time`.
    ///
    /// PayPal cancels at once only. `atPeriodEnd: true` throws ``StoreAdapterError/Code/unsupported`` before any
    /// request rather than doing something else (suspending would stop access too, and is ``suspendSubscription(id:reason:)``):
    /// cancel when the period ends, or cancel now and keep granting access until `billing_info.next_billing_time`.
    /// A subscription cancelled or expired already (422 `SUBSCRIPTION_STATUS_INVALID`, its status read again) is
    /// ``StoreAdapterError/Code/alreadyDone``; one that cannot be cancelled (still `APPROVAL_PENDING`) is
    /// ``StoreAdapterError/Code/invalidProof``. PayPal documents no `PayPal-Request-Id` for this call, so a 5xx is
    /// not repeated (a 429 is).
    public func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase {
        let id = try Self.pathId(id, what: "subscription")
        guard !atPeriodEnd else {
            throw StoreAdapterError(
                .unsupported,
                store: .paypal,
                "PayPal cancels a subscription at once only: cancel it when the period ends, or cancel now and grant access until its billing_info.next_billing_time",
                storeReason: "atPeriodEnd"
            )
        }
        try await changeSubscription(id: id, action: "cancel", reason: Self.cancelReason, done: [.cancelled, .expired])
        return try await verifySubscription(PurchaseProof(store: .paypal, kind: .paypalSubscription, token: Secret(id)))
    }

    /// Suspends a subscription's billing (`POST /v1/billing/subscriptions/{id}/suspend` with `reason`, 1 to 128
    /// characters; an empty reason is replaced by a fixed one), then reads it again: a subscription the merchant
    /// suspended maps as ``VerifiedPurchase/State/expired`` with store status `SUSPENDED/paused`.
    ///
    /// A subscription suspended, cancelled or expired already (422 `SUBSCRIPTION_STATUS_INVALID`, its status read
    /// again) is ``StoreAdapterError/Code/alreadyDone``; other statuses PayPal refuses are
    /// ``StoreAdapterError/Code/invalidProof``.
    public func suspendSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        let id = try Self.pathId(id, what: "subscription")
        let reason = try Self.reason(reason, default: Self.suspendReason, for: "suspension")
        try await changeSubscription(
            id: id,
            action: "suspend",
            reason: reason,
            done: [.suspended, .cancelled, .expired]
        )
        return try await verifySubscription(PurchaseProof(store: .paypal, kind: .paypalSubscription, token: Secret(id)))
    }

    /// Activates a suspended subscription again (PayPal's "Activate subscription", `POST
    /// /v1/billing/subscriptions/{id}/activate` with `reason`, 1 to 128 characters; an empty reason is replaced by a
    /// fixed one; <https://developer.paypal.com/docs/api/subscriptions/v1/#subscriptions_activate>), then reads it
    /// again: billing resumes and it maps as ``verify(_:)`` maps an `ACTIVE` subscription.
    ///
    /// A subscription that is active already (422 `SUBSCRIPTION_STATUS_INVALID`, its status read again) is
    /// ``StoreAdapterError/Code/alreadyDone``; one PayPal will not activate (cancelled, expired) is
    /// ``StoreAdapterError/Code/invalidProof``.
    public func resumeSubscription(id: String, reason: String) async throws -> VerifiedPurchase {
        let id = try Self.pathId(id, what: "subscription")
        let reason = try Self.reason(reason, default: Self.activateReason, for: "activation")
        try await changeSubscription(id: id, action: "activate", reason: reason, done: [.active])
        return try await verifySubscription(PurchaseProof(store: .paypal, kind: .paypalSubscription, token: Secret(id)))
    }

    /// A subscription's payments, newest first: `customer` is the subscription id (`I-…`), as PayPal lists payments
    /// per subscription only. The subscription is read first (its plan gives the product, as in ``verify(_:)``),
    /// then `GET /v1/billing/subscriptions/{id}/transactions` for the window from its `create_time` to now (the HTTP
    /// client's clock, whole seconds). Each `COMPLETED` payment becomes an
    /// ``VerifiedPurchase/State/active`` purchase and each `REFUNDED` or `PARTIALLY_REFUNDED` one a
    /// ``VerifiedPurchase/State/refunded`` purchase (refunded amount: the payment's gross for `REFUNDED`, unknown
    /// for a partial refund); its transaction id is PayPal's, its original transaction id the subscription's;
    /// declined and pending payments are left out.
    ///
    /// PayPal does not page the list, so the cursor does: it is `<offset>@<end_time>`, the number of purchases
    /// already given and the window's end fixed by the first page, so later pages count in the same list.
    public func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        let id = try Self.pathId(customer, what: "subscription")
        let position = try cursor.map(Self.historyPosition(from:))
        let (subscription, date) = try await fetchSubscription(id: id)
        let current = try Self.purchase(
            from: subscription,
            expectedProductId: nil,
            configuration: configuration,
            verifiedAt: date
        )
        guard let startText = subscription.createTime ?? subscription.startTime, let start = PayPalDate.parse(startText)
        else {
            throw StoreAdapterError(.malformedResponse, store: .paypal, "the subscription has no readable create_time")
        }
        let end = position?.end ?? api.http.client.clock.currentDate
        let query = APIRequest.query([("start_time", Self.rfc3339(start)), ("end_time", Self.rfc3339(end))])
        let response = try await api.send(.get, path: "/v1/billing/subscriptions/\(id)/transactions?\(query)")
        guard response.status.code == 200 else { throw api.error(for: response, subject: "subscription") }
        let list = try api.http.decode(PayPal.SubscriptionTransactionList.self, from: response.body)
        // The list is documented unpaged; an answer that says otherwise would be read in part, silently.
        if let pages = list.totalPages, pages > 1 {
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "PayPal paged a subscription's transactions, which this adapter reads as one list",
                storeReason: "total_pages=\(pages)",
                httpStatus: 200
            )
        }
        let listedAt = HTTPDate.of(response.head.headerFields)
        let payments = try (list.transactions ?? []).compactMap {
            try Self.payment($0, of: current, verifiedAt: listedAt)
        }
        .sorted { ($0.purchaseDate, $0.transactionId) > ($1.purchaseDate, $1.transactionId) }
        let offset = position?.offset ?? 0
        let page = Array(payments.dropFirst(offset).prefix(max(1, min(limit, 100))))
        let given = offset + page.count
        return PurchasePage(
            purchases: page,
            nextCursor: given < payments.count ? "\(given)@\(Self.rfc3339(end))" : nil
        )
    }

    /// The `reason` sent with a cancellation (PayPal requires one).
    static let cancelReason = "Cancelled by the merchant"
    /// The `reason` sent with a suspension when the caller gives none.
    static let suspendReason = "Suspended by the merchant"
    /// The reason sent when activating without one.
    static let activateReason = "Reactivated by the merchant"

    /// A subscription change's `reason`: the given one, or `fallback` when empty; PayPal takes 1 to 128 characters.
    static func reason(_ given: String, default fallback: String, for change: String) throws -> String {
        let reason = given.isEmpty ? fallback : given
        guard reason.count <= 128 else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "PayPal takes a \(change) reason of 1 to 128 characters"
            )
        }
        return reason
    }

    /// The capture a refund names: the transaction id, or the first capture of the proof's order when the
    /// transaction id is that order's id.
    private func captureId(for request: StoreRefundRequest) async throws -> String {
        let id = try Self.pathId(request.transactionId, what: "capture")
        guard let proof = request.proof, proof.store == .paypal, proof.kind == .paypalOrder, proof.token.revealed == id
        else { return id }
        let order = try await order(id: proof.token)
        guard let capture = order.purchaseUnits?.first?.payments?.captures?.first else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the order has no capture to refund",
                storeReason: order.status.rawValue
            )
        }
        return try Self.pathId(capture.id, what: "capture")
    }

    /// The order a capture was made for (`GET /v2/payments/captures/{id}`).
    func orderId(of captureId: String) async throws -> String {
        let response = try await api.send(.get, path: "/v2/payments/captures/\(captureId)")
        guard response.status.code == 200 else { throw api.error(for: response, subject: "capture") }
        let capture = try api.http.decode(PayPal.CapturedPayment.self, from: response.body)
        guard let orderId = capture.orderId else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "the capture was refunded but names no order to read it again from: pass the purchase's proof",
                storeReason: "supplementary_data.related_ids.order_id missing"
            )
        }
        return orderId
    }

    /// Cancels or suspends a subscription (`POST …/{action}` with `reason`; PayPal answers 204). PayPal's 422
    /// `SUBSCRIPTION_STATUS_INVALID` is told apart by reading the subscription: one in a `done` status is
    /// ``StoreAdapterError/Code/alreadyDone``, any other ``StoreAdapterError/Code/invalidProof``.
    private func changeSubscription(
        id: String,
        action: String,
        reason: String,
        done: Set<PayPal.Subscription.Status>
    ) async throws {
        let body: JSONValue = ["reason": .string(reason)]
        let response = try await api.send(
            .post,
            path: "/v1/billing/subscriptions/\(id)/\(action)",
            body: body.serialized()
        )
        if [200, 204].contains(response.status.code) { return }
        let apiError = try? JSONDecoder().decode(PayPal.ErrorResponse.self, from: response.body)
        guard response.status.code == 422, apiError?.issues.contains("SUBSCRIPTION_STATUS_INVALID") == true else {
            throw operationError(for: response, subject: "subscription", action: action, alreadyDone: nil)
        }
        let status = try await fetchSubscription(id: id).subscription.status
        guard done.contains(status) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "PayPal cannot \(action) a subscription in status \(status)",
                storeReason: apiError?.reason,
                httpStatus: response.status.code
            )
        }
        throw StoreAdapterError(
            .alreadyDone,
            store: .paypal,
            "the subscription is \(status.rawValue.lowercased()) already",
            storeReason: apiError?.reason,
            httpStatus: response.status.code
        )
    }

    /// The error for a refused operation: the `alreadyDone` issue, if given, is
    /// ``StoreAdapterError/Code/alreadyDone``; another 422 is ``StoreAdapterError/Code/invalidProof`` (PayPal refused
    /// the request, nothing about a payment failed); anything else is mapped as ``verify(_:)`` maps it.
    private func operationError(
        for response: HTTPTransportResponse,
        subject: String,
        action: String,
        alreadyDone: (issue: String, message: String)?
    ) -> StoreAdapterError {
        let status = response.status.code
        guard status == 422, let apiError = try? JSONDecoder().decode(PayPal.ErrorResponse.self, from: response.body)
        else { return api.error(for: response, subject: subject) }
        if let alreadyDone, apiError.issues.contains(alreadyDone.issue) {
            return StoreAdapterError(
                .alreadyDone,
                store: .paypal,
                alreadyDone.message,
                storeReason: apiError.reason,
                httpStatus: status
            )
        }
        return StoreAdapterError(
            .invalidProof,
            store: .paypal,
            "PayPal refused to \(action) this \(subject)",
            storeReason: apiError.reason,
            httpStatus: status
        )
    }

    /// A payment of a subscription as a purchase of the subscription's product, or `nil` for one that is not
    /// paid (declined, pending).
    private static func payment(
        _ transaction: PayPal.SubscriptionTransaction,
        of subscription: VerifiedPurchase,
        verifiedAt: Date?
    ) throws -> VerifiedPurchase? {
        guard let status = transaction.status else { return nil }
        let state: VerifiedPurchase.State
        switch status {
        // A partly refunded payment still paid for its period (its storeStatus says PARTIALLY_REFUNDED; the refunded
        // sum is not in this list): only a full refund takes the period back.
        case .completed, .partiallyRefunded: state = .active
        case .refunded: state = .refunded
        default: return nil
        }
        guard let text = transaction.time, let time = PayPalDate.parse(text) else {
            throw StoreAdapterError(.malformedResponse, store: .paypal, "a subscription payment has no readable time")
        }
        let price = try exact(transaction.amountWithBreakdown?.grossAmount)
        return VerifiedPurchase(
            store: .paypal,
            transactionId: transaction.id,
            originalTransactionId: subscription.transactionId,
            productId: subscription.productId,
            purchaser: subscription.purchaser,
            purchaseDate: time,
            state: state,
            environment: subscription.environment,
            price: price,
            refundedAmount: status == .refunded ? price : nil,
            storeStatus: status.rawValue,
            verifiedAt: verifiedAt
        )
    }

    /// An id that goes into a URL path (letters, digits, `-`, `_`; at most 64 characters).
    static func pathId(_ text: String, what: String) throws -> String {
        do {
            return try orderId(from: Secret(text))
        } catch {
            throw StoreAdapterError(.invalidProof, store: .paypal, "the id is not a PayPal \(what) id")
        }
    }

    /// PayPal's `value` for an amount: exact, in the currency's precision (no decimals for HUF, JPY and TWD, two
    /// otherwise), positive; anything finer is refused rather than rounded.
    static func paypalValue(_ money: Money) throws -> String {
        let currency = money.currency.uppercased()
        let digits = ["HUF", "JPY", "TWD"].contains(currency) ? 0 : 2
        guard currency.utf8.count == 3, currency.allSatisfy({ $0.isASCII && $0.isLetter }),
            let minor = money.minorUnits(exponent: digits), minor > 0
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the amount is not a positive whole number of the currency's minor units"
            )
        }
        guard digits > 0 else { return String(minor) }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let fraction = String(minor % scale)
        return "\(minor / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// A time as PayPal's query parameters take it (`2026-11-22T12:00:00Z`, whole seconds, UTC).
    private static func rfc3339(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }

    /// Reads a history cursor, `<offset>@<end_time>`.
    private static func historyPosition(from cursor: String) throws -> (offset: Int, end: Date) {
        let parts = cursor.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let offset = Int(parts[0]), offset >= 0, let end = PayPalDate.parse(String(parts[1]))
        else {
            throw StoreAdapterError(.invalidProof, store: .paypal, "not a cursor a PayPal history page gave")
        }
        return (offset, end)
    }
}

import Foundation
public import OpenCatCore
public import StoreAdapters

/// Runs a store's `StoreOperations` from cassettes (the matrix's `operations` section): the cassette's `input.kind`
/// names the operation (a `StoreOperation` raw value), `input.token` the id it acts on, and `input.context` its
/// parameters. Each result is reported as a `VerifiedPurchase` so the section compares it as the verification
/// matrix does:
/// - an operation that changes or reads a purchase: that purchase, as the store reports it afterwards;
/// - a page (history, refund history, an order's purchases): `transactionId` of the first item (the input token when
///   the page is empty), `quantity` the number of items, `storeStatus` `next=<cursor>` or `last`;
/// - an answer without a purchase (consumption information, an app account token): `storeStatus` `accepted`;
/// - Apple's mass extension: `storeStatus` `complete=<bool>`, `quantity` the subscriptions extended;
/// - Apple's test notification: `transactionId` the test token, `storeStatus` the last send attempt's result (or
///   `pending`).
/// - a refund (refund-status, cancel-refund): `transactionId` the refund id, `originalTransactionId` the payment it
///   refunds, `price` its amount, `storeStatus` the store's status, `state` refunded once paid back, pending while it
///   waits, active otherwise; a page of refunds or invoices as a page (the first item's fields);
/// - a Stripe invoice: `transactionId` its id, `originalTransactionId` its subscription, `price` what it paid;
/// - Apple's app transaction: `transactionId` its app transaction id, `productId` the bundle id, `purchaseDate` the
///   original purchase date, `storeStatus` `originalApplicationVersion=<version>`.
///
/// Context keys: `proofKind`, `proofToken`, `amount` + `currency`, `idempotencyKey`, `atPeriodEnd`, `requestId`, `days`,
/// `reason`, `requestIdentifier`, `cursor`, `limit`, `suspendReason`, `resumeReason`, `appAccountToken`,
/// `startDate`/`endDate` (milliseconds), `notificationType`, `notificationSubtype`, `onlyFailures`, `storefronts`,
/// `status` (Apple's subscription statuses, comma separated); `lookup-orders` takes its order ids comma separated;
/// consumption information takes Apple's field names.
public struct OperationsConformanceAdapter: StoreAdapter {
    /// The store of the adapter it drives.
    public var store: Store { operations.store }
    /// The adapter under test.
    public let operations: any StoreOperations
    let clock: any WallClock

    /// Wraps an adapter that offers operations.
    public init(operations: any StoreOperations, clock: any WallClock) {
        self.operations = operations
        self.clock = clock
    }

    /// Performs the operation the proof names and reports its result.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let operation = StoreOperation(rawValue: proof.kind.rawValue)
        let token = proof.token.revealed
        let context = proof.context
        switch operation {
        case .transactionHistory:
            let limit = try context["limit"].map { try Self.integer($0, "limit") } ?? 50
            return page(
                try await operations.transactionHistory(customer: token, cursor: context["cursor"], limit: limit),
                token
            )
        case .refund:
            var amount: Money?
            if let value = context["amount"] {
                guard let currency = context["currency"], let money = Money(decimalString: value, currency: currency)
                else { throw invalid("context.amount and context.currency: an exact amount and an ISO currency") }
                amount = money
            }
            let target = context["proofKind"].map { kind in
                PurchaseProof(
                    store: store,
                    kind: .init(rawValue: kind),
                    token: Secret(context["proofToken"] ?? token),
                    productId: proof.productId
                )
            }
            let request = StoreRefundRequest(
                transactionId: token,
                amount: amount,
                idempotencyKey: context["idempotencyKey"],
                proof: target
            )
            return try await operations.refund(request)
        case .refundHistory:
            return page(try await operations.refundHistory(transactionId: token, cursor: context["cursor"]), token)
        case .cancelSubscription:
            let atPeriodEnd = context["atPeriodEnd"] == "true"
            if let requestId = context["requestId"] {
                return try await operations.cancelSubscription(
                    id: token,
                    atPeriodEnd: atPeriodEnd,
                    requestId: requestId
                )
            }
            return try await operations.cancelSubscription(id: token, atPeriodEnd: atPeriodEnd)
        case .extendSubscription:
            return try await operations.extendSubscription(try target(proof), by: try change(context))
        case .consume:
            return try await operations.consume(try target(proof))
        case .acknowledge:
            return try await operations.acknowledge(try target(proof))
        case .revoke:
            return try await operations.revoke(try target(proof))
        case .suspendSubscription:
            return try await operations.suspendSubscription(id: token, reason: context["suspendReason"] ?? "")
        case .resumeSubscription:
            return try await operations.resumeSubscription(id: token, reason: context["resumeReason"] ?? "")
        case .lookUpOrder:
            return page(
                PurchasePage(purchases: try await operations.lookUpOrder(orderId: token), nextCursor: nil),
                token
            )
        default:
            return try await readsAndRefunds(operation, proof)
        }
    }

    /// The reads added from the vendors' current APIs (refunds by id, lists, several orders, a purchase by token
    /// alone); the App Store's own operations after them.
    private func readsAndRefunds(_ operation: StoreOperation, _ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = proof.token.revealed
        let context = proof.context
        let limit = try context["limit"].map { try Self.integer($0, "limit") } ?? 10
        switch operation {
        case .refundStatus:
            return refundResult(try await operations.refundStatus(id: token))
        case .cancelRefund:
            return refundResult(try await operations.cancelRefund(id: token))
        case .refunds:
            let refunds = try await operations.refunds(transactionId: token, cursor: context["cursor"], limit: limit)
            return page(
                PurchasePage(purchases: refunds.refunds.map(refundResult), nextCursor: refunds.nextCursor),
                token
            )
        case .lookUpOrders:
            let ids = token.split(separator: ",").map(String.init)
            return page(
                PurchasePage(purchases: try await operations.lookUpOrders(orderIds: ids), nextCursor: nil),
                token
            )
        case .subscriptions:
            if let filter = context["status"], let apple = operations as? AppleStoreAdapter {
                let status = try filter.split(separator: ",").map { code in
                    guard let value = Int(code), let status = AppStore.SubscriptionStatus(rawValue: value) else {
                        throw invalid("context.status: Apple's subscription statuses, 1 to 5, comma separated")
                    }
                    return status
                }
                let purchases = try await apple.subscriptionStatuses(transactionId: token, status: Set(status))
                return page(PurchasePage(purchases: purchases, nextCursor: nil), token)
            }
            return page(
                try await operations.subscriptions(customer: token, cursor: context["cursor"], limit: limit),
                token
            )
        case .invoices:
            guard let stripe = operations as? StripeAdapter else { throw operations.unsupported(operation) }
            let list = try await stripe.invoices(customer: token, limit: limit, startingAfter: context["cursor"])
            let next = list.hasMore ? list.data.last?.id : nil
            return page(PurchasePage(purchases: list.data.map(invoiceResult), nextCursor: next), token)
        case .productPurchase:
            guard operations.support(for: operation).isSupported else { throw operations.unsupported(operation) }
            var purchase = proof
            purchase.kind = .googleProductPurchaseToken
            purchase.productId = nil
            return try await operations.verify(purchase)
        default:
            return try await appleOnly(operation, proof)
        }
    }

    /// The App Store's own operations.
    private func appleOnly(_ operation: StoreOperation, _ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard let apple = operations as? AppleStoreAdapter else {
            guard operations.support(for: operation).isSupported else { throw operations.unsupported(operation) }
            throw invalid("kind: '\(operation)' is not an operation this section runs")
        }
        let token = proof.token.revealed
        let context = proof.context
        switch operation {
        case .extendAllSubscriptions:
            guard let productId = proof.productId else { throw invalid("productId: the product to extend") }
            let storefronts = context["storefronts"].map { $0.split(separator: ",").map(String.init) } ?? []
            let id = try await apple.extendAllSubscriptions(
                productId: productId,
                by: try change(context),
                storefrontCountryCodes: storefronts
            )
            let status = try await apple.massExtensionStatus(productId: productId, requestIdentifier: id)
            return result(id, status: "complete=\(status.complete)", quantity: status.succeededCount ?? 0)
        case .sendConsumption:
            var fields = context
            fields.removeValue(forKey: "proofKind")
            try await apple.sendConsumptionInformation(
                transactionId: token,
                try AppStore.ConsumptionRequest(fields: fields)
            )
            return result(token, status: "accepted", quantity: 1)
        case .notificationHistory:
            guard let start = context["startDate"].flatMap(Self.date), let end = context["endDate"].flatMap(Self.date)
            else { throw invalid("context.startDate and context.endDate: milliseconds since 1970") }
            let query = AppStore.NotificationHistoryRequest(
                startDate: start,
                endDate: end,
                notificationType: context["notificationType"],
                notificationSubtype: context["notificationSubtype"],
                transactionId: context["transactionId"],
                onlyFailures: context["onlyFailures"].map { $0 == "true" }
            )
            let history = try await apple.notificationHistory(query, paginationToken: context["cursor"])
            return result(
                history.entries.first?.notificationUUID ?? token,
                status: history.nextCursor.map { "next=\($0)" } ?? "last",
                quantity: history.entries.count
            )
        case .testNotification:
            let testToken = token == "-" ? try await apple.requestTestNotification() : token
            let status = try await apple.testNotificationStatus(token: testToken)
            return result(testToken, status: status.sendAttempts.last?.sendAttemptResult ?? "pending", quantity: 1)
        case .appTransaction:
            let app = try await apple.appTransactionInfo(transactionId: token)
            var purchase = result(
                app.appTransactionId ?? token,
                status: "originalApplicationVersion=\(app.originalApplicationVersion ?? "-")",
                quantity: 1
            )
            purchase.productId = app.bundleId ?? "-"
            purchase.purchaseDate = app.originalPurchaseDate ?? purchase.purchaseDate
            return purchase
        case .setAppAccountToken:
            guard let value = context["appAccountToken"], let uuid = UUID(uuidString: value) else {
                throw invalid("context.appAccountToken: a UUID")
            }
            try await apple.setAppAccountToken(originalTransactionId: token, appAccountToken: uuid)
            return result(token, status: "accepted", quantity: 1)
        default:
            throw invalid("kind: '\(operation)' is not an operation this section runs")
        }
    }

    private func target(_ proof: PurchaseProof) throws -> PurchaseProof {
        guard let kind = proof.context["proofKind"] else { throw invalid("context.proofKind: the proof's kind") }
        var target = proof
        target.kind = .init(rawValue: kind)
        if let token = proof.context["proofToken"] { target.token = Secret(token) }
        return target
    }

    private func change(_ context: [String: String]) throws -> StoreExtension {
        let days = try Self.integer(context["days"] ?? "", "days")
        let code = try context["reason"].map { try Self.integer($0, "reason") } ?? 1
        guard let reason = StoreExtension.Reason(rawValue: code) else { throw invalid("context.reason: 0 to 3") }
        return StoreExtension(days: days, reason: reason, requestIdentifier: context["requestIdentifier"] ?? "")
    }

    private func page(_ page: PurchasePage, _ token: String) -> VerifiedPurchase {
        guard var first = page.purchases.first else {
            return result(token, status: page.nextCursor.map { "next=\($0)" } ?? "last", quantity: 0)
        }
        first.quantity = page.purchases.count
        first.storeStatus = page.nextCursor.map { "next=\($0)" } ?? "last"
        return first
    }

    /// A refund as a result: its id, the payment it refunds as the original id, its amount as the price, the store's
    /// status; the state the refund leaves the purchase in (refunded once paid back, pending while it waits).
    private func refundResult(_ refund: StoreRefund) -> VerifiedPurchase {
        var purchase = result(refund.id, status: refund.storeStatus, quantity: 1)
        purchase.originalTransactionId = refund.transactionId
        purchase.price = refund.amount
        purchase.purchaseDate = refund.created ?? purchase.purchaseDate
        switch refund.status {
        case .succeeded: purchase.state = .refunded
        case .pending, .requiresAction: purchase.state = .pending
        default: purchase.state = .active
        }
        return purchase
    }

    /// A Stripe invoice as a result: its id, the subscription it bills as the original id, what it paid.
    private func invoiceResult(_ invoice: Stripe.Subscription.Invoice) -> VerifiedPurchase {
        var purchase = result(invoice.id, status: invoice.status ?? "", quantity: 1)
        purchase.originalTransactionId = invoice.subscription
        if let paid = invoice.amountPaid, let currency = invoice.currency?.uppercased() {
            let exponent = Stripe.minorUnitExponent(forCurrency: currency)
            purchase.price = Money(minorUnits: paid, currency: currency, exponent: exponent)
        }
        purchase.purchaseDate =
            invoice.created.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? purchase.purchaseDate
        return purchase
    }

    private func result(_ id: String, status: String, quantity: Int) -> VerifiedPurchase {
        VerifiedPurchase(
            store: store,
            transactionId: id,
            productId: "-",
            purchaseDate: clock.currentDate,
            state: .active,
            environment: .production,
            quantity: quantity,
            storeStatus: status
        )
    }

    private func invalid(_ message: String) -> StoreAdapterError {
        StoreAdapterError(.invalidProof, store: store, "operations cassette input: \(message)")
    }

    private static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else {
            throw ConformanceError("input.context.\(name): expected a whole number")
        }
        return value
    }

    private static func date(_ text: String) -> Date? {
        Int64(text).map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }
}

extension ConformanceAdapterFactory {
    /// The operations of the adapter `base` builds (the `operations` section): the same configuration from the
    /// cassette's `config`, driven by ``OperationsConformanceAdapter``. An adapter that does not adopt
    /// `StoreOperations` fails every case with a ``ConformanceError`` saying so.
    public static func operations(_ base: ConformanceAdapterFactory) -> ConformanceAdapterFactory {
        ConformanceAdapterFactory(store: base.store) { environment in
            guard let operations = try base.make(environment) as? any StoreOperations else {
                throw ConformanceError("the \(base.store) adapter does not adopt StoreOperations")
            }
            return OperationsConformanceAdapter(operations: operations, clock: environment.httpClient.clock)
        }
    }
}

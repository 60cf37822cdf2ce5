import Foundation
import OpenCatCore

/// Turns a Steam `ISteamMicroTxn/QueryTxn` order into the normalized ``VerifiedPurchase``: pure, no HTTP (the
/// adapter queries and finalizes).
///
/// Status: `Succeeded` → active; `Approved` → active once finalized, else pending; `Init` → pending; `Failed` →
/// `notPaid`; `Refunded`, `Chargedback` and the fraud refunds → refunded; `PartialRefund` → refunded when a line of
/// the verified product was reversed, else active. The price is the sum of the product's lines in cents; the
/// refunded amount the sum of the reversed ones. Unknown statuses are `malformedResponse`.
enum SteamPurchaseMapping {
    /// A `QueryTxn` order.
    /// - Parameters:
    ///   - finalized: whether the adapter has just finalized the order (an approved order then counts as paid).
    ///   - sandbox: whether the adapter talks to Steam's sandbox.
    ///   - now: the purchase date when the order carries no `time` (Steam's HTTP `Date` when it sent one).
    ///   - storeDate: the QueryTxn response's HTTP `Date`: ``VerifiedPurchase/verifiedAt``.
    static func purchase(
        _ params: QueryTxnParams,
        proof: PurchaseProof,
        finalized: Bool,
        sandbox: Bool,
        now: Date,
        verifiedAt storeDate: Date?
    ) throws -> VerifiedPurchase {
        guard let status = params.status else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has no status")
        }
        let (productId, lines) = try Self.product(in: params, expected: proof.productId)

        let state: VerifiedPurchase.State
        switch status {
        case .succeeded:
            state = .active
        case .approved:
            state = finalized ? .active : .pending
        case .initialized:
            state = .pending
        case .failed:
            throw StoreAdapterError(
                .notPaid,
                store: .steam,
                "the order failed or was denied",
                storeReason: status.rawValue
            )
        case .partialRefund:
            state = Self.reversedLines(lines, status: status).isEmpty ? .active : .refunded
        case .refunded, .chargedback, .refundedSuspectedFraud, .refundedFriendlyFraud:
            state = .refunded
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .steam,
                "unknown order status",
                storeReason: status.rawValue
            )
        }

        guard let transactionId = params.transid?.text ?? params.orderid?.text, !transactionId.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has neither transid nor orderid")
        }
        var purchaseDate = storeDate ?? now
        if let time = params.time {
            guard let date = RFC3339Timestamp.date(from: time) else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "the order time is not an RFC 3339 timestamp"
                )
            }
            purchaseDate = date
        }

        let price = Self.total(of: lines, currency: params.currency)
        var refundedAmount: Money?
        if state == .refunded {
            refundedAmount = Self.total(of: Self.reversedLines(lines, status: status), currency: params.currency)
        }

        return VerifiedPurchase(
            store: .steam,
            transactionId: transactionId,
            productId: productId,
            purchaser: params.steamid?.text,
            purchaseDate: purchaseDate,
            state: state,
            environment: sandbox ? .sandbox : .production,
            quantity: lines.reduce(0) { $0 + Int($1.qty?.value ?? 1) },
            price: price,
            refundedAmount: refundedAmount,
            finalizedByAdapter: finalized,
            storeStatus: status.rawValue,
            verifiedAt: storeDate
        )
    }

    /// The verified product and its item lines: the expected product if the order has it, else the first item.
    static func product(in params: QueryTxnParams, expected: String?) throws -> (String, [QueryTxnItem]) {
        let items = params.items ?? []
        let status = params.status?.rawValue
        guard let firstItem = items.first?.itemid?.text else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has no items", storeReason: status)
        }
        let productId = expected ?? firstItem
        let lines = items.filter { $0.itemid?.text == productId }
        guard !lines.isEmpty else {
            throw StoreAdapterError(
                .productMismatch,
                store: .steam,
                "the order is for other items",
                storeReason: status
            )
        }
        return (productId, lines)
    }

    /// The lines an order's status reversed: every line of a `Refunded`, `Chargedback` or fraud-refunded order;
    /// for a `PartialRefund`, the lines whose `itemstatus` is a reversal (a line without one counts as reversed, so
    /// that a refund is never missed); none for any other status.
    static func reversedLines(_ lines: [QueryTxnItem], status: SteamTransactionStatus) -> [QueryTxnItem] {
        switch status {
        case .partialRefund:
            return lines.filter { line in
                line.itemstatus.map { SteamTransactionStatus.reversals.contains($0) } ?? true
            }
        case _ where SteamTransactionStatus.reversals.contains(status):
            return lines
        default:
            return []
        }
    }

    /// The sum of the lines' `amount` (cents) as exact money, or `nil` without a currency or an amount.
    static func total(of lines: [QueryTxnItem], currency: String?) -> Money? {
        guard let currency, !currency.isEmpty, !lines.isEmpty else { return nil }
        var cents: Int64 = 0
        for line in lines {
            guard let amount = line.amount?.value else { return nil }
            let (sum, overflow) = cents.addingReportingOverflow(amount)
            guard !overflow else { return nil }
            cents = sum
        }
        return Money(minorUnits: cents, currency: currency, exponent: 2)
    }
}

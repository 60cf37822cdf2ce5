public import Foundation
import OpenCatCore

// The pure mapping of a PayPal order to the normalized ``VerifiedPurchase`` (no HTTP): COMPLETED with a completed
// capture → active, a pending capture → pending, a refunded or partially refunded capture → refunded (the sum of
// completed refunds, exact), a declined or failed capture → `notPaid`; APPROVED, CREATED, SAVED and
// PAYER_ACTION_REQUIRED → pending; VOIDED → `notPaid`; unknown statuses → `malformedResponse`.
extension PayPalAdapter {
    /// Maps an order to the normalized result (see the table on ``PayPalAdapter``). Never captures, and checks
    /// only the product: price, payee and purchaser are checked by ``verify(_:)`` (see
    /// `checkTerms(of:productId:configuration:)`), so do not grant access from this alone.
    /// - Parameters:
    ///   - order: the order.
    ///   - expectedProductId: the product the app expects, if any.
    ///   - environment: the environment the order was read from.
    ///   - finalizedByAdapter: whether the adapter captured it during this verification.
    ///   - verifiedAt: when PayPal answered.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError`` (`notPaid`, `invalidProof`, `productMismatch`, `malformedResponse`).
    public static func purchase(
        from order: PayPal.Order,
        expectedProductId: String?,
        environment: Configuration.Environment,
        finalizedByAdapter: Bool = false,
        verifiedAt: Date? = nil
    ) throws -> VerifiedPurchase {
        let productId = try productId(of: order, expected: expectedProductId)
        let unit = order.purchaseUnits?.first
        let capture = unit?.payments?.captures?.first
        var refundedAmount: Money?
        let state: VerifiedPurchase.State
        switch order.status {
        case .completed:
            guard let capture else {
                guard unit?.payments?.authorizations?.isEmpty == false else {
                    throw StoreAdapterError(
                        .malformedResponse,
                        store: .paypal,
                        "a completed order without captures or authorizations",
                        storeReason: order.status.rawValue
                    )
                }
                state = .pending
                break
            }
            (state, refundedAmount) = try captureState(capture, unit: unit)
        case .approved, .created, .saved, .payerActionRequired:
            state = .pending
        case .voided:
            throw StoreAdapterError(
                .notPaid,
                store: .paypal,
                "the order was voided",
                storeReason: order.status.rawValue
            )
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "unknown order status",
                storeReason: order.status.rawValue
            )
        }
        guard let dateText = capture?.createTime ?? order.createTime, let purchaseDate = PayPalDate.parse(dateText)
        else {
            throw StoreAdapterError(.malformedResponse, store: .paypal, "the order has no readable create_time")
        }
        return VerifiedPurchase(
            store: .paypal,
            transactionId: capture?.id ?? order.id,
            productId: productId,
            purchaser: unit?.customId ?? capture?.customId,
            purchaseDate: purchaseDate,
            state: state,
            environment: environment == .sandbox ? .sandbox : .production,
            quantity: try quantity(of: unit, productId: productId),
            price: try exact(capture?.amount ?? unit?.amount),
            refundedAmount: refundedAmount,
            finalizedByAdapter: finalizedByAdapter,
            storeStatus: capture.map { "\(order.status)/\($0.status)" } ?? order.status.rawValue,
            verifiedAt: verifiedAt
        )
    }

    /// How many units the purchase unit bought: the `quantity` of its item for the product (its `sku`, else its only
    /// item); 1 for a unit without items.
    static func quantity(of unit: PayPal.PurchaseUnit?, productId: String) throws -> Int {
        guard let items = unit?.items, !items.isEmpty else { return 1 }
        guard let item = items.first(where: { $0.sku == productId }) ?? (items.count == 1 ? items.first : nil),
            let quantity = Int(item.quantity), quantity > 0
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the order's items do not say how many of the product were bought",
                storeReason: "purchase_units[0].items"
            )
        }
        return quantity
    }

    /// The product of an order's first purchase unit, checked against the expected one.
    static func productId(of order: PayPal.Order, expected: String?) throws -> String {
        guard let productId = order.purchaseUnits?.first?.referenceId, !productId.isEmpty else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the order has no purchase unit reference_id: it was not made for a product",
                storeReason: "purchase_units[0].reference_id missing"
            )
        }
        if let expected, expected != productId {
            throw StoreAdapterError(
                .productMismatch,
                store: .paypal,
                "the order is for another product",
                storeReason: "purchase_units[0].reference_id"
            )
        }
        return productId
    }

    /// The state a completed order's capture gives, and what was refunded (a chargeback counts as a refund).
    static func captureState(_ capture: PayPal.Capture, unit: PayPal.PurchaseUnit?) throws -> (
        VerifiedPurchase.State, Money?
    ) {
        let state: VerifiedPurchase.State
        var refundedAmount: Money?
        switch capture.status {
        case _ where capture.statusDetails?.reason == "CHARGEBACK":
            // A chargeback: the payer's card issuer disputed the capture and PayPal holds the funds: revoked.
            state = .refunded
            refundedAmount = try exact(capture.amount)
        case .completed:
            state = .active
        case .pending:
            state = .pending
        case .declined, .failed:
            throw StoreAdapterError(
                .notPaid,
                store: .paypal,
                "the payment was \(capture.status.rawValue.lowercased())",
                storeReason: ["CAPTURE_\(capture.status)", capture.statusDetails?.reason].compactMap { $0 }
                    .joined(separator: "/")
            )
        case .refunded:
            state = .refunded
            refundedAmount = try completedRefunds(of: unit) ?? exact(capture.amount)
        case .partiallyRefunded:
            state = .refunded
            refundedAmount = try completedRefunds(of: unit)
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "unknown capture status",
                storeReason: capture.status.rawValue
            )
        }
        return (state, refundedAmount)
    }

    /// The sum of a unit's completed refunds, or `nil` if none is listed.
    static func completedRefunds(of unit: PayPal.PurchaseUnit?) throws -> Money? {
        let amounts = try (unit?.payments?.refunds ?? []).filter { $0.status == .completed }.compactMap {
            try exact($0.amount)
        }
        guard let first = amounts.first else { return nil }
        guard amounts.allSatisfy({ $0.currency == first.currency }) else {
            throw StoreAdapterError(.malformedResponse, store: .paypal, "refunds in several currencies")
        }
        return Money(amount: amounts.reduce(Decimal(0)) { $0 + $1.amount }, currency: first.currency)
    }

    /// An exact amount; an unreadable decimal string is a malformed response.
    static func exact(_ money: PayPal.Money?) throws -> Money? {
        guard let money else { return nil }
        guard let exact = money.exact else {
            throw StoreAdapterError(.malformedResponse, store: .paypal, "an amount is not a decimal number")
        }
        return exact
    }
}

import Foundation
import OpenCatCore

extension PayPalAdapter {
    /// Checks that an order pays the configured merchant the configured price for its product, before it is
    /// captured and again on what was captured.
    ///
    /// - More or fewer than one purchase unit → ``StoreAdapterError/Code/productMismatch`` (OpenCat orders carry one).
    /// - `purchase_units[0].amount` or any capture's `amount` other than ``Configuration/prices`` for the product
    ///   times the quantity of its item (1 without items), or an item's `unit_amount` other than the price (value
    ///   compared exactly as a decimal, and currency) → ``StoreAdapterError/Code/productMismatch``: the order
    ///   is not for this product at this price.
    /// - `purchase_units[0].payee.merchant_id` missing or other than ``Configuration/payeeMerchantId`` →
    ///   ``StoreAdapterError/Code/notPaid``: whatever was paid, it was not paid to this merchant.
    /// - No configured price for the product, or an empty payee id → ``StoreAdapterError/Code/misconfigured``.
    /// - Parameters:
    ///   - order: the order as PayPal reports it.
    ///   - productId: the order's product (its checked `reference_id`).
    ///   - configuration: the expected prices and payee.
    /// - Throws: ``StoreAdapterError``.
    static func checkTerms(of order: PayPal.Order, productId: String, configuration: Configuration) throws {
        let payee = configuration.payeeMerchantId
        guard !payee.allSatisfy(\.isWhitespace) else {
            throw StoreAdapterError(.misconfigured, store: .paypal, "no payee merchant id is configured")
        }
        guard let price = configuration.prices[productId] else {
            throw StoreAdapterError(
                .misconfigured,
                store: .paypal,
                "no expected price is configured for the order's product",
                storeReason: "prices[reference_id] missing"
            )
        }
        guard let units = order.purchaseUnits, units.count == 1, let unit = units.first else {
            throw StoreAdapterError(
                .productMismatch,
                store: .paypal,
                "the order does not have exactly one purchase unit",
                storeReason: "purchase_units count \(order.purchaseUnits?.count ?? 0)"
            )
        }
        guard unit.payee?.merchantId == payee else {
            throw StoreAdapterError(
                .notPaid,
                store: .paypal,
                "the order does not pay the configured merchant",
                storeReason: "purchase_units[0].payee.merchant_id"
            )
        }
        // Several units (the item's quantity) cost the unit price each.
        let quantity = try quantity(of: unit, productId: productId)
        let total = Money(amount: price.amount * Decimal(quantity), currency: price.currency)
        if let item = unit.items?.first(where: { $0.sku == productId }) ?? unit.items?.first {
            try requireAmount(item.unitAmount, equals: price, field: "purchase_units[0].items[].unit_amount")
        }
        try requireAmount(unit.amount, equals: total, field: "purchase_units[0].amount")
        for (index, capture) in (unit.payments?.captures ?? []).enumerated() {
            try requireAmount(
                capture.amount,
                equals: total,
                field: "purchase_units[0].payments.captures[\(index)].amount"
            )
        }
    }

    private static func requireAmount(_ money: PayPal.Money?, equals price: Money, field: String) throws {
        if let money, money.exact == nil {
            throw StoreAdapterError(
                .malformedResponse,
                store: .paypal,
                "an amount is not a decimal number",
                storeReason: field
            )
        }
        guard let exact = money?.exact, exact.currency == price.currency, exact.amount == price.amount else {
            throw StoreAdapterError(
                .productMismatch,
                store: .paypal,
                "the amount or currency is not the product's configured price",
                storeReason: field
            )
        }
    }
}

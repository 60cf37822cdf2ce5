public import Foundation
import OpenCatCore

// The pure mapping of a Stripe PaymentIntent to the normalized ``VerifiedPurchase`` (no HTTP): `succeeded` →
// active, or refunded when its latest charge was disputed (a chargeback) or refunded in full or in part (the refunded amount exact, in the
// currency's minor units); `processing` / `requires_capture` → pending; the other known statuses → `notPaid`;
// unknown ones → `malformedResponse`. `livemode` false → sandbox.
extension StripeAdapter {
    /// Maps a PaymentIntent to the normalized result (see the table on ``StripeAdapter``). The purchaser is
    /// reported, not compared: ``verify(_:)`` compares it with `PurchaseProof/expectedPurchaser`.
    /// - Parameters:
    ///   - intent: the PaymentIntent, ideally with `latest_charge` expanded (otherwise refunds cannot be seen).
    ///   - expectedProductId: the product the app expects, if any.
    ///   - configuration: supplies the metadata keys.
    ///   - verifiedAt: when Stripe answered.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError`` (`notPaid`, `invalidProof`, `productMismatch`, `malformedResponse`).
    public static func purchase(
        from intent: Stripe.PaymentIntent,
        expectedProductId: String?,
        configuration: Configuration,
        verifiedAt: Date? = nil
    ) throws -> VerifiedPurchase {
        guard let productId = intent.metadata[configuration.productMetadataKey], !productId.isEmpty else {
            throw StoreAdapterError(
                .invalidProof,
                store: .stripe,
                "the PaymentIntent has no metadata[\(configuration.productMetadataKey)]: it was not made for a product",
                storeReason: "metadata.\(configuration.productMetadataKey) missing"
            )
        }
        if let expectedProductId, expectedProductId != productId {
            throw StoreAdapterError(
                .productMismatch,
                store: .stripe,
                "the PaymentIntent is for another product",
                storeReason: "metadata.\(configuration.productMetadataKey)"
            )
        }
        let quantity = try Self.quantity(of: intent, key: configuration.quantityMetadataKey)
        let exponent = Stripe.minorUnitExponent(forCurrency: intent.currency)
        let charge = intent.latestCharge?.expanded
        let (state, refundedAmount) = try Self.state(of: intent, charge: charge, exponent: exponent)
        let received = intent.amountReceived ?? 0
        return VerifiedPurchase(
            store: .stripe,
            transactionId: intent.id,
            productId: productId,
            purchaser: intent.metadata[configuration.purchaserMetadataKey],
            purchaseDate: intent.createdDate,
            state: state,
            environment: intent.livemode ? .production : .sandbox,
            quantity: quantity,
            price: Money(
                minorUnits: received > 0 ? received : intent.amount,
                currency: intent.currency,
                exponent: exponent
            ),
            refundedAmount: refundedAmount,
            storeStatus: charge?.disputed == true ? "\(intent.status.rawValue)/disputed" : intent.status.rawValue,
            verifiedAt: verifiedAt
        )
    }

    /// The number of packs `metadata[key]` names (1 without it; 1…99,999).
    static func quantity(of intent: Stripe.PaymentIntent, key: String) throws -> Int {
        var quantity = 1
        if let text = intent.metadata[key] {
            guard let value = Int(text), (1...99_999).contains(value) else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .stripe,
                    "the PaymentIntent's metadata[\(key)] is not a whole number from 1",
                    storeReason: "metadata.\(key)"
                )
            }
            quantity = value
        }
        return quantity
    }

    /// The state a PaymentIntent's status and its charge give, and what was refunded (a dispute counts as a refund
    /// of what was captured).
    static func state(of intent: Stripe.PaymentIntent, charge: Stripe.Charge?, exponent: Int) throws -> (
        VerifiedPurchase.State, Money?
    ) {
        let state: VerifiedPurchase.State
        var refundedAmount: Money?
        switch intent.status {
        case .succeeded:
            if let charge, charge.disputed == true {
                // A chargeback: the customer's bank took the money back; access is revoked like a refund.
                state = .refunded
                refundedAmount = Money(
                    minorUnits: charge.amountCaptured ?? intent.amountReceived ?? intent.amount,
                    currency: intent.currency,
                    exponent: exponent
                )
            } else if let charge, charge.refunded || charge.amountRefunded > 0 {
                state = .refunded
                let refunded =
                    charge.amountRefunded > 0 ? charge.amountRefunded : (charge.amountCaptured ?? intent.amount)
                refundedAmount = Money(minorUnits: refunded, currency: intent.currency, exponent: exponent)
            } else {
                state = .active
            }
        case .processing, .requiresCapture:
            state = .pending
        case .requiresPaymentMethod, .requiresConfirmation, .requiresAction, .canceled:
            let detail = intent.lastPaymentError?.reason ?? intent.cancellationReason
            throw StoreAdapterError(
                .notPaid,
                store: .stripe,
                "the PaymentIntent is not paid (\(intent.status))",
                storeReason: detail.map { "\(intent.status)/\($0)" } ?? intent.status.rawValue
            )
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .stripe,
                "unknown PaymentIntent status",
                storeReason: intent.status.rawValue
            )
        }
        return (state, refundedAmount)
    }
}

import Foundation
import HTTPTypes
import KeyServerAPI
import Logging
import OpenCatCore
import StoreAdapters

/// Key packs bought on the web: the server creates a Stripe Checkout Session or a PayPal order, sends the buyer
/// to the store's page, and credits the pack when the buyer comes back or the store's webhook arrives — whichever
/// is first. Both paths verify the payment with its store and redeem it through ``redeemKeyPack(_:store:user:)``,
/// keyed by the store transaction, so the pack is credited once.
extension OpenCatServerApplication {
    var portalSettings: PortalSettings? { settings.portal }

    /// The ledger user a portal email signs in as: the configured key-server user with that email (so an app's
    /// key sync sees what the web bought), else a web-only account.
    func webUser(email: String) -> ServerUser {
        let email = email.lowercased()
        return settings.users.user(email: email)
            ?? ServerUser(userId: "web:" + email, email: email, tokenSHA256: String(repeating: "0", count: 64))
    }

    /// Creates the store's checkout for a pack and records the web order; returns the store page to send the
    /// buyer to.
    func startCheckout(store: Store, product: PortalSettings.Product, quantity: Int, user: ServerUser) async throws
        -> URL
    {
        guard let portal = portalSettings, let unit = product.price else {
            throw PageError(.notFound, "This product is not sold here.")
        }
        let total = Money(amount: unit.amount * Decimal(quantity), currency: unit.currency)
        let base = portal.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let nonce = Self.randomSecret()
        let email = user.email ?? ""
        do {
            switch store {
            case .stripe:
                guard let stripe = adapters[.stripe] as? StripeAdapter else {
                    throw PageError(.notFound, "Card payments are not available.")
                }
                let session = try await stripe.createCheckoutSession(
                    StripeAdapter.CheckoutRequest(
                        productId: product.productId,
                        productName: product.name,
                        unitPrice: unit,
                        quantity: quantity,
                        purchaser: user.userId,
                        email: user.email,
                        successURL: URL(string: base + "/portal/return/stripe?session_id={CHECKOUT_SESSION_ID}")!,
                        cancelURL: URL(string: base + "/portal/buy?notice=cancelled")!,
                        idempotencyKey: "opencat-web-" + nonce
                    )
                )
                guard let page = session.url.flatMap(URL.init(string:)) else {
                    throw PageError(.badGateway, "Stripe did not give a payment page. Try again later.")
                }
                try await ledger.recordWebOrder(
                    order(store: "stripe", reference: session.id, user, email, product, quantity, total)
                )
                return page
            case .paypal:
                guard let paypal = adapters[.paypal] as? PayPalAdapter else {
                    throw PageError(.notFound, "PayPal is not available.")
                }
                let created = try await paypal.createOrder(
                    PayPalAdapter.OrderRequest(
                        productId: product.productId,
                        description: "\(quantity) × \(product.name)",
                        amount: total,
                        purchaser: user.userId,
                        returnURL: URL(string: base + "/portal/return/paypal")!,
                        cancelURL: URL(string: base + "/portal/buy?notice=cancelled")!,
                        requestId: "opencat-web-" + nonce,
                        quantity: quantity
                    )
                )
                guard let page = created.approvalURL else {
                    throw PageError(.badGateway, "PayPal did not give an approval page. Try again later.")
                }
                try await ledger.recordWebOrder(
                    order(store: "paypal", reference: created.id, user, email, product, quantity, total)
                )
                return page
            default:
                throw PageError(.badRequest, "Choose Stripe or PayPal.")
            }
        } catch let error as StoreAdapterError {
            logger.notice(
                "web checkout refused",
                metadata: ["store": "\(store.rawValue)", "reason": "\(error.code.rawValue)"]
            )
            throw PageError(.badGateway, "The payment provider could not start the payment. Try again later.")
        }
    }

    private func order(
        store: String,
        reference: String,
        _ user: ServerUser,
        _ email: String,
        _ product: PortalSettings.Product,
        _ quantity: Int,
        _ total: Money
    ) -> WebOrder {
        WebOrder(
            store: store,
            reference: reference,
            userId: user.userId,
            email: email,
            productId: product.productId,
            quantity: Int64(quantity),
            amount: "\(total.amount)",
            currency: total.currency,
            state: "created",
            createdAt: clock()
        )
    }

    /// Credits a web order once its store says it is paid: verifies the payment (capturing an approved PayPal
    /// order) for the order's own buyer and product, then redeems it. Safe to call from the return and the
    /// webhook at once, and again later: the redemption is keyed by the store transaction.
    /// - Returns: the keys the order credited (its first redemption's), or `nil` when it is not paid yet.
    @discardableResult
    func creditWebOrder(store: Store, reference: String) async throws -> Int64? {
        guard let order = try await ledger.webOrder(store: store.rawValue, reference: reference) else {
            throw PageError(.notFound, "This order is not known here.")
        }
        var proof: PurchaseProof
        switch store {
        case .stripe:
            guard let stripe = adapters[.stripe] as? StripeAdapter else {
                throw PageError(.notFound, "Not available.")
            }
            let session = try await stripe.checkoutSession(id: reference)
            guard session.paymentStatus == "paid", let intent = session.paymentIntent else { return nil }
            proof = PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(intent))
        case .paypal:
            proof = PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(reference))
        default:
            throw PageError(.notFound, "This order is not known here.")
        }
        proof.productId = order.productId
        proof.expectedPurchaser = order.userId
        guard let adapter = adapters[store] else { throw PageError(.notFound, "Not available.") }
        let purchase: VerifiedPurchase
        do {
            purchase = try await adapter.verify(proof)
            try purchase.requireEnvironment(in: settings.environments(store))
        } catch { throw refused(error, store: store) }
        guard purchase.state == .active else { return nil }
        // The store's order carries the number of packs (Stripe metadata, PayPal's item): the order's own.
        guard Int64(purchase.quantity) == order.quantity else {
            throw refused(
                StoreAdapterError(.productMismatch, store: store, "the payment is not for the order's quantity"),
                store: store
            )
        }
        // The store charged what the order says (the same check the app path makes with Stripe's price list).
        if let paid = purchase.price, let expected = Money(decimalString: order.amount, currency: order.currency),
            paid.currency.uppercased() != expected.currency.uppercased() || paid.amount != expected.amount
        {
            throw refused(
                StoreAdapterError(.productMismatch, store: store, "the payment is not the order's price"),
                store: store
            )
        }
        let buyer = settings.users.user(email: order.email) ?? webUser(email: order.email)
        let redemption = try await redeemKeyPack(purchase, store: store, user: buyer)
        try await ledger.markWebOrderCredited(
            store: store.rawValue,
            reference: reference,
            transactionId: purchase.transactionId
        )
        return redemption.outcome.entry.amount
    }
}

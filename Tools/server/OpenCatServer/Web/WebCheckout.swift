import Foundation
import HTTPTypes
import KeyServerAPI
import Logging
import OpenCatCore
import StoreAdapters

/// Key packs bought on the web: the server creates a Stripe Checkout Session or a PayPal order, sends the buyer
/// to the store's page, and credits the pack when the buyer comes back or the store's webhook arrives — whichever
/// is first. Both paths verify the payment with its store through the ``PurchaseDesk`` and redeem it through the
/// ``KeyPackSeller``, keyed by the store transaction, so the pack is credited once.
struct WebCheckout: Sendable {
    let desk: PurchaseDesk
    let seller: KeyPackSeller
    let orders: any WebOrderRepository
    /// The key-server users (a portal email of one signs in as that user).
    let users: BearerTokens
    let portal: PortalSettings?
    /// `acceptedEnvironments`: the environments each store's purchases may be made in.
    let environments: [Store: Set<VerifiedPurchase.Environment>]
    let clock: @Sendable () -> Date
    let logger: Logger

    /// The ledger user a portal email signs in as: the configured key-server user with that email (so an app's
    /// key sync sees what the web bought), else a web-only account.
    func webUser(email: String) -> ServerUser {
        let email = email.lowercased()
        return users.user(email: email)
            ?? ServerUser(userId: "web:" + email, email: email, tokenSHA256: String(repeating: "0", count: 64))
    }

    /// Creates the store's checkout for a pack and records the web order; returns the store page to send the
    /// buyer to.
    func start(store: Store, product: PortalSettings.Product, quantity: Int, user: ServerUser) async throws
        -> URL
    {
        guard let portal, let unit = product.price else {
            throw PageError(.notFound, "This product is not sold here.")
        }
        let total = Money(amount: unit.amount * Decimal(quantity), currency: unit.currency)
        let base = portal.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let nonce = WebPages.randomSecret()
        let email = user.email ?? ""
        do {
            switch store {
            case .stripe:
                guard let stripe = desk.adapters[.stripe] as? StripeAdapter else {
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
                try await orders.recordWebOrder(
                    order(store: "stripe", reference: session.id, user, email, product, quantity, total)
                )
                return page
            case .paypal:
                guard let paypal = desk.adapters[.paypal] as? PayPalAdapter else {
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
                try await orders.recordWebOrder(
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
    func credit(store: Store, reference: String) async throws -> Int64? {
        guard let order = try await orders.webOrder(store: store.rawValue, reference: reference) else {
            throw PageError(.notFound, "This order is not known here.")
        }
        guard var proof = try await paymentProof(store: store, reference: reference) else { return nil }
        proof.productId = order.productId
        proof.expectedPurchaser = order.userId
        let adapter = try desk.adapter(for: store)
        let purchase = try await desk.verify(proof, with: adapter)
        guard purchase.state == .active else { return nil }
        // Paid: from here the buyer is owed the keys, whatever happens next (a refused rule, a failed write, a crash);
        // the order says so until it is credited (the portal shows it, the console credits or refunds it, the retry
        // takes it up).
        try await orders.markWebOrderPaid(
            store: store.rawValue,
            reference: reference,
            transactionId: purchase.transactionId
        )
        // The store's order carries the number of packs (Stripe metadata, PayPal's item) and, where it says, what it
        // charged: the order's own; then the key-pack rules every sale meets.
        let acceptance = PurchaseAcceptance([
            .environment(environments),
            .quantity(of: order.quantity),
            .total(Money(decimalString: order.amount, currency: order.currency)),
        ]).adding(seller.acceptance.rules)
        try desk.check(purchase, under: acceptance)
        let buyer = webUser(email: order.email)
        let redemption = try await seller.redeem(purchase, user: buyer)
        try await orders.markWebOrderCredited(
            store: store.rawValue,
            reference: reference,
            transactionId: purchase.transactionId
        )
        return redemption.outcome.entry.amount
    }

    /// Credits the orders paid and not credited for a minute or more (a crash or a failed write between the store's
    /// answer and the ledger's), oldest first; an order that fails again waits for the next pass.
    /// - Returns: how many were credited now.
    @discardableResult
    func retryPaidOrders() async throws -> Int {
        var credited = 0
        for order in try await orders.paidWebOrders(before: clock().addingTimeInterval(-60)) {
            do {
                if try await credit(store: Store(rawValue: order.store), reference: order.reference) != nil {
                    credited += 1
                }
            } catch {
                logger.warning(
                    "a paid web order is still not credited",
                    metadata: ["store": "\(order.store)", "error": "\(String(reflecting: type(of: error)))"]
                )
            }
        }
        return credited
    }

    /// The proof of a web order's payment: a paid Checkout Session's PaymentIntent (nil while it is unpaid), a PayPal
    /// order (captured when the adapter verifies it).
    func paymentProof(store: Store, reference: String) async throws -> PurchaseProof? {
        switch store {
        case .stripe:
            guard let stripe = desk.adapters[.stripe] as? StripeAdapter else {
                throw PageError(.notFound, "Not available.")
            }
            let session = try await stripe.checkoutSession(id: reference)
            guard session.paymentStatus == "paid", let intent = session.paymentIntent else { return nil }
            return PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(intent))
        case .paypal:
            return PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(reference))
        default:
            throw PageError(.notFound, "This order is not known here.")
        }
    }
}

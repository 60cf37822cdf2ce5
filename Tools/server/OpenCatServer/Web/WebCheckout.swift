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

    /// Credits a web order once its store says it is paid (see ``settle(store:reference:)``).
    /// - Returns: the keys the order credited (its first redemption's), or `nil` when it is not paid yet.
    @discardableResult
    func credit(store: Store, reference: String) async throws -> Int64? {
        guard case .credited(let keys) = try await settle(store: store, reference: reference) else { return nil }
        return keys
    }

    /// What the store said of an order, and what became of it.
    enum Settlement: Sendable {
        /// Paid and credited: the keys its first redemption credited.
        case credited(Int64)
        /// Not paid yet.
        case unpaid
        /// The store's checkout expired unpaid.
        case expired
    }

    /// Settles a web order with its store: verifies the payment (capturing an approved PayPal order) for the order's
    /// own buyer and product, judges it by the order's own total and quantity (what it was sold at, never today's
    /// prices), then redeems it. Safe to call from the return, the webhook and the reconciler at once, and again
    /// later: the redemption is keyed by the store transaction. Every outcome moves the order through the order model:
    /// paid, credited, or needing attention with the rule that refused it (logged, shown to the operator and the buyer).
    func settle(store: Store, reference: String) async throws -> Settlement {
        guard let order = try await orders.webOrder(store: store.rawValue, reference: reference) else {
            throw PageError(.notFound, "This order is not known here.")
        }
        return try await settle(order)
    }

    /// Settles an order already read (see ``settle(store:reference:)``): the order read is the order judged.
    func settle(_ order: WebOrder) async throws -> Settlement {
        let store = Store(rawValue: order.store)
        let reference = order.reference
        let payment = try await payment(store: store, reference: reference)
        guard case .paid(var proof) = payment else { return payment == .expired ? .expired : .unpaid }
        proof.productId = order.productId
        proof.expectedPurchaser = order.userId
        let adapter = try desk.adapter(for: store)
        let purchase = try await desk.verify(proof, with: adapter)
        guard purchase.state == .active else { return .unpaid }
        // Paid: from here the buyer is owed the keys, whatever happens next (a refused rule, a failed write, a crash);
        // the order says so until it is credited (the portal shows it, the console credits or refunds it, the
        // reconciler takes it up).
        let paid = WebOrderEvent.paid(transactionId: purchase.transactionId)
        try await orders.moveWebOrder(store: store.rawValue, reference: reference, paid)
        try await judge(purchase, order)
        let redemption = try await seller.redeem(purchase, user: webUser(email: order.email))
        let credited = WebOrderEvent.credited(transactionId: purchase.transactionId)
        try await orders.moveWebOrder(store: store.rawValue, reference: reference, credited)
        return .credited(redemption.outcome.entry.amount)
    }

    /// The rules a paid web order meets: the store's order carries the number of packs (Stripe metadata, PayPal's
    /// item) and what it charged, which must be the order's own; then the key-pack rules every sale meets, except the
    /// listed unit price, which may have changed since the order was sold. A refusal moves the order to needing
    /// attention, naming the rule.
    func judge(_ purchase: VerifiedPurchase, _ order: WebOrder) async throws {
        let acceptance = PurchaseAcceptance([
            .environment(environments),
            .quantity(of: order.quantity),
            .total(order.total),
        ]).adding(seller.acceptance.rules.filter { $0.name != "unitPrice" })
        do throws(PurchaseRejection) { try acceptance.check(purchase) } catch {
            let rule = error.rule ?? "acceptance"
            try await orders.moveWebOrder(
                store: order.store,
                reference: order.reference,
                .refused(rule: rule, detail: error.message)
            )
            logger.warning(
                "a paid web order needs attention",
                metadata: ["store": "\(order.store)", "rule": "\(rule)", "detail": "\(error.message)"]
            )
        }
        try desk.check(purchase, under: acceptance)
    }

    /// Asks the stores about the web orders that are not settled and settles what they say, whatever the webhooks and
    /// the buyers' returns did: credits what was paid (once), expires what was never paid (the store's checkout
    /// expired or was voided, or ``WebOrderSchedule/giveUpAfter`` went by), and backs off on the rest
    /// (``WebOrderSchedule``). `all`: every unsettled order (what the server does when it starts: payments made while
    /// it was down), else those whose check is due.
    /// - Returns: how many orders were credited now.
    @discardableResult
    func reconcileOrders(all: Bool = false) async -> Int {
        let due: [WebOrder]
        do { due = try await orders.unsettledWebOrders(dueBy: all ? nil : clock()) } catch {
            logger.warning("web orders could not be read", metadata: ["error": "\(error.code.rawValue)"])
            return 0
        }
        var credited = 0
        for order in due where await reconcile(order) { credited += 1 }
        return credited
    }

    /// One order's check with its store: true when it was credited now.
    func reconcile(_ order: WebOrder) async -> Bool {
        var event = WebOrderEvent.unanswered
        do {
            switch try await settle(order) {
            case .credited: return true
            case .expired: event = .expired
            case .unpaid:
                event = clock().timeIntervalSince(order.createdAt) > WebOrderSchedule.giveUpAfter ? .expired : .unpaid
            }
        } catch let error as APIError where error.reason == StoreAdapterError.Code.notPaid.rawValue {
            // The store will never be paid for it (a voided PayPal order).
            event = .expired
        } catch {
            logger.notice(
                "a web order could not be settled now",
                metadata: ["store": "\(order.store)", "error": "\(String(reflecting: type(of: error)))"]
            )
        }
        do { try await orders.moveWebOrder(store: order.store, reference: order.reference, event) } catch {
            logger.warning(
                "a web order's check could not be recorded",
                metadata: ["store": "\(order.store)", "error": "\(String(reflecting: type(of: error)))"]
            )
        }
        return false
    }

    /// What a web order's store says of its payment.
    enum Payment: Sendable, Equatable {
        /// Paid: the proof to verify (a Checkout Session's PaymentIntent, a PayPal order, captured when the adapter
        /// verifies it).
        case paid(PurchaseProof)
        /// Not paid yet.
        case unpaid
        /// The store's checkout expired unpaid.
        case expired
    }

    /// What a web order's store says of its payment: a Stripe Checkout Session paid (its PaymentIntent), open or
    /// expired; a PayPal order (captured when the adapter verifies it).
    func payment(store: Store, reference: String) async throws -> Payment {
        switch store {
        case .stripe:
            guard let stripe = desk.adapters[.stripe] as? StripeAdapter else {
                throw PageError(.notFound, "Not available.")
            }
            let session = try await stripe.checkoutSession(id: reference)
            if session.status == "expired" { return .expired }
            guard session.paymentStatus == "paid", let intent = session.paymentIntent else { return .unpaid }
            return .paid(PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(intent)))
        case .paypal:
            return .paid(PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(reference)))
        default:
            throw PageError(.notFound, "This order is not known here.")
        }
    }
}

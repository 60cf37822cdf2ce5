import Foundation
import HTTPTypes
import Hummingbird
import KeyServerAPI
import Logging
import OpenCatCore
import StoreAdapters

/// The key web portal under `/portal`: password-less sign-in by a single-use emailed link, the wallet, licence
/// keys, buying packs with Stripe Checkout or PayPal, sharing and donating keys.
struct PortalController: WebController {
    let pages: WebPages
    let ledger: any WalletRepository & WebSessionRepository
    let checkout: WebCheckout
    let limits: RateLimits
    /// The portal's settings (`portal`): products, mail, lifetimes.
    let portalSettings: PortalSettings
    /// The key-server users (an email of one signs in as that user) and the key packs.
    let settings: ServerSettings
    let clock: @Sendable () -> Date
    let logger: Logger

    /// `/portal` (and the pages' assets): its own error page, then the session cookie's user.
    func addRoutes(to root: Router<ServerRequestContext>) {
        let router = root.group("/portal").add(middleware: WebPageErrorMiddleware(pages: pages, area: .portal))
            .add(middleware: WebSessionAuthenticator { request in try await portalSession(request).map(Caller.portal) })
        addSignInRoutes(to: router)
        addAccountRoutes(to: router)
    }

    /// Signing in by an emailed link, and out.
    func addSignInRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get { request, session in
            if portalUser(session) != nil { return redirect("/portal/wallet") }
            let (token, cookie) = try await formToken(request)
            return render(
                "portal-sign-in",
                portalContext("Sign in", csrf: token, notice: notice(request)),
                cookies: cookie.map { [$0] } ?? []
            )
        }
        router.post("sign-in") { request, context in
            try await requestSignInLink(request, client: limits.clientAddress(request, context))
        }
        router.get("sign-in/:token") { request, context in
            let token = context.parameters.get("token") ?? ""
            guard try await ledger.signInLinkIsUsable(tokenSHA256: Fingerprint.hex(of: token)) else {
                throw PageError(.gone, "This sign-in link was used or has expired. Ask for a new one.")
            }
            let (form, cookie) = try await formToken(request)
            var context = portalContext("Sign in", csrf: form)
            context["action"] = "/portal/sign-in/" + token
            return render("portal-confirm", context, cookies: cookie.map { [$0] } ?? [])
        }
        router.post("sign-in/:token") { request, context in
            try await signIn(request, token: context.parameters.get("token") ?? "")
        }
        router.post("sign-out") { request, session in
            let signedIn = try requirePortalUser(session)
            return try await signOut(
                request,
                csrf: signedIn.csrf,
                cookie: Self.portalCookie,
                path: "/",
                then: "/portal?notice=signed-out"
            )
        }
    }

    /// The signed-in account's pages: wallet, keys, buying, the stores' returns, sharing, donating, the pool.
    func addAccountRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("wallet") { request, session in try await walletPage(request, session) }
        router.get("keys") { request, session in try await keysPage(request, session) }
        router.get("buy") { request, session in try await buyPage(request, session) }
        router.post("buy") { request, session in
            let signedIn = try requirePortalUser(session)
            let fields = try await form(request)
            try checkCSRF(fields, expected: signedIn.csrf)
            guard let product = portalSettings.product(fields["product"] ?? "") else {
                throw PageError(.badRequest, "Choose a product.")
            }
            guard let quantity = Int(fields["quantity"] ?? "1"), (1...10).contains(quantity) else {
                throw PageError(.badRequest, "Buy 1 to 10 packs at a time.")
            }
            try await limits.limitStoreCalls("user:\(signedIn.user.userId)")
            let page = try await checkout.start(
                store: Store(rawValue: fields["store"] ?? ""),
                product: product,
                quantity: quantity,
                user: signedIn.user
            )
            return redirect(page.absoluteString)
        }
        router.get("return/stripe") { request, _ in
            try await returned(store: .stripe, reference: request.uri.queryParameters.get("session_id"))
        }
        router.get("return/paypal") { request, _ in
            try await returned(store: .paypal, reference: request.uri.queryParameters.get("token"))
        }
        router.get("share") { request, session in try await sharePage(request, session) }
        router.post("share") { request, session in
            try await shareOrDonate(request, session, donate: false)
        }
        router.post("share/cancel") { request, session in try await cancelShare(request, session) }
        router.post("donate") { request, session in
            try await shareOrDonate(request, session, donate: true)
        }
        router.get("pool") { request, session in
            let signedIn = try requirePortalUser(session)
            let pool = try await ledger.communityPool()
            var context = portalContext("Community pool", signedIn)
            context["total"] = String(pool.totalKeys)
            context["contributors"] = String(pool.contributors)
            return render("portal-pool", context)
        }
    }

    // MARK: Pages

    func walletPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        try await ledger.receivePending(signedIn.user)
        let balance = try await ledger.balance(of: signedIn.user.userId)
        let entries = try await ledger.entries(of: signedIn.user.userId, limit: 50)
        var context = portalContext("Your wallet", signedIn, notice: notice(request))
        context["balance"] = String(max(balance, 0))
        if balance < 0 { context["debt"] = String(-balance) }
        context["email"] = signedIn.user.email ?? ""
        let paid = try await checkout.orders.webOrders(of: signedIn.user.userId).filter { $0.orderState.isOwed }
        context["crediting"] = !paid.isEmpty
        context["paidOrders"] = paid.map { order -> [String: Any] in
            [
                "date": Self.displayDate(order.createdAt), "quantity": String(order.quantity),
                "price": "\(order.amount) \(order.currency.uppercased())", "store": Self.storeName(order.store),
                "status": Self.owedStatus(order.orderState),
            ]
        }
        context["history"] = entries.map { entry -> [String: Any] in
            [
                "date": Self.displayDate(entry.createdAt), "kind": Self.entryLabel(entry.kind),
                "amount": entry.amount > 0 ? "+\(entry.amount)" : "\(entry.amount)",
            ]
        }
        return render("portal-wallet", context)
    }

    func keysPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        let licences = try await ledger.licenses(of: signedIn.user.userId)
        let unlocks = try await ledger.unlockedFeatures(of: signedIn.user.userId)
        let revoked = Set(try await ledger.revokedLicenseKeys())
        var context = portalContext("Your licence keys", signedIn)
        context["licences"] = licences.map { licence -> [String: Any] in
            [
                "key": licence.keyValue, "plan": licence.plan, "date": Self.displayDate(licence.createdAt),
                "revoked": revoked.contains(licence.keyValue),
            ]
        }
        context["unlocks"] = unlocks.keys.sorted().map { app -> [String: Any] in
            ["app": app, "features": (unlocks[app] ?? []).sorted().joined(separator: ", ")]
        }
        return render("portal-keys", context)
    }

    func buyPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        var context = portalContext("Buy keys", signedIn, notice: notice(request))
        context["products"] = portalSettings.products.map { product -> [String: Any] in
            [
                "productId": product.productId, "name": product.name,
                "keys": String(settings.keyPacks[product.productId]?.keys ?? 0),
                "price": "\(product.amount) \(product.currency.uppercased())", "csrf": signedIn.csrf,
                "stripe": checkout.desk.adapters[.stripe] is StripeAdapter,
                "paypal": checkout.desk.adapters[.paypal] is PayPalAdapter,
            ]
        }
        return render("portal-buy", context)
    }

    /// The share page; `error` (with its status) when a share or donation was refused, shown on the form.
    func sharePage(
        _ request: Request,
        _ session: ServerRequestContext,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        try await ledger.receivePending(signedIn.user)
        var context = portalContext("Share keys", signedIn, notice: notice(request))
        if let error { context["error"] = error }
        context["balance"] = String(max(try await ledger.balance(of: signedIn.user.userId), 0))
        let pending = try await ledger.pendingShares(of: signedIn.user.userId)
        context["hasPending"] = !pending.isEmpty
        context["pending"] = pending.map { share -> [String: Any] in
            [
                "entry": share.entryId, "email": share.email, "keys": String(share.keys),
                "date": share.sharedAt.formatted(.iso8601), "csrf": signedIn.csrf,
            ]
        }
        context["shareNonce"] = Self.randomSecret()
        context["donateNonce"] = Self.randomSecret()
        return render("portal-share", context, status: status)
    }

    // MARK: Actions

    /// Sends a sign-in link, limited per client and email, per client, and in mails per email (one client's
    /// requests never stop the owner of the email asking from elsewhere).
    func requestSignInLink(_ request: Request, client: String) async throws -> Response {
        let portal = portalSettings
        let fields = try await form(request)
        try await checkFormCSRF(fields, request)
        guard let email = EmailAddress.normalized(fields["email"] ?? "") else {
            throw PageError(.badRequest, "Enter an email address.")
        }
        let signIn = settings.signInRateLimit
        if let wait = await limits.wait([
            ("signin:\(client):\(email)", signIn.perClientAndEmail), ("signin-client:\(client)", signIn.perClient),
            ("signin-mail:\(email)", signIn.perEmail),
        ]) {
            throw PageError(.tooManyRequests, "Too many links asked for. Try again in \(wait) seconds.")
        }
        let token = Self.randomSecret()
        try await ledger.createSignInLink(
            tokenSHA256: Fingerprint.hex(of: token),
            email: email,
            expiresAt: clock().addingTimeInterval(portal.linkLifetime)
        )
        let base = portal.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        do {
            try await portal.mail.send(
                PortalMail(
                    to: email,
                    subject: "Your OpenCat sign-in link",
                    link: Secret(base + "/portal/sign-in/" + token)
                )
            )
        } catch {
            logger.error("sign-in mail not sent", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw PageError(.serviceUnavailable, "The sign-in mail could not be sent. Try again later.")
        }
        // The same answer whether or not the email has bought anything: the page tells nobody who is a customer.
        var context = portalContext("Check your email")
        context["messageId"] = "link-sent"
        context["text"] = "If the address is right, a sign-in link is on its way. It works once, for 15 minutes."
        return render("message", context)
    }

    func signIn(_ request: Request, token: String) async throws -> Response {
        let portal = portalSettings
        try await checkFormCSRF(try await form(request), request)
        guard let email = try await ledger.useSignInLink(tokenSHA256: Fingerprint.hex(of: token)) else {
            throw PageError(.gone, "This sign-in link was used or has expired. Ask for a new one.")
        }
        let session = Self.randomSecret()
        try await ledger.createWebSession(
            idSHA256: Fingerprint.hex(of: session),
            session: WebSession(kind: "portal", subject: email, csrf: Self.randomSecret()),
            expiresAt: clock().addingTimeInterval(portal.sessionLifetime)
        )
        logger.info("portal sign-in")
        return redirect(
            "/portal/wallet",
            cookies: [sessionCookie(Self.portalCookie, session, path: "/", lifetime: portal.sessionLifetime)]
        )
    }

    /// The buyer is back from the store: credit the order now (or it already was by the webhook) and go on to the
    /// wallet from a page of this site (a redirect chain that began on the store's site would carry no
    /// SameSite=Strict cookie).
    func returned(store: Store, reference: String?) async throws -> Response {
        guard let reference, !reference.isEmpty, reference.utf8.count <= 255 else {
            throw PageError(.badRequest, "The store did not say which payment this is.")
        }
        let credited: Int64?
        do { credited = try await checkout.credit(store: store, reference: reference) } catch {
            // Paid but not credited (a refused rule, a failed write): the buyer is owed the keys and is told so, and
            // why when a rule holds them back; never "nothing more to do" while the keys are not in the wallet.
            guard
                let state = try await checkout.orders.webOrder(store: store.rawValue, reference: reference)?
                    .orderState, state.isOwed
            else { throw error }
            var context = portalContext("Paid — your keys are not in your wallet yet")
            context["messageId"] = "return-status"
            context["text"] = "The store confirmed your payment. " + Self.owedStatus(state) + "."
            context["link"] = ["href": "/portal/wallet", "label": "Go to your wallet"]
            return render("message", context, status: .accepted)
        }
        var context = portalContext(credited == nil ? "Payment pending" : "Thank you")
        context["messageId"] = "return-status"
        context["text"] =
            credited == nil
            ? "The store has not confirmed the payment yet. Your keys arrive as soon as it does."
            : "Your payment is confirmed and the keys are in your wallet."
        context["link"] = ["href": "/portal/wallet?notice=bought", "label": "Go to your wallet"]
        return render("message", context)
    }

    /// What the buyer reads of a paid order whose keys are not in the wallet.
    static func owedStatus(_ state: WebOrderState) -> String {
        guard case .needsAttention(_, let detail) = state else {
            return "paid, your keys are being credited and arrive in your wallet shortly"
        }
        return "paid, held for review (\(detail)): the shop has been told and credits your keys or refunds you"
    }

    func shareOrDonate(_ request: Request, _ session: ServerRequestContext, donate: Bool) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        let fields = try await form(request)
        try checkCSRF(fields, expected: signedIn.csrf)
        guard let amount = Int64(fields["amount"] ?? ""), amount > 0, amount <= 1_000_000 else {
            throw PageError(.badRequest, "Enter a number of keys.")
        }
        guard let nonce = fields["idempotency"], (20...100).contains(nonce.count) else {
            throw PageError(.badRequest, "Reload the page and try again.")
        }
        let recipient: String
        if donate {
            recipient = communityPoolAccount
        } else {
            guard let email = EmailAddress.normalized(fields["email"] ?? "") else {
                return try await sharePage(
                    request,
                    session,
                    error: "That is not an email address (name@example.com). Nothing was shared.",
                    status: .badRequest
                )
            }
            recipient = settings.users.user(email: email)?.userId ?? WalletController.pendingAccount(email)
        }
        do {
            _ = try await ledger.transfer(
                from: signedIn.user.userId,
                to: recipient,
                amount: amount,
                kind: donate ? "donation" : "share",
                receivedKind: donate ? "donation_received" : "received",
                idempotencyKey: "web:" + nonce
            )
        } catch {
            let refused = error.code == .insufficientBalance || error.code == .invalidInput
            guard refused else { throw error }
            throw PageError(.unprocessableContent, "You do not hold that many keys, or that is not a valid recipient.")
        }
        let waiting = recipient.hasPrefix(pendingAccountPrefix)
        return redirect("/portal/share?notice=" + (donate ? "donated" : waiting ? "shared-pending" : "shared"))
    }

    /// Takes back the keys of a share still waiting for its recipient (the sender's own, once).
    func cancelShare(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requirePortalUser(session)
        let fields = try await form(request)
        try checkCSRF(fields, expected: signedIn.csrf)
        let entry = fields["share"] ?? ""
        guard !entry.isEmpty, entry.utf8.count <= 100 else {
            throw PageError(.badRequest, "Reload the page and try again.")
        }
        let returned: Int64
        do { returned = try await ledger.cancelShare(entry, of: signedIn.user.userId) } catch {
            switch error.code {
            case .alreadyReceived:
                return try await sharePage(
                    request,
                    session,
                    error: "They have signed in and received those keys: there is nothing to take back.",
                    status: .conflict
                )
            case .notFound: throw PageError(.notFound, "That share is not one of yours.")
            default: throw error
            }
        }
        logger.info("share cancelled", metadata: ["keys": "\(returned)"])
        return redirect("/portal/share?notice=" + (returned > 0 ? "share-cancelled" : "share-not-cancelled"))
    }

    // MARK: Sessions

    /// A store's name as a buyer reads it.
    static func storeName(_ store: String) -> String {
        switch store {
        case "stripe": "card (Stripe)"
        case "paypal": "PayPal"
        default: store
        }
    }

    /// The signed-in portal user, or `nil`.
    func portalUser(_ session: ServerRequestContext) -> PortalUser? {
        guard case .portal(let user)? = session.identity else { return nil }
        return user
    }

    /// The signed-in portal user; otherwise the request is sent to the sign-in page.
    func requirePortalUser(_ session: ServerRequestContext) throws -> PortalUser {
        guard let user = portalUser(session) else { throw WebRedirect(location: "/portal") }
        return user
    }

    /// The portal user a session cookie names, if the session is live.
    func portalSession(_ request: Request) async throws -> PortalUser? {
        guard let id = request.cookies[Self.portalCookie]?.value, id.count >= 32,
            let session = try await ledger.webSession(idSHA256: Fingerprint.hex(of: id), kind: "portal")
        else { return nil }
        return PortalUser(user: checkout.webUser(email: session.subject), csrf: session.csrf)
    }

    func portalContext(_ title: String, _ signedIn: PortalUser? = nil, csrf: String? = nil, notice: String? = nil)
        -> [String: Any]
    {
        var context: [String: Any] = ["title": title, "area": "keys", "home": "/portal"]
        if let signedIn {
            context["signedIn"] = true
            context["signOutAction"] = "/portal/sign-out"
            context["csrf"] = signedIn.csrf
            context["nav"] = [
                "links": [
                    ["id": "nav-wallet", "href": "/portal/wallet", "label": "Wallet"],
                    ["id": "nav-keys", "href": "/portal/keys", "label": "Licence keys"],
                    ["id": "nav-buy", "href": "/portal/buy", "label": "Buy"],
                    ["id": "nav-share", "href": "/portal/share", "label": "Share"],
                    ["id": "nav-pool", "href": "/portal/pool", "label": "Pool"],
                ]
            ]
        }
        if let csrf { context["csrf"] = csrf }
        if let notice { context["notice"] = notice }
        return context
    }
}

/// A signed-in portal user (``WebSessionAuthenticator``).
public struct PortalUser: Sendable {
    /// The account (a configured user with that email, or the web account `web:<email>`).
    public var user: ServerUser
    /// The session's CSRF token, in every form.
    public var csrf: String
}

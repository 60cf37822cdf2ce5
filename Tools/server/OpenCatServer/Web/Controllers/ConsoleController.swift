import Foundation
import HTTPTypes
import Hummingbird
import KeyServerAPI
import Logging
import NIOCore
import OpenCatCore
import StoreAdapters

/// The operator console under `/console`: its own operator accounts (token hashes in the configuration), customer
/// search, a customer page across the five stores and the ledger, audited actions (promotional entitlements,
/// wallet adjustments as ledger entries, re-verification with the store), an overview with server-drawn SVG
/// charts, and the ledger as CSV.
struct ConsoleController: WebController {
    let pages: WebPages
    /// The console reads and corrects across the ledger: wallets, subscribers, redemptions, web sessions and
    /// orders, sales and the audit log.
    let ledger:
        any WalletRepository & SubscriberRepository & RedemptionRepository & WebSessionRepository & WebOrderRepository
            & SalesAuditRepository & WebhookRepository
    /// The adapters the console's store actions (refund, extend, re-verify) go through.
    let desk: PurchaseDesk
    /// What the store answered to an action is applied as a store event.
    let events: StoreEvents
    let checkout: WebCheckout
    let limits: RateLimits
    /// The operators (`portal.operators`) and session lifetimes.
    let portalSettings: PortalSettings
    /// The key-server users, the OpenCat API's entitlements, the sign-in limits.
    let settings: ServerSettings
    let clock: @Sendable () -> Date
    let logger: Logger

    /// `/console`: its own error page, then the session cookie's operator.
    func addRoutes(to root: Router<ServerRequestContext>) {
        let router = root.group("/console").add(middleware: WebPageErrorMiddleware(pages: pages, area: .console))
            .add(
                middleware: WebSessionAuthenticator { request in try await consoleOperator(request).map(Caller.console)
                }
            )
        router.get("sign-in") { request, _ in
            let (token, cookie) = try await formToken(request)
            return render(
                "console-sign-in",
                consoleContext("Operator sign-in", csrf: token),
                cookies: cookie.map { [$0] } ?? []
            )
        }
        router.post("sign-in") { request, context in
            try await operatorSignIn(request, client: limits.clientAddress(request, context))
        }
        router.post("sign-out") { request, session in
            let signedIn = try requireOperator(session)
            return try await signOut(
                request,
                csrf: signedIn.csrf,
                cookie: Self.consoleCookie,
                path: "/console",
                then: "/console/sign-in"
            )
        }
        router.get { request, session in try await overviewPage(request, session) }
        router.get("ledger.csv") { request, session in try await ledgerExport(request, session) }
        router.get("customers") { request, session in try await customersPage(request, session) }
        router.get("customers/:userId") { request, session in
            try await customerPage(request, session, userId: session.decoded("userId") ?? "")
        }
        router.post("customers/:userId/:action") { request, context in
            try await customerAction(
                request,
                context,
                userId: context.decoded("userId") ?? "",
                action: context.parameters.get("action") ?? ""
            )
        }
        addWebhookRoutes(to: router)
        addAnalyticsRoutes(to: router)
        addOrderRoutes(to: router)
        router.get("audit") { request, session in
            let signedIn = try requireOperator(session)
            var context = consoleContext("Audit log", signedIn)
            context["records"] = try await ledger.auditLog(limit: 500).map { record -> [String: Any] in
                [
                    "date": record.createdAt.formatted(.iso8601), "operator": record.operatorName,
                    "action": record.action, "subject": record.subject, "reason": record.reason,
                    "detail": record.detail ?? "",
                ]
            }
            return render("console-audit", context)
        }
    }

    // MARK: Sign-in

    /// Signs an operator in; attempts are limited per client and operator name, and per client, so wrong tokens from
    /// one address never lock the operator out from another.
    func operatorSignIn(_ request: Request, client: String) async throws -> Response {
        let portal = portalSettings
        let fields = try await form(request)
        try await checkFormCSRF(fields, request)
        let name = fields["operator"] ?? ""
        if let wait = await limits.wait([
            ("console:\(client):\(name)", settings.storeRateLimit),
            ("console-client:\(client)", settings.signInRateLimit.perClient),
        ]) {
            throw PageError(.tooManyRequests, "Too many attempts. Try again in \(wait) seconds.")
        }
        let hash = Fingerprint.hex(of: fields["token"] ?? "")
        guard let match = portal.operators.first(where: { $0.name == name }),
            ConstantTime.equals(Data(match.tokenSHA256.utf8), Data(hash.utf8))
        else {
            logger.notice("console sign-in refused")
            throw PageError(.unauthorized, "That operator name and token do not match.")
        }
        let session = Self.randomSecret()
        try await ledger.createWebSession(
            idSHA256: Fingerprint.hex(of: session),
            session: WebSession(kind: "console", subject: match.name, csrf: Self.randomSecret()),
            expiresAt: clock().addingTimeInterval(portal.consoleSessionLifetime)
        )
        logger.info("console sign-in", metadata: ["operator": "\(match.name)"])
        return redirect(
            "/console",
            cookies: [
                sessionCookie(Self.consoleCookie, session, path: "/console", lifetime: portal.consoleSessionLifetime)
            ]
        )
    }

    /// The signed-in operator; otherwise the request is sent to the sign-in page.
    func requireOperator(_ session: ServerRequestContext) throws -> ConsoleOperator {
        guard case .console(let signedIn)? = session.identity else { throw WebRedirect(location: "/console/sign-in") }
        return signedIn
    }

    /// The operator a console session cookie names, if it is a live session of a configured operator.
    func consoleOperator(_ request: Request) async throws -> ConsoleOperator? {
        guard let id = request.cookies[Self.consoleCookie]?.value, id.count >= 32,
            let session = try await ledger.webSession(idSHA256: Fingerprint.hex(of: id), kind: "console"),
            portalSettings.operators.contains(where: { $0.name == session.subject })
        else { return nil }
        return ConsoleOperator(name: session.subject, csrf: session.csrf)
    }

    func consoleContext(_ title: String, _ signedIn: ConsoleOperator? = nil, csrf: String? = nil) -> [String: Any] {
        var context: [String: Any] = ["title": title, "area": "console", "home": "/console"]
        if let signedIn {
            context["signedIn"] = true
            context["signOutAction"] = "/console/sign-out"
            context["csrf"] = signedIn.csrf
            context["nav"] = [
                "links": [
                    ["id": "nav-overview", "href": "/console", "label": "Overview"],
                    ["id": "nav-customers", "href": "/console/customers", "label": "Customers"],
                    ["id": "nav-orders", "href": "/console/orders", "label": "Orders needing attention"],
                    ["id": "nav-analytics", "href": "/console/analytics", "label": "Analytics"],
                    ["id": "nav-webhooks", "href": "/console/webhooks", "label": "Webhooks"],
                    ["id": "nav-audit", "href": "/console/audit", "label": "Audit log"],
                ]
            ]
        }
        if let csrf { context["csrf"] = csrf }
        return context
    }

    // MARK: Customers

    func customersPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        var context = consoleContext("Customers", signedIn)
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        context["query"] = query
        if !query.isEmpty {
            context["searched"] = true
            context["results"] = try await findCustomers(query).map { match -> [String: Any] in
                [
                    "userId": match.userId, "path": APIRequest.percentEncoded(match.userId),
                    "email": match.email ?? "", "match": match.reason,
                ]
            }
        }
        return render("console-customers", context)
    }

    /// Customers matching a query: a ledger user id, an email (configured users, web orders), a store transaction
    /// id, a web order id (Checkout Session, PayPal order), or a PaymentIntent id.
    func findCustomers(_ query: String) async throws -> [(userId: String, email: String?, reason: String)] {
        guard query.utf8.count <= 256 else { return [] }
        var found: [String: (email: String?, reason: String)] = [:]
        let lowered = query.lowercased()
        if lowered.contains("@") {
            if let user = settings.users.user(email: lowered) { found[user.userId] = (user.email, "email") }
            for order in try await ledger.webOrders(email: lowered) {
                found[order.userId] = (order.email, "email (web order)")
            }
        }
        let rows = try await ledger.customerMatches(query)
        for (user, reason) in rows where !user.hasPrefix(pendingAccountPrefix) && user != communityPoolAccount {
            if found[user] == nil { found[user] = (nil, reason) }
        }
        if let user = settings.users.userIds.first(where: { $0 == query }), found[user] == nil {
            found[user] = (nil, "user id")
        }
        return found.keys.sorted().map { key in
            let email =
                found[key]?.email ?? settings.users.email(of: key)
                ?? (key.hasPrefix("web:") ? String(key.dropFirst(4)) : nil)
            return (key, email, found[key]?.reason ?? "")
        }
    }

    /// 404 unless the account is a configured user or one the ledger knows: the console never acts on a mistyped id.
    func requireCustomer(_ userId: String) async throws {
        var known = settings.users.userIds.contains(userId)
        if !known, !userId.isEmpty, userId.utf8.count <= 256 { known = try await ledger.isKnownCustomer(userId) }
        guard known else {
            throw PageError(.notFound, "No customer has that id. Search for them by email or transaction.")
        }
    }

    func customerPage(_ request: Request, _ session: ServerRequestContext, userId: String) async throws -> Response {
        let signedIn = try requireOperator(session)
        try await requireCustomer(userId)
        let now = clock()
        var context = consoleContext("Customer \(userId)", signedIn)
        context["notice"] = notice(request)
        context["path"] = APIRequest.percentEncoded(userId)
        context["email"] =
            settings.users.email(of: userId) ?? (userId.hasPrefix("web:") ? String(userId.dropFirst(4)) : "")
        context["balance"] = String(try await ledger.balance(of: userId))
        let subscriber = try await ledger.subscriber(userId)
        let promotions = try await ledger.promotionalEntitlements(of: userId)
        context["entitlements"] = customerEntitlements(subscriber, promotions, userId: userId, signedIn, now: now)
        context["purchases"] = try await customerPurchases(subscriber, userId: userId, signedIn)
        try await addCustomerHistory(to: &context, userId: userId)
        return render("console-customer", context)
    }

    /// A customer's entitlements: from store transactions (by the configured map) and promotional grants.
    func customerEntitlements(
        _ subscriber: (firstSeenAt: Date, transactions: [TransactionInfo]),
        _ promotions: [PromotionalEntitlement],
        userId: String,
        _ signedIn: ConsoleOperator,
        now: Date
    ) -> [[String: Any]] {
        var entitlements: [[String: Any]] = []
        for transaction in subscriber.transactions {
            for name in settings.openCat?.entitlements[transaction.productId] ?? [] {
                entitlements.append([
                    "name": name, "source": transaction.store.rawValue,
                    "expires": transaction.expirationDate.map { $0.formatted(.iso8601) } ?? "never",
                    "state": transaction.status.rawValue,
                ])
            }
        }
        for promotion in promotions {
            let info = promotion.transaction(now: now)
            entitlements.append([
                "name": promotion.entitlement, "source": "promotional (\(promotion.grantedBy): \(promotion.reason))",
                "expires": promotion.expiresAt.formatted(.iso8601),
                "state": promotion.revokedAt != nil ? "revoked" : info.status.rawValue,
                "promotionId": info.status == .active ? promotion.id : "", "csrf": signedIn.csrf,
                "path": APIRequest.percentEncoded(userId),
            ])
        }
        return entitlements
    }

    /// A customer's purchases across the stores, the web orders and the key-pack redemptions, with the actions each
    /// offers (re-verify, refund, extend).
    func customerPurchases(
        _ subscriber: (firstSeenAt: Date, transactions: [TransactionInfo]),
        userId: String,
        _ signedIn: ConsoleOperator
    ) async throws
        -> [[String: Any]]
    {
        let path = APIRequest.percentEncoded(userId)
        func row(
            _ store: String,
            _ transactionId: String,
            _ product: String,
            _ date: String,
            _ state: String,
            _ reverifiable: Bool,
            extendable: Bool = false
        ) -> [String: Any] {
            [
                "store": store, "transactionId": transactionId, "productId": product, "date": date, "state": state,
                "reverifiable": reverifiable, "refundable": refundable(store, transactionId),
                // One refund key per page shown: the same form sent twice refunds once, a new page refunds again.
                "refundKey": "opencat-console-" + UUID().uuidString.lowercased(),
                "extendable": extendable && self.extendable(store), "csrf": signedIn.csrf, "path": path,
            ]
        }
        var purchases = subscriber.transactions.map { transaction in
            row(
                transaction.store.rawValue,
                transaction.transactionId,
                transaction.productId,
                transaction.purchaseDate.formatted(.iso8601),
                transaction.status.rawValue,
                [.stripe, .paypal].contains(transaction.store),
                extendable: transaction.expirationDate != nil
            )
        }
        let redemptions = try await ledger.redemptions(of: userId)
        let refunded = Set(redemptions.filter(\.refunded).map { "\($0.store):\($0.transactionId)" })
        for order in try await ledger.webOrders(of: userId) {
            let isRefunded = order.transactionId.map { refunded.contains("\(order.store):\($0)") } ?? false
            var line = row(
                order.store,
                order.transactionId ?? order.reference,
                "\(order.productId) × \(order.quantity) (web, \(order.amount) \(order.currency))",
                order.createdAt.formatted(.iso8601),
                isRefunded ? "refunded" : Self.orderStatus(order.orderState),
                order.transactionId != nil
            )
            if isRefunded { line["refundable"] = false }
            // Paid and not credited: the operator credits it (once, whatever the number of clicks) or refunds it.
            if order.orderState.isOwed {
                line["creditable"] = true
                line["reference"] = order.reference
            }
            purchases.append(line)
        }
        for redemption in redemptions
        where !purchases.contains(where: { ($0["transactionId"] as? String) == redemption.transactionId }) {
            var line = row(
                redemption.store,
                redemption.transactionId,
                "key pack",
                "",
                redemption.refunded ? "refunded" : "redeemed",
                redemption.store == "stripe"
            )
            if redemption.refunded { line["refundable"] = false }
            purchases.append(line)
        }
        return purchases
    }

    /// A customer's last ledger entries, refunds among them, and licences (by plan and date: the key is theirs).
    func addCustomerHistory(to context: inout [String: Any], userId: String) async throws {
        let entries = try await ledger.entries(of: userId, limit: 200)
        context["ledger"] = entries.map { entry -> [String: Any] in
            [
                "date": entry.createdAt.formatted(.iso8601), "kind": entry.kind, "reference": entry.reference ?? "",
                "amount": entry.amount > 0 ? "+\(entry.amount)" : "\(entry.amount)",
            ]
        }
        context["refunds"] = entries.filter {
            ["refund", "clawback", "refund_debt"].contains($0.kind) || $0.kind.hasPrefix("refund")
        }
        .map { entry -> [String: Any] in
            [
                "date": entry.createdAt.formatted(.iso8601), "kind": entry.kind, "amount": "\(entry.amount)",
                "reference": entry.reference ?? "",
            ]
        }
        // Licences are listed by plan and date only: the key itself is the customer's secret.
        let revoked = Set(try await ledger.revokedLicenseKeys())
        context["licences"] = try await ledger.licenses(of: userId).map { licence -> [String: Any] in
            [
                "plan": licence.plan, "store": licence.store, "date": licence.createdAt.formatted(.iso8601),
                "revoked": revoked.contains(licence.keyValue),
            ]
        }
    }

    func customerAction(_ request: Request, _ session: ServerRequestContext, userId: String, action: String)
        async throws -> Response
    {
        let signedIn = try requireOperator(session)
        let fields = try await form(request)
        try checkCSRF(fields, expected: signedIn.csrf)
        let reason = (fields["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= 500 else { throw PageError(.badRequest, "Give a reason.") }
        try await requireCustomer(userId)
        let page = "/console/customers/" + APIRequest.percentEncoded(userId)
        switch action {
        case "grant":
            try await grantPromotion(fields, userId: userId, by: signedIn, reason: reason)
            return redirect(page + "?notice=granted")
        case "revoke":
            let revoked = try await ledger.revokePromotionalEntitlement(
                id: fields["promotion"] ?? "",
                appUserId: userId,
                by: signedIn.name,
                reason: reason
            )
            return redirect(page + (revoked ? "?notice=revoked" : "?notice=not-revoked"))
        case "adjust":
            guard let amount = Int64(fields["amount"] ?? ""), amount != 0 else {
                throw PageError(.badRequest, "Enter a non-zero number of keys.")
            }
            _ = try await ledger.adjustWallet(userId: userId, amount: amount, by: signedIn.name, reason: reason)
            return redirect(page + "?notice=adjusted")
        case "credit":
            let notice = try await creditOrder(fields, userId: userId, by: signedIn, reason: reason)
            return redirect(page + "?notice=\(notice)")
        case "refund", "reverify", "extend":
            let notice = try await storeAction(action, fields, userId: userId, by: signedIn, reason: reason)
            return redirect(page + "?notice=\(notice)")
        default:
            throw PageError(.notFound, "No such action.")
        }
    }

    /// Grants a promotional entitlement for 1…3650 days.
    /// Credits a customer's paid web order (the same path as the store's return and webhook: once), audited.
    func creditOrder(_ fields: [String: String], userId: String, by signedIn: ConsoleOperator, reason: String)
        async throws -> String
    {
        let store = Store(rawValue: fields["store"] ?? "")
        let reference = fields["reference"] ?? ""
        guard let order = try await ledger.webOrder(store: store.rawValue, reference: reference),
            order.userId == userId
        else { throw PageError(.notFound, "That order is not this customer's.") }
        let credited: Int64?
        do { credited = try await checkout.credit(store: store, reference: reference) } catch {
            // A rule refused it: say which, here and on the orders page.
            guard
                case .needsAttention(let rule, let detail) = try await ledger.webOrder(
                    store: store.rawValue,
                    reference: reference
                )?.orderState
            else { throw error }
            throw PageError(.unprocessableContent, "Not credited: the rule \(rule) refused it (\(detail)).")
        }
        try await ledger.audit(
            AuditRecord(
                operatorName: signedIn.name,
                action: "credit_order",
                subject: userId,
                reason: reason,
                detail: "\(store.rawValue) \(reference): \(credited.map { "\($0) keys" } ?? "not paid")",
                createdAt: clock()
            )
        )
        return credited == nil ? "not-credited" : "credited"
    }

    /// An order's state as the console says it: paid orders name what holds their keys back.
    static func orderStatus(_ state: WebOrderState) -> String {
        switch state {
        case .paid: "paid, not credited"
        case .needsAttention(let rule, let detail): "paid, needs attention: \(rule) (\(detail))"
        default: state.rawValue
        }
    }

    func grantPromotion(_ fields: [String: String], userId: String, by signedIn: ConsoleOperator, reason: String)
        async throws
    {
        let entitlement = (fields["entitlement"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !entitlement.isEmpty, entitlement.count <= 100,
            entitlement.allSatisfy({ $0.isLetter || $0.isNumber || "._-:".contains($0) })
        else { throw PageError(.badRequest, "An entitlement id is letters, digits and . _ - :") }
        guard let days = Int(fields["days"] ?? ""), (1...3650).contains(days) else {
            throw PageError(.badRequest, "Grant for 1 to 3650 days.")
        }
        let now = clock()
        try await ledger.grantPromotionalEntitlement(
            PromotionalEntitlement(
                id: "promo_" + UUID().uuidString.lowercased(),
                appUserId: userId,
                entitlement: entitlement,
                startsAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(days) * 86_400),
                grantedBy: signedIn.name,
                reason: reason
            )
        )
    }

    /// A refund, re-verification or extension with the purchase's store, audited with the store's answer; the
    /// notice the customer page shows.
    func storeAction(
        _ action: String,
        _ fields: [String: String],
        userId: String,
        by signedIn: ConsoleOperator,
        reason: String
    ) async throws -> String {
        let store = Store(rawValue: fields["store"] ?? "")
        let transaction = fields["transaction"] ?? ""
        var detail = "\(store.rawValue) \(transaction)"
        let outcome: String
        let notice: String
        switch action {
        case "refund":
            outcome = try await operatorRefund(
                store: store,
                transaction: transaction,
                amount: fields["amount"] ?? "",
                key: fields["refundKey"] ?? ""
            )
            notice = outcome.hasPrefix("refused") ? "refused" : "refunded"
        case "reverify":
            outcome = try await reverify(store: store, transaction: transaction)
            notice = "reverified"
        default:
            guard let days = Int(fields["days"] ?? ""), (1...90).contains(days) else {
                throw PageError(.badRequest, "Extend by 1 to 90 days.")
            }
            outcome = try await operatorExtend(store: store, transaction: transaction, days: days)
            detail += " +\(days) days"
            notice = outcome.hasPrefix("refused") ? "refused" : "extended"
        }
        try await ledger.audit(
            AuditRecord(
                operatorName: signedIn.name,
                action: action,
                subject: userId,
                reason: reason,
                detail: "\(detail): \(outcome)",
                createdAt: clock()
            )
        )
        return notice
    }

    /// Whether the console offers a refund of a purchase: its store's adapter performs refunds, and (Stripe) the
    /// purchase is a PaymentIntent.
    func refundable(_ store: String, _ transaction: String) -> Bool {
        // Google Play refunds an order and reads it again by its purchase token, which the server does not keep
        // (`opencat store refund google` takes it).
        guard store != Store.google.rawValue,
            let operations = desk.adapters[Store(rawValue: store)] as? any StoreOperations,
            operations.support(for: .refund).isSupported
        else { return false }
        return store != "stripe" || transaction.hasPrefix("pi_")
    }

    /// Refunds a purchase at its store (in full, or the exact amount in the purchase's currency), then applies the
    /// store's answer to the ledger through the notifications' path: the keys go back once, and the store's own
    /// refund notification that follows takes nothing more (refunds apply by the amount refunded so far).
    func operatorRefund(store: Store, transaction: String, amount: String, key: String) async throws -> String {
        guard let operations = desk.adapters[store] as? any StoreOperations,
            operations.support(for: .refund).isSupported
        else {
            throw PageError(.badRequest, "Refunds of \(store.rawValue) purchases are made in the store's own console.")
        }
        var money: Money?
        let trimmed = amount.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty {
            // A partial amount is in the payment's own currency (Stripe is the store whose refunds run here).
            guard store == .stripe else { throw PageError(.badRequest, "Only full refunds of this store.") }
            let current = try await operations.verify(
                PurchaseProof(store: store, kind: .stripePaymentIntent, token: Secret(transaction))
            )
            guard let currency = current.price?.currency, let value = Money(decimalString: trimmed, currency: currency),
                value.amount > 0
            else { throw PageError(.badRequest, "Enter the amount to refund, e.g. 1.50, or leave it empty.") }
            money = value
        }
        let purchase: VerifiedPurchase
        do {
            // The form's key makes a double submit harmless; a missing or odd one falls back to the adapter's default.
            let formKey =
                key.hasPrefix("opencat-console-") && key.count <= 64
                    && key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
                ? key : nil
            purchase = try await operations.refund(
                StoreRefundRequest(transactionId: transaction, amount: money, idempotencyKey: formKey)
            )
        } catch let error as StoreAdapterError {
            return "refused (\(error.code.rawValue))"
        }
        try await events.apply("operator", "refund:" + UUID().uuidString, purchase: purchase)
        return "\(purchase.state.rawValue)\(purchase.refundedAmount.map { " \($0.amount) \($0.currency)" } ?? "")"
    }

    /// Whether the console offers extending a subscription of this store: its adapter extends, and the store's
    /// purchases are read again by the transaction id the ledger keeps (the App Store; Google's need the purchase
    /// token, which the server does not keep: `opencat store extend google`).
    func extendable(_ store: String) -> Bool {
        guard store == Store.apple.rawValue, let operations = desk.adapters[.apple] as? any StoreOperations else {
            return false
        }
        return operations.support(for: .extendSubscription).isSupported
    }

    /// Extends a subscription at its store, then applies the store's answer through the notifications' path: the
    /// entitlement's expiry becomes the store's new one, so the store's own notification of the extension that
    /// follows (`RENEWAL_EXTENDED`) changes nothing more. The request identifier is derived from the transaction and
    /// the day, so a double-submitted form extends once.
    func operatorExtend(store: Store, transaction: String, days: Int) async throws -> String {
        guard extendable(store.rawValue), let operations = desk.adapters[store] as? any StoreOperations else {
            throw PageError(.badRequest, "Subscriptions of \(store.rawValue) are extended in the store's own console.")
        }
        guard !transaction.isEmpty, transaction.count <= 64, transaction.allSatisfy(\.isNumber) else {
            throw PageError(.badRequest, "An App Store subscription is extended by its transaction id.")
        }
        let day = Int(clock().timeIntervalSince1970 / 86_400)
        let seed = Fingerprint.hex(of: "extend\u{0}\(transaction)\u{0}\(days)\u{0}\(day)")
        let request = Self.uuid(fromHex: seed)
        let proof = PurchaseProof(
            store: store,
            kind: .appleTransactionId,
            token: Secret(transaction),
            transactionId: transaction
        )
        let purchase: VerifiedPurchase
        do {
            purchase = try await operations.extendSubscription(
                proof,
                by: StoreExtension(days: days, reason: .customerSatisfaction, requestIdentifier: request)
            )
        } catch let error as StoreAdapterError {
            return "refused (\(error.code.rawValue))"
        }
        try await events.apply("operator", "extend:" + request, purchase: purchase)
        return "\(purchase.state.rawValue) until \(purchase.expirationDate.map { $0.formatted(.iso8601) } ?? "?")"
    }

    /// A UUID (version-4 layout) from 32 hex digits.
    static func uuid(fromHex hex: String) -> String {
        var digits = Array(hex.prefix(32))
        digits[12] = "4"
        digits[16] = "8"
        let text = String(digits)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                text[
                    text.index(
                        text.startIndex,
                        offsetBy: range.lowerBound
                    )..<text.index(text.startIndex, offsetBy: range.upperBound)
                ]
            )
        }
        return parts.joined(separator: "-")
    }

    /// Reads a purchase from its store now and applies what it says (a refund claws back, as a notification would).
    func reverify(store: Store, transaction: String) async throws -> String {
        guard let adapter = desk.adapters[store] else { throw PageError(.badRequest, "That store is not configured.") }
        var proof: PurchaseProof
        switch store {
        case .stripe:
            guard transaction.hasPrefix("pi_") else {
                throw PageError(.badRequest, "A Stripe payment is re-read by its PaymentIntent.")
            }
            proof = PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret(transaction))
        case .paypal:
            let orders = try await ledger.webOrders(store: "paypal", referenceOrTransaction: transaction)
            guard let order = orders.first else {
                throw PageError(.badRequest, "Only PayPal orders made here can be re-read.")
            }
            proof = PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(order.reference))
        default:
            throw PageError(
                .badRequest,
                "\(store.rawValue) purchases are re-read from the store's notifications; their proof is not kept."
            )
        }
        let purchase: VerifiedPurchase
        do { purchase = try await adapter.verify(proof) } catch {
            return "refused (\((error as? StoreAdapterError)?.code.rawValue ?? "unknown"))"
        }
        try await events.apply("reverify", "reverify:" + UUID().uuidString, purchase: purchase)
        return purchase.state.rawValue
    }
}

/// A signed-in operator (``WebSessionAuthenticator``).
public struct ConsoleOperator: Sendable {
    /// The operator's name in `portal.operators`.
    public var name: String
    /// The session's CSRF token, in every form.
    public var csrf: String
}

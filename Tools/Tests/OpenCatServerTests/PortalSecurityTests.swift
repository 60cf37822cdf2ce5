import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatCore
import OpenCatServer
import Testing

/// The web portal's and the operator console's security, over real HTTP on loopback, on SQLite and PostgreSQL:
/// CSRF on every form, single-use expiring sign-in links, sessions that reach only their own wallet and never the
/// console, cookie and page headers, no secret in any page, audited operator actions.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PortalSecurityTests {
    /// The ways a form can arrive without its session's token: none, made up, empty, another session's.
    static func forgeries(_ fields: [String: String], other: String) -> [(String, [String: String])] {
        var missing = fields
        missing["csrf"] = nil
        var wrong = fields
        wrong["csrf"] = "forged-" + String(repeating: "x", count: 40)
        var empty = fields
        empty["csrf"] = ""
        var foreign = fields
        foreign["csrf"] = other
        return [("no", missing), ("a made-up", wrong), ("an empty", empty), ("another session's", foreign)]
    }

    @Test(arguments: Backend.allCases)
    func formsWithoutTheirCSRFTokenAreRefused(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            _ = try await portal.buyApplePack(user: 1, transaction: "4100000000000001")
            let alice = try await portal.signIn(PortalHarness.alice)
            let bob = try await portal.signIn(PortalHarness.bob)
            let ops = try await portal.operatorSignIn()
            let bobCSRF = try #require(try await bob.get("/portal/wallet").html.fields(form: "sign-out")["csrf"])
            let sharePage = try await alice.get("/portal/share")
            let aliceCSRF = try #require(sharePage.html.fields(form: "share-form")["csrf"])
            #expect(aliceCSRF != bobCSRF)

            // Portal forms: share, donate, buy, sign-out.
            let buyPage = try await alice.get("/portal/buy")
            let portalForms: [(String, String, [String: String])] = [
                (
                    "share", "/portal/share",
                    sharePage.html.fields(form: "share-form").merging(["email": PortalHarness.bob, "amount": "3"]) {
                        $1
                    }
                ),
                (
                    "donate", "/portal/donate",
                    sharePage.html.fields(form: "donate-form").merging(["amount": "3"]) { $1 }
                ),
                (
                    "buy", "/portal/buy",
                    buyPage.html.fields(formContaining: "value=\"\(PortalHarness.product)\"").merging([
                        "store": "stripe"
                    ]) { $1 }
                ),
                ("sign-out", "/portal/sign-out", buyPage.html.fields(form: "sign-out")),
            ]
            for (name, path, fields) in portalForms {
                #expect(fields["csrf"] == aliceCSRF, "\(name)")
                for (forgery, sent) in Self.forgeries(fields, other: bobCSRF) {
                    let answer = try await alice.post(path, sent)
                    #expect(answer.status == 403, "\(name) with \(forgery) token")
                    expectPageHeaders(answer, "\(name) refused")
                }
            }
            // Nothing moved, and alice is still signed in.
            #expect(try await portal.ledger.balance(of: "user-1") == 12)
            #expect(try await portal.ledger.balance(of: "user-2") == 0)
            #expect(try await portal.ledger.communityPool().totalKeys == 1)
            #expect(try await alice.get("/portal/wallet").html.text(id: "balance") == "12")
            // The same share with its own token goes through (the forms above were otherwise right).
            let shared = try await alice.post("/portal/share", portalForms[0].2)
            #expect(shared.status == 303)
            #expect(try await portal.ledger.balance(of: "user-2") == 3)

            // The sign-in request: its token is the anonymous form cookie's.
            let visitor = portal.browser()
            let signInFields = try await visitor.get("/portal").html.fields(form: "sign-in")
                .merging(["email": "carol@example.com"]) { $1 }
            let mails = portal.mailbox.count
            for (forgery, sent) in Self.forgeries(signInFields, other: aliceCSRF) {
                let answer = try await visitor.post("/portal/sign-in", sent)
                #expect(answer.status == 403, "sign-in request with \(forgery) token")
            }
            // A cross-site post carries the right-looking token but no form cookie.
            let crossSite = try await portal.browser().post("/portal/sign-in", signInFields)
            #expect(crossSite.status == 403)
            // A form cookie the client chose (planted by a neighbouring site), with the same value in the form: the
            // server did not issue it, so it is refused; a page served with it issues a signed one instead.
            let planted = portal.browser()
            let chosen = String(repeating: "a", count: 43)
            planted.setCookie("opencat_form", chosen)
            var plantedFields = signInFields
            plantedFields["csrf"] = chosen
            #expect(try await planted.post("/portal/sign-in", plantedFields).status == 403)
            let reissued = try await planted.get("/portal")
            #expect(planted.cookie("opencat_form") != chosen)
            #expect(reissued.html.fields(form: "sign-in")["csrf"] == planted.cookie("opencat_form"))
            #expect(portal.mailbox.count == mails)
            let token = try await portal.requestLink("carol@example.com", in: visitor)

            // Confirming a link: refused without the token, and the link is not used up by the refusal.
            let confirm = try await visitor.get("/portal/sign-in/" + token)
            for (forgery, sent) in Self.forgeries(confirm.html.fields(form: "confirm"), other: aliceCSRF) {
                let answer = try await visitor.post("/portal/sign-in/" + token, sent)
                #expect(answer.status == 403, "sign-in confirmation with \(forgery) token")
                #expect(answer.cookie("opencat_portal") == nil)
            }
            let confirmed = try await visitor.post("/portal/sign-in/" + token, confirm.html.fields(form: "confirm"))
            #expect(confirmed.status == 303)

            // Console forms: grant, adjust, revoke (and the operator sign-in).
            let customer = try await ops.get("/console/customers/user-1")
            let consoleCSRF = try #require(customer.html.fields(form: "grant-form")["csrf"])
            let grant = customer.html.fields(form: "grant-form")
                .merging(["entitlement": "pro", "days": "7", "reason": "support case 7"]) { $1 }
            let adjust = customer.html.fields(form: "adjust-form").merging(["amount": "5", "reason": "goodwill"]) {
                $1
            }
            for (name, fields) in [("grant", grant), ("adjust", adjust)] {
                #expect(fields["csrf"] == consoleCSRF)
                for (forgery, sent) in Self.forgeries(fields, other: aliceCSRF) {
                    let answer = try await ops.post("/console/customers/user-1/\(name)", sent)
                    #expect(answer.status == 403, "\(name) with \(forgery) token")
                    expectPageHeaders(answer, "\(name) refused")
                }
            }
            #expect(try await portal.ledger.promotionalEntitlements(of: "user-1").isEmpty)
            #expect(try await portal.ledger.auditLog(limit: 100).isEmpty)
            #expect(try await portal.ledger.balance(of: "user-1") == 9)
            // With their token they work.
            #expect(try await ops.post("/console/customers/user-1/grant", grant).status == 303)
            #expect(try await ops.post("/console/customers/user-1/adjust", adjust).status == 303)
            #expect(try await portal.ledger.balance(of: "user-1") == 14)
            let granted = try await ops.get("/console/customers/user-1")
            let revoke = granted.html.fields(formContaining: "name=\"promotion\"")
                .merging(["reason": "case closed"]) { $1 }
            #expect(revoke["promotion"]?.hasPrefix("promo_") == true)
            for (forgery, sent) in Self.forgeries(revoke, other: aliceCSRF) {
                let answer = try await ops.post("/console/customers/user-1/revoke", sent)
                #expect(answer.status == 403, "revoke with \(forgery) token")
            }
            #expect(try await portal.ledger.promotionalEntitlements(of: "user-1").first?.revokedAt == nil)
            #expect(try await ops.post("/console/customers/user-1/revoke", revoke).status == 303)
            #expect(try await portal.ledger.promotionalEntitlements(of: "user-1").first?.revokedAt != nil)

            let operatorVisitor = portal.browser()
            var operatorFields = try await operatorVisitor.get("/console/sign-in").html.fields(form: "operator-sign-in")
            operatorFields["operator"] = PortalHarness.operatorName
            operatorFields["token"] = PortalHarness.operatorToken
            for (forgery, sent) in Self.forgeries(operatorFields, other: aliceCSRF) {
                let answer = try await operatorVisitor.post("/console/sign-in", sent)
                #expect(answer.status == 403, "operator sign-in with \(forgery) token")
                #expect(answer.cookie("opencat_console") == nil)
            }
        }
    }

    /// Sign-in limits no stranger can turn against a user: requests for one email from one address run out there,
    /// the owner asking from another address still gets a link, and wrong operator tokens from one address never
    /// lock the operator out from another.
    @Test(arguments: Backend.allCases)
    func aStrangersSignInAttemptsNeverLockTheOwnerOut(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let stranger = portal.browser(from: "203.0.113.7")
            let fields = try await stranger.get("/portal").html.fields(form: "sign-in")
                .merging(["email": PortalHarness.alice]) { $1 }
            var statuses: [Int] = []
            for _ in 0..<31 { statuses.append(try await stranger.post("/portal/sign-in", fields).status) }
            #expect(statuses.contains(429) && statuses.allSatisfy { $0 == 200 || $0 == 429 })
            #expect(portal.mailbox.count <= 5)
            _ = try await portal.requestLink(PortalHarness.alice, in: portal.browser(from: "198.51.100.20"))

            let guesser = portal.browser(from: "203.0.113.8")
            var wrong = try await guesser.get("/console/sign-in").html.fields(form: "operator-sign-in")
            wrong["operator"] = PortalHarness.operatorName
            wrong["token"] = "not-the-operator-token"
            var answers: [Int] = []
            for _ in 0..<31 { answers.append(try await guesser.post("/console/sign-in", wrong).status) }
            #expect(answers.last == 429 && answers.allSatisfy { $0 == 401 || $0 == 429 })
            _ = try await portal.operatorSignIn(in: portal.browser(from: "198.51.100.21"))
        }
    }

    @Test(arguments: Backend.allCases)
    func signInLinksWorkOnceAndFor15Minutes(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let browser = portal.browser()
            let token = try await portal.requestLink(PortalHarness.alice, in: browser)
            // Opening the link (twice, as link previews and mail scanners do) does not use it.
            var confirm = try await browser.get("/portal/sign-in/" + token)
            for _ in 0..<2 {
                confirm = try await browser.get("/portal/sign-in/" + token)
                #expect(confirm.status == 200)
                #expect(confirm.html.contains(id: "confirm-sign-in"))
                #expect(confirm.cookie("opencat_portal") == nil)
                expectPageHeaders(confirm, "confirmation page")
            }
            let fields = confirm.html.fields(form: "confirm")
            let signedIn = try await browser.post("/portal/sign-in/" + token, fields)
            #expect(signedIn.status == 303)
            #expect(signedIn.location == "/portal/wallet")
            #expect(try await browser.get("/portal/wallet").status == 200)

            // Used: refused on the confirmation page and on every further post, from any browser.
            let reopened = try await browser.get("/portal/sign-in/" + token)
            #expect(reopened.status == 410)
            #expect(reopened.html.contains(id: "error-message"))
            expectPageHeaders(reopened, "used link")
            let again = try await browser.post("/portal/sign-in/" + token, fields)
            #expect(again.status == 410)
            #expect(again.cookie("opencat_portal") == nil)
            let thief = portal.browser()
            let thiefFields = try await thief.get("/portal").html.fields(form: "sign-in")
            let stolen = try await thief.post("/portal/sign-in/" + token, thiefFields)
            #expect(stolen.status == 410)
            #expect(thief.cookie("opencat_portal") == nil)

            // Expired: a link opened (not used) in time and confirmed after 15 minutes is refused.
            let late = portal.browser()
            let lateToken = try await portal.requestLink(PortalHarness.bob, in: late)
            let lateFields = try await late.get("/portal/sign-in/" + lateToken).html.fields(form: "confirm")
            portal.clock.advance(15 * 60 + 1)
            #expect(try await late.get("/portal/sign-in/" + lateToken).status == 410)
            let expired = try await late.post("/portal/sign-in/" + lateToken, lateFields)
            #expect(expired.status == 410)
            #expect(late.cookie("opencat_portal") == nil)

            // A link used a second before its 15 minutes are up still works.
            let early = portal.browser()
            let earlyToken = try await portal.requestLink(PortalHarness.bob, in: early)
            portal.clock.advance(15 * 60 - 1)
            let earlyFields = try await early.get("/portal/sign-in/" + earlyToken).html.fields(form: "confirm")
            #expect(try await early.post("/portal/sign-in/" + earlyToken, earlyFields).status == 303)
            #expect(try await early.get("/portal/wallet").html.text(id: "balance") == "0")

            // Several browsers confirming one link at once: exactly one is signed in.
            let raced = try await portal.requestLink("carol@example.com", in: portal.browser())
            var racers: [(PortalBrowser, [String: String])] = []
            for _ in 0..<6 {
                let racer = portal.browser()
                racers.append((racer, try await racer.get("/portal/sign-in/" + raced).html.fields(form: "confirm")))
            }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for (racer, fields) in racers {
                    group.addTask {
                        let answer = try await racer.post("/portal/sign-in/" + raced, fields)
                        return (answer.status, racer.cookie("opencat_portal") != nil)
                    }
                }
                var outcomes: [(Int, Bool)] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0.0 == 303 && $0.1 }.count == 1, "\(outcomes)")
            #expect(outcomes.filter { $0.0 == 410 && !$0.1 }.count == outcomes.count - 1, "\(outcomes)")

            // A token nobody was sent.
            #expect(try await early.get("/portal/sign-in/" + String(repeating: "A", count: 43)).status == 410)
        }
    }

    @Test(arguments: Backend.allCases)
    func aPortalSessionReachesOnlyItsOwnWalletAndNeverTheConsole(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            _ = try await portal.buyApplePack(user: 1, transaction: "4100000000000002")
            let alice = try await portal.signIn(PortalHarness.alice)
            let bob = try await portal.signIn(PortalHarness.bob)
            let aliceWallet = try await alice.get("/portal/wallet")
            #expect(aliceWallet.html.text(id: "balance") == "12")
            #expect(aliceWallet.body.contains(PortalHarness.alice))
            let bobWallet = try await bob.get("/portal/wallet")
            #expect(bobWallet.html.text(id: "balance") == "0")
            #expect(!bobWallet.body.contains(PortalHarness.alice))

            // No portal URL names a user: every link and form of alice's pages.
            for path in ["/portal/wallet", "/portal/keys", "/portal/buy", "/portal/share", "/portal/pool"] {
                let page = try await alice.get(path)
                #expect(page.status == 200, "\(path)")
                for url in page.html.urls {
                    #expect(!url.contains("user-"), "\(path) links to \(url)")
                    #expect(!url.contains("@"), "\(path) links to \(url)")
                }
            }
            // Naming alice in bob's URLs shows bob's own wallet, or nothing.
            for path in [
                "/portal/wallet?user=user-1", "/portal/wallet?userId=user-1&email=user1%40example.com",
                "/portal/wallet/user-1", "/portal/keys?user=user-1", "/portal/share?email=user1%40example.com",
            ] {
                let page = try await bob.get(path)
                #expect([200, 404].contains(page.status), "\(path)")
                #expect(!page.body.contains(PortalHarness.alice), "\(path)")
                if page.html.contains(id: "balance") { #expect(page.html.text(id: "balance") == "0", "\(path)") }
            }

            // The console with alice's portal cookie (a browser sends it there too: its Path is /), or with her
            // portal session id presented as a console cookie: the sign-in page, never console data.
            let forged = portal.browser()
            forged.setCookie("opencat_console", try #require(alice.cookie("opencat_portal")), path: "/console")
            for browser in [alice, forged] {
                for path in [
                    "/console", "/console/customers", "/console/customers?q=user1%40example.com",
                    "/console/customers/user-1", "/console/customers/user-2", "/console/audit", "/console/ledger.csv",
                ] {
                    let page = try await browser.get(path)
                    #expect(page.status == 303, "\(path)")
                    #expect(page.location == "/console/sign-in", "\(path)")
                    for data in ["customer-balance", "revenue-chart", PortalHarness.alice, "user-1", "seq,id"] {
                        #expect(!page.body.contains(data), "\(path) shows \(data)")
                    }
                }
            }
            // Console actions with alice's session and her (valid, portal) CSRF token: not even attempted.
            let csrf = try #require(aliceWallet.html.fields(form: "sign-out")["csrf"])
            for browser in [alice, forged] {
                for (action, fields) in [
                    ("adjust", ["amount": "100", "reason": "self-service"]),
                    ("grant", ["entitlement": "pro", "days": "3650", "reason": "self-service"]),
                    ("revoke", ["promotion": "promo_x", "reason": "self-service"]),
                    ("reverify", ["store": "stripe", "transaction": "pi_x", "reason": "self-service"]),
                ] {
                    let answer = try await browser.post(
                        "/console/customers/user-1/\(action)",
                        fields.merging(["csrf": csrf]) { $1 }
                    )
                    #expect(answer.status == 303, "\(action)")
                    #expect(answer.location == "/console/sign-in", "\(action)")
                }
            }
            #expect(try await portal.ledger.balance(of: "user-1") == 12)
            #expect(try await portal.ledger.promotionalEntitlements(of: "user-1").isEmpty)
            #expect(try await portal.ledger.auditLog(limit: 100).isEmpty)

            // Nor is a console session a portal session.
            let ops = try await portal.operatorSignIn()
            let operatorSession = try #require(ops.cookie("opencat_console"))
            #expect(try await ops.get("/portal/wallet").location == "/portal")
            ops.setCookie("opencat_portal", operatorSession)
            #expect(try await ops.get("/portal/wallet").location == "/portal")

            // Sessions end on the server when their time is up (console 8 hours, portal 12), whatever the cookie.
            portal.clock.advance(8 * 3600 + 1)
            #expect(try await ops.get("/console").location == "/console/sign-in")
            #expect(try await alice.get("/portal/wallet").status == 200)
            portal.clock.advance(4 * 3600)
            #expect(try await alice.get("/portal/wallet").location == "/portal")
        }
    }

    @Test(arguments: Backend.allCases)
    func cookiesAreHttpOnlyStrictScopedAndSecureOffLoopback(_ backend: Backend) async throws {
        for publicURL in [PortalHarness.loopbackURL, URL(string: "https://keys.example.com")!] {
            let secure = publicURL.scheme == "https"
            try await PortalHarness.run(backend, publicURL: publicURL) { portal in
                func expectAttributes(_ cookie: SetCookie?, path: String, _ what: String) {
                    #expect(cookie != nil, "\(what)")
                    guard let cookie else { return }
                    #expect(cookie.attributes["httponly"] != nil, "\(what)")
                    #expect(cookie.attributes["samesite"] == "Strict", "\(what)")
                    #expect(cookie.attributes["path"] == path, "\(what)")
                    #expect((cookie.attributes["secure"] != nil) == secure, "\(what) on \(publicURL)")
                    #expect(cookie.attributes["domain"] == nil, "\(what)")
                }
                let browser = portal.browser()
                let start = try await browser.get("/portal")
                expectAttributes(start.cookie("opencat_form"), path: "/", "form cookie")
                let token = try await portal.requestLink(PortalHarness.alice, in: browser)
                let confirm = try await browser.get("/portal/sign-in/" + token)
                let signedIn = try await browser.post("/portal/sign-in/" + token, confirm.html.fields(form: "confirm"))
                let session = signedIn.cookie("opencat_portal")
                expectAttributes(session, path: "/", "portal session")
                #expect(Int(session?.attributes["max-age"] ?? "") ?? 0 > 0)
                #expect((session?.value.count ?? 0) >= 32)

                let ops = portal.browser()
                let operatorPage = try await ops.get("/console/sign-in")
                var fields = operatorPage.html.fields(form: "operator-sign-in")
                fields["operator"] = PortalHarness.operatorName
                fields["token"] = PortalHarness.operatorToken
                let operatorSignedIn = try await ops.post("/console/sign-in", fields)
                expectAttributes(operatorSignedIn.cookie("opencat_console"), path: "/console", "console session")

                // Signing out clears the cookie (with the same attributes) and ends the session on the server:
                // the old cookie replayed is signed out.
                let oldSession = try #require(browser.cookie("opencat_portal"))
                let wallet = try await browser.get("/portal/wallet")
                let signedOut = try await browser.post("/portal/sign-out", wallet.html.fields(form: "sign-out"))
                #expect(signedOut.status == 303)
                #expect(signedOut.location == "/portal?notice=signed-out")
                let removal = signedOut.cookie("opencat_portal")
                expectAttributes(removal, path: "/", "portal sign-out")
                #expect(removal?.isRemoval == true)
                browser.setCookie("opencat_portal", oldSession)
                #expect(try await browser.get("/portal/wallet").location == "/portal")

                let overview = try await ops.get("/console")
                let operatorSignOut = try await ops.post("/console/sign-out", overview.html.fields(form: "sign-out"))
                #expect(operatorSignOut.status == 303)
                #expect(operatorSignOut.cookie("opencat_console")?.isRemoval == true)
                #expect(try await ops.get("/console").location == "/console/sign-in")
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func everyPageCarriesTheSecurityHeadersAndNoInlineScriptOrStyle(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            _ = try await portal.buyApplePack(user: 1, transaction: "4100000000000003")
            var pages: [(String, PortalPage)] = []
            let visitor = portal.browser()
            pages.append(("sign-in", try await visitor.get("/portal")))
            pages.append(("wallet signed out", try await visitor.get("/portal/wallet")))
            pages.append(("console sign-in", try await visitor.get("/console/sign-in")))
            pages.append(("unknown link", try await visitor.get("/portal/sign-in/unknown-token-0123456789")))
            let token = try await portal.requestLink(PortalHarness.alice, in: visitor)
            let confirm = try await visitor.get("/portal/sign-in/" + token)
            pages.append(("confirm", confirm))
            pages.append(
                (
                    "sign-in post",
                    try await visitor.post("/portal/sign-in/" + token, confirm.html.fields(form: "confirm"))
                )
            )
            for path in [
                "/portal", "/portal/wallet", "/portal/wallet?notice=bought", "/portal/keys", "/portal/buy",
                "/portal/share", "/portal/pool", "/portal/return/stripe?session_id=cs_unknown",
            ] {
                pages.append((path, try await visitor.get(path)))
            }
            let ops = try await portal.operatorSignIn()
            for path in [
                "/console", "/console/customers", "/console/customers?q=user1%40example.com",
                "/console/customers/user-1",
                "/console/audit", "/console/ledger.csv",
            ] {
                pages.append((path, try await ops.get(path)))
            }
            let customer = try await ops.get("/console/customers/user-1")
            let grant = customer.html.fields(form: "grant-form")
                .merging(["entitlement": "pro", "days": "7", "reason": "test"]) { $1 }
            pages.append(("grant", try await ops.post("/console/customers/user-1/grant", grant)))
            pages.append(
                (
                    "bad grant",
                    try await ops.post("/console/customers/user-1/grant", grant.merging(["days": "0"]) { $1 })
                )
            )
            for (what, page) in pages {
                expectPageHeaders(page, what)
                #expect(page.status < 500, "\(what)")
                guard page.head.headerFields[.contentType]?.hasPrefix("text/html") == true else { continue }
                // What the policy forbids is not there to break: no inline script, style or event handler.
                #expect(!page.body.contains("<script>"), "\(what)")
                #expect(!page.body.contains("<style"), "\(what)")
                #expect(!page.body.contains(" style=\""), "\(what)")
                #expect(!page.body.contains(" onclick="), "\(what)")
                #expect(!page.body.contains("javascript:"), "\(what)")
                // Every form posts its token.
                for form in page.html.forms where form.contains("method=\"post\"") {
                    #expect(form.contains("name=\"csrf\""), "\(what): \(form.prefix(80))")
                }
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func textFromUsersAndOperatorsIsEscapedOnEveryPage(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let attack = "\"><script>alert(1)</script><img src=x onerror=alert(2)>"
            let ops = try await portal.operatorSignIn()
            // Reflected: the console's search box.
            let search = try await ops.get(
                "/console/customers?q=" + (attack.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            )
            #expect(search.status == 200)
            // Stored: an operator's reason in the audit log and on the customer page; a shared-to address.
            let customer = try await ops.get("/console/customers/user-1")
            let grant = customer.html.fields(form: "grant-form")
                .merging(["entitlement": "pro", "days": "1", "reason": attack]) { $1 }
            #expect(try await ops.post("/console/customers/user-1/grant", grant).status == 303)
            let adjust = customer.html.fields(form: "adjust-form").merging(["amount": "3", "reason": attack]) { $1 }
            #expect(try await ops.post("/console/customers/user-1/adjust", adjust).status == 303)
            let alice = try await portal.signIn(PortalHarness.alice)
            let share = try await alice.get("/portal/share")
            let shared = try await alice.post(
                "/portal/share",
                share.html.fields(form: "share-form").merging(["email": "x<script>@example.com", "amount": "1"]) { $1 }
            )
            // Not a mailbox (RFC 5321): refused on the form, which never echoes it.
            #expect(shared.status == 400)
            for page in [
                shared, search, try await ops.get("/console/audit"), try await ops.get("/console/customers/user-1"),
                try await alice.get("/portal/wallet"), try await alice.get("/portal/share?notice=shared"),
                try await ops.get("/console/customers?q=x%3Cscript%3E%40example.com"),
            ] {
                #expect(!page.body.contains("<script>"))
                #expect(!page.body.contains("<img"))
                #expect(!page.body.contains("\"><script"))
            }
            #expect(search.body.contains("&lt;script&gt;"))
            #expect(try await ops.get("/console/audit").body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test(arguments: Backend.allCases)
    func noSecretAppearsInAnyPage(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let bought = try await portal.buyApplePack(user: 1, transaction: "4100000000000004")
            let humanKeys = bought.licenses.map(\.keyValue.description)
            let signedLicences = bought.licenses.map(\.license.rawValue)
            #expect(humanKeys.count == 2)
            let alice = try await portal.signIn(PortalHarness.alice)
            let bob = try await portal.signIn(PortalHarness.bob)
            let ops = try await portal.operatorSignIn()
            let aliceToken = try #require(portal.mailbox.token(to: PortalHarness.alice))
            let bobToken = try #require(portal.mailbox.token(to: PortalHarness.bob))

            // Secrets that no page may show.
            var secrets = [
                ServerFixture.token(1), ServerFixture.token(2), ServerFixture.apiKey, ServerFixture.secretKey,
                PortalHarness.operatorToken, PortalHarness.sha256Hex(PortalHarness.operatorToken),
                try #require(alice.cookie("opencat_portal")), try #require(bob.cookie("opencat_portal")),
                try #require(ops.cookie("opencat_console")),
            ]
            secrets += signedLicences + signedLicences.map { String($0.suffix(40)) }
            // Links sent: their token is on the confirmation page of that very link only (its form's action).
            let links = [aliceToken, bobToken]

            var pages: [(who: String, path: String, page: PortalPage)] = []
            let portalPaths = [
                "/portal/wallet", "/portal/keys", "/portal/buy", "/portal/share", "/portal/pool",
                "/portal/wallet?notice=bought",
            ]
            for path in portalPaths {
                pages.append(("alice", path, try await alice.get(path)))
                pages.append(("bob", path, try await bob.get(path)))
            }
            let visitor = portal.browser()
            pages.append(("visitor", "/portal", try await visitor.get("/portal")))
            pages.append(("visitor", "/console/sign-in", try await visitor.get("/console/sign-in")))
            let linkSent = try await visitor.post(
                "/portal/sign-in",
                try await visitor.get("/portal").html.fields(form: "sign-in").merging(["email": PortalHarness.alice]) {
                    $1
                }
            )
            #expect(linkSent.html.contains(id: "link-sent"))
            pages.append(("visitor", "link sent", linkSent))
            let newest = try #require(portal.mailbox.token(to: PortalHarness.alice))
            let confirm = try await visitor.get("/portal/sign-in/" + newest)
            #expect(confirm.html.action(formContaining: "id=\"confirm\"") == "/portal/sign-in/" + newest)
            for token in links { #expect(!confirm.body.contains(token)) }
            for path in [
                "/console", "/console/customers?q=user1%40example.com", "/console/customers/user-1",
                "/console/customers/user-2", "/console/audit", "/console/ledger.csv",
            ] {
                pages.append(("operator", path, try await ops.get(path)))
            }
            for (who, path, page) in pages {
                #expect(page.status == 200, "\(who) \(path)")
                for secret in secrets + links + [newest] {
                    #expect(!page.body.contains(secret), "\(who) \(path) shows a secret")
                }
                // Human licence keys: on alice's keys page only.
                let ownerKeysPage = who == "alice" && path == "/portal/keys"
                for key in humanKeys {
                    #expect(page.body.contains(key) == ownerKeysPage, "\(who) \(path) and licence key \(key)")
                }
            }
            let keysPage = try await alice.get("/portal/keys")
            #expect(Set(keysPage.html.texts(class: "licence-key")) == Set(humanKeys))
            #expect(try await bob.get("/portal/keys").html.texts(class: "licence-key").isEmpty)
            // The console still shows that alice has two licences, by plan and date.
            let customer = try #require(try await ops.get("/console/customers/user-1").html.element(id: "licences"))
            #expect(customer.components(separatedBy: "<li>").count - 1 == 2)
            #expect(customer.contains("Plan L2"))
        }
    }

    @Test(arguments: Backend.allCases)
    func aWalletAdjustmentIsALedgerEntryAndAnAuditRecord(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let ops = try await portal.operatorSignIn()
            let customer = try await ops.get("/console/customers/user-1")
            let adjust = customer.html.fields(form: "adjust-form")
            func adjusted(_ amount: String, _ reason: String) async throws -> PortalPage {
                try await ops.post(
                    "/console/customers/user-1/adjust",
                    adjust.merging(["amount": amount, "reason": reason]) { $1 }
                )
            }
            let added = try await adjusted("5", "goodwill for ticket 12")
            #expect(added.status == 303)
            #expect(added.location == "/console/customers/user-1?notice=adjusted")
            let entries = try await portal.ledger.entries(of: "user-1", limit: 10)
            #expect(entries.count == 1)
            #expect(entries.first?.kind == "adjustment")
            #expect(entries.first?.amount == 5)
            #expect(entries.first?.reference == "operator:ops")
            var audit = try await portal.ledger.auditLog(limit: 10)
            #expect(audit.count == 1)
            #expect(audit.first?.action == "adjust_wallet")
            #expect(audit.first?.operatorName == "ops")
            #expect(audit.first?.subject == "user-1")
            #expect(audit.first?.reason == "goodwill for ticket 12")
            #expect(audit.first?.detail?.contains("+5") == true)
            // The pages say so: the customer's ledger, the audit log, the user's own wallet.
            let page = try await ops.get("/console/customers/user-1?notice=adjusted")
            #expect(page.html.text(id: "customer-balance") == "5")
            #expect(page.html.rows(table: "ledger").contains { $0.contains("adjustment") && $0.contains("+5") })
            let auditPage = try await ops.get("/console/audit")
            #expect(
                auditPage.html.rows(table: "audit").contains { $0.contains("adjust_wallet") && $0.contains("goodwill") }
            )
            let alice = try await portal.signIn(PortalHarness.alice)
            let wallet = try await alice.get("/portal/wallet")
            #expect(wallet.html.text(id: "balance") == "5")
            #expect(wallet.html.rows(table: "history").contains { $0.contains("Adjusted by support") })

            // Taking more than the wallet holds is refused and writes nothing; so is a missing reason or zero.
            for (amount, reason) in [("-6", "too much"), ("-1000000", "far too much"), ("-1", ""), ("0", "nothing")] {
                let refused = try await adjusted(amount, reason)
                #expect([400, 422].contains(refused.status), "\(amount) \(reason)")
                expectPageHeaders(refused, "refused adjustment")
            }
            #expect(try await portal.ledger.entries(of: "user-1", limit: 10).count == 1)
            #expect(try await portal.ledger.auditLog(limit: 10).count == 1)
            #expect(try await portal.ledger.balance(of: "user-1") == 5)

            // Taking all of it is allowed: a second entry and a second record.
            #expect(try await adjusted("-5", "chargeback").status == 303)
            #expect(try await portal.ledger.balance(of: "user-1") == 0)
            let after = try await portal.ledger.entries(of: "user-1", limit: 10)
            #expect(after.map(\.kind) == ["adjustment", "adjustment"])
            #expect(Set(after.map(\.amount)) == [5, -5])
            audit = try await portal.ledger.auditLog(limit: 10)
            #expect(audit.map(\.action) == ["adjust_wallet", "adjust_wallet"])
            #expect(audit.first?.reason == "chargeback")
        }
    }

    @Test(arguments: Backend.allCases)
    func aGrantedPromotionalEntitlementReachesTheOpenCatAPIUntilRevoked(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            func entitlements(key: String = ServerFixture.apiKey) async throws -> (
                map: [String: [String]], transactions: [[String: Any]]
            ) {
                let (status, answer) = try await portal.openCatGet("/v1/subscribers/user-1", key: key)
                #expect(status == 200)
                let subscriber = answer["subscriber"] as? [String: Any] ?? [:]
                return (
                    subscriber["entitlementMap"] as? [String: [String]] ?? [:],
                    subscriber["transactions"] as? [[String: Any]] ?? []
                )
            }
            #expect(try await entitlements().map.isEmpty)

            let ops = try await portal.operatorSignIn()
            let customer = try await ops.get("/console/customers/user-1")
            let grant = customer.html.fields(form: "grant-form")
                .merging(["entitlement": "pro", "days": "30", "reason": "beta tester"]) { $1 }
            let granted = try await ops.post("/console/customers/user-1/grant", grant)
            #expect(granted.status == 303)
            #expect(granted.location == "/console/customers/user-1?notice=granted")

            // The app's key (what the SDK in server mode reads) sees the entitlement, active for 30 days.
            let active = try await entitlements()
            #expect(active.map == ["promotional:pro": ["pro"]])
            #expect(active.transactions.count == 1)
            let transaction = try #require(active.transactions.first)
            #expect(transaction["store"] as? String == "promotional")
            #expect(transaction["productId"] as? String == "promotional:pro")
            #expect(transaction["status"] as? String == "active")
            #expect((transaction["transactionId"] as? String)?.hasPrefix("promo_") == true)
            var audit = try await portal.ledger.auditLog(limit: 10)
            #expect(audit.map(\.action) == ["grant_entitlement"])
            #expect(audit.first?.operatorName == "ops")
            #expect(audit.first?.subject == "user-1")
            #expect(audit.first?.reason == "beta tester")
            #expect(audit.first?.detail?.hasPrefix("pro until") == true)

            // The console lists it with a revoke form; revoking takes it away at once.
            let page = try await ops.get("/console/customers/user-1")
            #expect(page.html.rows(table: "entitlements").contains { $0.contains("pro") && $0.contains("active") })
            let revoke = page.html.fields(formContaining: "name=\"promotion\"").merging(["reason": "beta over"]) { $1 }
            #expect(revoke["promotion"] == transaction["transactionId"] as? String)
            let revoked = try await ops.post("/console/customers/user-1/revoke", revoke)
            #expect(revoked.status == 303)
            #expect(revoked.location == "/console/customers/user-1?notice=revoked")
            let gone = try await entitlements()
            #expect(gone.map.isEmpty)
            #expect(gone.transactions.isEmpty)
            // The secret key still reads it, as history.
            let history = try await entitlements(key: ServerFixture.secretKey)
            #expect(history.transactions.first?["status"] as? String == "expired")
            audit = try await portal.ledger.auditLog(limit: 10)
            #expect(audit.map(\.action) == ["revoke_entitlement", "grant_entitlement"])
            #expect(audit.first?.reason == "beta over")
            #expect(audit.first?.detail == "pro")
            let auditPage = try await ops.get("/console/audit")
            #expect(auditPage.html.rows(table: "audit").count == 2)
            #expect(
                try await ops.get("/console/customers/user-1").html.rows(table: "entitlements")
                    .contains { $0.contains("revoked") }
            )
        }
    }
}

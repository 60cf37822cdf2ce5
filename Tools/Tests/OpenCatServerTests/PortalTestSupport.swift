import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import KeyServerClient
import Logging
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Prometheus
import StoreAdapters
import Synchronization
import Testing

/// A page (or a redirect) as the server answered it over loopback.
struct PortalPage: Sendable {
    var head: HTTPResponse
    var body: String

    var status: Int { head.status.code }
    var location: String? { head.headerFields[.location] }
    var setCookies: [String] { head.headerFields[values: .setCookie] }
    var html: HTMLText { HTMLText(body) }

    func header(_ name: String) -> String? { head.headerFields[HTTPField.Name(name)!] }

    /// The `Set-Cookie` of a cookie by name, parsed.
    func cookie(_ name: String) -> SetCookie? {
        setCookies.map(SetCookie.init).first { $0.name == name }
    }
}

/// One `Set-Cookie` header: name, value and attributes (lower-cased names; flags map to "").
struct SetCookie: Sendable {
    var name: String
    var value: String
    var attributes: [String: String]

    init(_ header: String) {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let pair = (parts.first ?? "").split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        name = pair.first.map(String.init) ?? ""
        value = pair.count > 1 ? String(pair[1]) : ""
        var attributes: [String: String] = [:]
        for part in parts.dropFirst() {
            let attribute = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            attributes[String(attribute[0]).lowercased()] = attribute.count > 1 ? String(attribute[1]) : ""
        }
        self.attributes = attributes
    }

    var isRemoval: Bool { value.isEmpty || attributes["max-age"] == "0" }
}

/// Small string helpers over the server's HTML (its templates are regular: one attribute order, double quotes).
struct HTMLText: Sendable {
    var text: String
    init(_ text: String) { self.text = text }

    func contains(id: String) -> Bool { text.contains("id=\"\(id)\"") }

    /// The text directly inside the element with an id (up to its first child tag), unescaped and trimmed.
    func text(id: String) -> String? {
        guard let start = text.range(of: "id=\"\(id)\""),
            let close = text[start.upperBound...].firstIndex(of: ">")
        else { return nil }
        let rest = text[text.index(after: close)...]
        let end = rest.firstIndex(of: "<") ?? rest.endIndex
        return Self.unescape(String(rest[..<end])).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The markup of the element with an id, from its start tag to its end tag (elements the templates never nest).
    func element(id: String) -> String? {
        guard let marker = text.range(of: "id=\"\(id)\""),
            let open = text[..<marker.lowerBound].lastIndex(of: "<")
        else { return nil }
        let name = text[text.index(after: open)...].prefix { $0.isLetter || $0.isNumber }
        guard let end = text[marker.upperBound...].range(of: "</\(name)>") else { return nil }
        return String(text[open..<end.upperBound])
    }

    /// Every `<form …>…</form>` of the page.
    var forms: [String] {
        var forms: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<form"), let close = rest[open.upperBound...].range(of: "</form>") {
            forms.append(String(rest[open.lowerBound..<close.upperBound]))
            rest = rest[close.upperBound...]
        }
        return forms
    }

    /// The named inputs that carry a value (hidden fields, prefilled numbers) of the first form whose markup
    /// contains `marker`.
    func fields(formContaining marker: String) -> [String: String] {
        guard let form = forms.first(where: { $0.contains(marker) }) else { return [:] }
        var fields: [String: String] = [:]
        for tag in Self.tags("input", in: form) {
            if let name = Self.attribute("name", of: tag), let value = Self.attribute("value", of: tag) {
                fields[name] = value
            }
        }
        return fields
    }

    /// The fields of the form with an id.
    func fields(form id: String) -> [String: String] { fields(formContaining: "id=\"\(id)\"") }

    /// The `action` of the first form whose markup contains `marker`.
    func action(formContaining marker: String) -> String? {
        forms.first { $0.contains(marker) }.flatMap { form in
            Self.tags("form", in: form).first.flatMap { Self.attribute("action", of: $0) }
        }
    }

    /// The texts of the elements with a class (`<code class="licence-key">…</code>`).
    func texts(class name: String) -> [String] {
        var texts: [String] = []
        var rest = text[...]
        while let marker = rest.range(of: "class=\"\(name)\"") {
            guard let close = rest[marker.upperBound...].firstIndex(of: ">") else { break }
            let inner = rest[rest.index(after: close)...]
            let end = inner.firstIndex(of: "<") ?? inner.endIndex
            texts.append(Self.unescape(String(inner[..<end])))
            rest = inner[end...]
        }
        return texts
    }

    /// The `href` of every link with a class.
    func links(class name: String) -> [String] {
        Self.tags("a", in: text).filter { Self.attribute("class", of: $0) == name }.compactMap {
            Self.attribute("href", of: $0)
        }
    }

    /// Every `href` and `action` of the page: the URLs a browser could be sent to from it.
    var urls: [String] {
        ["a", "form", "link", "script"].flatMap { name in
            Self.tags(name, in: text).compactMap {
                Self.attribute("href", of: $0) ?? Self.attribute("action", of: $0) ?? Self.attribute("src", of: $0)
            }
        }
    }

    /// The number of body rows of a table.
    func rows(table id: String) -> [String] {
        guard let table = element(id: id), let body = table.range(of: "<tbody>") else { return [] }
        return table[body.upperBound...].components(separatedBy: "<tr>").dropFirst().map { $0 }
    }

    static func tags(_ name: String, in html: some StringProtocol) -> [String] {
        var tags: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<\(name) ") ?? rest.range(of: "<\(name)>"),
            let close = rest[open.lowerBound...].firstIndex(of: ">")
        {
            tags.append(String(rest[open.lowerBound...close]))
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }

    static func attribute(_ name: String, of tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return unescape(String(value))
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// A browser without a browser: real HTTP on loopback, redirects not followed, and a cookie jar that sends the
/// server's cookies back to its own origin on the paths they were set for.
final class PortalBrowser: Sendable {
    struct StoredCookie: Sendable {
        var value: String
        var path: String
    }

    /// The server (its loopback origin).
    let base: URL
    /// The client address a proxy in front of the server reports for this browser (`X-Forwarded-For`), if any.
    let forwardedFor: String?
    private let jar = Mutex<[String: StoredCookie]>([:])

    init(base: URL, forwardedFor: String? = nil) {
        self.base = base
        self.forwardedFor = forwardedFor
    }

    /// A cookie's value, as the jar holds it.
    func cookie(_ name: String) -> String? { jar.withLock { $0[name]?.value } }

    /// Puts a cookie in the jar (a forged or replayed one).
    func setCookie(_ name: String, _ value: String, path: String = "/") {
        jar.withLock { $0[name] = StoredCookie(value: value, path: path) }
    }

    /// Forgets every cookie.
    func clearCookies() { jar.withLock { $0.removeAll() } }

    /// `GET` of a path of the server, or of an absolute URL (a store's hosted page: no cookies go there).
    func get(_ target: String) async throws -> PortalPage {
        try await send(.get, target, body: nil)
    }

    /// A form post (`application/x-www-form-urlencoded`).
    func post(_ target: String, _ fields: [String: String]) async throws -> PortalPage {
        try await send(.post, target, body: Data(Self.encode(fields).utf8))
    }

    static func encode(_ fields: [String: String]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return fields.keys.sorted().map { key in
            let value = fields[key] ?? ""
            return (key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key) + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }

    private func send(_ method: HTTPRequest.Method, _ target: String, body: Data?) async throws -> PortalPage {
        let url = target.hasPrefix("/") ? URL(string: base.absoluteString + target)! : URL(string: target)!
        let authority = "\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        var request = HTTPRequest(method: method, scheme: "http", authority: authority, path: path)
        let ownOrigin = url.host == base.host && url.port == base.port
        if ownOrigin {
            let cookies = jar.withLock { jar in
                jar.sorted { $0.key < $1.key }.filter { path.hasPrefix($0.value.path) }.map {
                    "\($0.key)=\($0.value.value)"
                }
            }
            if !cookies.isEmpty { request.headerFields[.cookie] = cookies.joined(separator: "; ") }
        }
        if body != nil { request.headerFields[.contentType] = "application/x-www-form-urlencoded" }
        if ownOrigin, let forwardedFor { request.headerFields[HTTPField.Name("X-Forwarded-For")!] = forwardedFor }
        let response = try await ServerKeyServerTests.transport.send(request, body: body)
        let page = PortalPage(head: response.head, body: String(decoding: response.body, as: UTF8.self))
        if ownOrigin {
            for cookie in page.setCookies.map(SetCookie.init) {
                jar.withLock { jar in
                    if cookie.isRemoval {
                        jar[cookie.name] = nil
                    } else {
                        jar[cookie.name] = StoredCookie(value: cookie.value, path: cookie.attributes["path"] ?? "/")
                    }
                }
            }
        }
        return page
    }
}

/// Catches the portal's mails: the sign-in links a user would click.
final class PortalMailbox: PortalMailSender {
    private let mails = Mutex<[PortalMail]>([])

    func send(_ mail: PortalMail) async throws { mails.withLock { $0.append(mail) } }

    var count: Int { mails.withLock { $0.count } }

    /// Every link sent so far (the secrets the pages must never show).
    var links: [String] { mails.withLock { $0.map(\.link.revealed) } }

    /// The token of the last link sent to an address.
    func token(to email: String) -> String? {
        mails.withLock { mails in
            mails.last { $0.to == email }.flatMap { URL(string: $0.link.revealed)?.lastPathComponent }
        }
    }
}

/// Checks the headers every page and redirect of the portal and the console carries.
func expectPageHeaders(
    _ page: PortalPage,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let policy = page.header("Content-Security-Policy") ?? ""
    #expect(policy.contains("script-src 'self'"), "\(what): CSP \(policy)", sourceLocation: sourceLocation)
    #expect(policy.contains("default-src 'none'"), "\(what): CSP \(policy)", sourceLocation: sourceLocation)
    #expect(policy.contains("frame-ancestors 'none'"), "\(what): CSP \(policy)", sourceLocation: sourceLocation)
    #expect(!policy.contains("unsafe-inline"), "\(what): CSP \(policy)", sourceLocation: sourceLocation)
    #expect(!policy.contains("unsafe-eval"), "\(what): CSP \(policy)", sourceLocation: sourceLocation)
    #expect(page.header("X-Frame-Options") == "DENY", "\(what)", sourceLocation: sourceLocation)
    #expect(page.header("Cache-Control") == "no-store", "\(what)", sourceLocation: sourceLocation)
    #expect(page.header("X-Content-Type-Options") == "nosniff", "\(what)", sourceLocation: sourceLocation)
}

/// The reference server with its portal and console on a fresh database, live on a loopback port.
struct PortalHarness {
    static let alice = "user1@example.com"
    static let bob = "user2@example.com"
    static let operatorName = "ops"
    static let operatorToken = "opencat-operator-token-" + String(repeating: "k", count: 24)
    static let product = "keys_10"
    static let loopbackURL = URL(string: "http://127.0.0.1:1")!

    let fixture: ServerFixture
    let server: OpenCatServerApplication
    /// Where the server listens.
    let url: URL
    /// Where the server says it is (links and store return URLs are made from it).
    let publicURL: URL
    let mailbox: PortalMailbox

    var ledger: any LedgerStore { fixture.ledger }
    var clock: TestClock { fixture.clock }

    /// Runs `body` with a server whose portal sells `keys_10` (10 keys, one L2 licence, 4.99 USD) and has one
    /// operator, on `backend`; Stripe and PayPal purchases are accepted from their sandbox (the mock's test mode)
    /// unless `acceptedEnvironments` says otherwise.
    static func run(
        _ backend: Backend,
        clock: TestClock = TestClock(ServerFixture.signedDate),
        publicURL: URL = loopbackURL,
        stores: [any StoreAdapter] = [],
        stripeWebhooks: StripeWebhookVerifier? = nil,
        payPalWebhooks: PayPalWebhookVerifier? = nil,
        stripePrices: Bool = true,
        pack: KeyPack = KeyPack(keys: 10, plan: "L2", licenses: 1),
        metrics: PrometheusCollectorRegistry? = nil,
        webhooks: WebhookSettings = WebhookSettings(),
        acceptedEnvironments: [Store: Set<VerifiedPurchase.Environment>] = [.stripe: [.sandbox], .paypal: [.sandbox]],
        _ body: (PortalHarness) async throws -> Void
    ) async throws {
        try await backend.withStores(now: { clock.now }) { ledgers in
            let fixture = try ServerFixture(
                ledger: ledgers[0],
                clock: clock,
                stores: stores,
                acceptedEnvironments: acceptedEnvironments
            )
            let mailbox = PortalMailbox()
            var settings = fixture.server.settings
            settings.keyPacks[product] = pack
            if stripePrices { settings.stripePrices[product] = Money(decimalString: "4.99", currency: "USD") }
            // As behind a reverse proxy: a browser made with `browser(from:)` says where it comes from.
            settings.clientAddressHeader = "X-Forwarded-For"
            settings.webhooks = webhooks
            settings.portal = PortalSettings(
                publicURL: publicURL,
                products: [.init(productId: product, name: "10 keys", amount: "4.99", currency: "USD")],
                operators: [.init(name: operatorName, tokenSHA256: sha256Hex(operatorToken))],
                mail: mailbox
            )
            let server = OpenCatServerApplication(
                ledger: fixture.ledger,
                settings: settings,
                adapters: Array(fixture.server.adapters.values),
                stripeWebhooks: stripeWebhooks,
                payPalWebhooks: payPalWebhooks,
                databaseKind: backend.rawValue,
                logger: Logger(label: "tests.portal", factory: { _ in SwiftLogNoOpLogHandler() }),
                metrics: metrics,
                now: { clock.now }
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                let app = server.application(port: 0) { continuation.yield($0) }
                group.addTask { try await app.runService() }
                var port = 0
                for await listening in stream {
                    port = listening
                    break
                }
                defer { group.cancelAll() }
                try await body(
                    PortalHarness(
                        fixture: fixture,
                        server: server,
                        url: URL(string: "http://127.0.0.1:\(port)")!,
                        publicURL: publicURL,
                        mailbox: mailbox
                    )
                )
            }
        }
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    func browser() -> PortalBrowser { PortalBrowser(base: url) }

    /// A browser whose requests the proxy in front of the server reports as coming from `address`.
    func browser(from address: String) -> PortalBrowser { PortalBrowser(base: url, forwardedFor: address) }

    /// A store's redirect back to the public URL, as a path of this server.
    func local(_ location: String?) -> String {
        let location = location ?? ""
        let base = publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return location.hasPrefix(base) ? String(location.dropFirst(base.count)) : location
    }

    /// Asks for a sign-in link from the sign-in page; returns its token (read from the mail).
    func requestLink(_ email: String, in browser: PortalBrowser) async throws -> String {
        let before = mailbox.count
        let start = try await browser.get("/portal")
        #expect(start.status == 200)
        let fields = start.html.fields(form: "sign-in")
        #expect(fields["csrf"] != nil)
        let sent = try await browser.post("/portal/sign-in", fields.merging(["email": email]) { $1 })
        #expect(sent.status == 200)
        #expect(sent.html.contains(id: "link-sent"))
        #expect(mailbox.count == before + 1)
        return try #require(mailbox.token(to: email))
    }

    /// Signs in by link: asks for it, opens it, confirms.
    func signIn(_ email: String) async throws -> PortalBrowser {
        let browser = browser()
        let token = try await requestLink(email, in: browser)
        let confirm = try await browser.get("/portal/sign-in/" + token)
        #expect(confirm.status == 200)
        let signedIn = try await browser.post("/portal/sign-in/" + token, confirm.html.fields(form: "confirm"))
        #expect(signedIn.status == 303)
        #expect(signedIn.location == "/portal/wallet")
        #expect(browser.cookie("opencat_portal") != nil)
        return browser
    }

    /// Signs the operator in to the console (in a new browser, or `browser`).
    func operatorSignIn(in browser: PortalBrowser? = nil) async throws -> PortalBrowser {
        let browser = browser ?? self.browser()
        let page = try await browser.get("/console/sign-in")
        #expect(page.status == 200)
        var fields = page.html.fields(form: "operator-sign-in")
        fields["operator"] = Self.operatorName
        fields["token"] = Self.operatorToken
        let signedIn = try await browser.post("/console/sign-in", fields)
        #expect(signedIn.status == 303)
        #expect(signedIn.location == "/console")
        #expect(browser.cookie("opencat_console") != nil)
        return browser
    }

    /// A key-server client for `user-<index>` (whose email is `user<index>@example.com`).
    func keyClient(user: Int) -> KeyServerClient {
        KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: url,
                token: Secret(ServerFixture.token(user)),
                timeout: .seconds(120),
                retryAttempts: 0,
                transport: ServerKeyServerTests.transport
            )
        )
    }

    /// Buys the fixture's App Store key pack (10 keys + 2 bonus, 1 to the pool, two L2 licences) for a user.
    func buyApplePack(user: Int, transaction: String) async throws -> KeyPurchaseResult {
        let proof = PurchaseProof(
            store: .apple,
            kind: .appleSignedTransaction,
            token: Secret(fixture.appleTransaction(id: transaction))
        )
        return try await keyClient(user: user).purchaseKeyPack(proof, email: "user\(user)@example.com")
    }

    /// `POST` of a JSON body to the OpenCat API with a key, as JSON.
    func openCatPost(_ path: String, _ body: [String: Any], key: String) async throws -> (Int, [String: Any]) {
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(url.port!)", path: path)
        request.headerFields[.authorization] = "Bearer \(key)"
        request.headerFields[.contentType] = "application/json"
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try await ServerKeyServerTests.transport.send(request, body: data)
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return (response.head.status.code, json)
    }

    /// `GET` of the OpenCat API with a key (the app's public key by default), as JSON.
    func openCatGet(_ path: String, key: String = ServerFixture.apiKey) async throws -> (Int, [String: Any]) {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(url.port!)", path: path)
        request.headerFields[.authorization] = "Bearer \(key)"
        let response = try await ServerKeyServerTests.transport.send(request, body: nil)
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return (response.head.status.code, json)
    }
}

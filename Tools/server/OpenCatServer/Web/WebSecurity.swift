import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenCatCore
import StoreAdapters

/// What every web page shares: sessions in HttpOnly, SameSite=Strict cookies (Secure off loopback), a CSRF token
/// in every form, and headers that keep pages out of caches and frames and scripts to the server's own file.
struct WebPages: Sendable {
    /// The portal's settings (`portal`); the web pages are served only with them.
    let portal: PortalSettings?
    /// The origins forms may post to beside the server: the configured ones and the stores' checkout pages.
    let checkoutOrigins: [String]
    let sessions: any WebSessionRepository
    /// Where the anonymous forms' key is kept (one for every instance).
    let state: any ServerStateRepository
    let clock: @Sendable () -> Date
    let logger: Logger

    init(
        portal: PortalSettings?,
        adapters: [Store: any StoreAdapter],
        sessions: any WebSessionRepository,
        state: any ServerStateRepository,
        clock: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.portal = portal
        var origins = portal?.checkoutOrigins ?? []
        for adapter in adapters.values {
            if let origin = Self.checkoutOrigin(adapter) { origins.append(origin) }
        }
        checkoutOrigins = Array(Set(origins)).sorted()
        self.sessions = sessions
        self.state = state
        self.clock = clock
        self.logger = logger
    }

    static let portalCookie = "opencat_portal"
    static let consoleCookie = "opencat_console"
    /// The anonymous forms' CSRF cookie (sign-in pages), compared with the form's token.
    static let formCookie = "opencat_form"

    /// A random URL-safe secret of 32 bytes.
    static func randomSecret() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The Content-Security-Policy of every page: scripts and styles from the server only (no `unsafe-inline`),
    /// forms to the server and the stores' checkout pages.
    func contentSecurityPolicy() -> String {
        let formAction = (["'self'"] + checkoutOrigins).joined(separator: " ")
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action \(formAction); frame-ancestors 'none'; base-uri 'none'"
    }

    /// The origin a store's hosted checkout is reached at (MockStores on loopback hosts its checkout pages there too).
    static func checkoutOrigin(_ adapter: any StoreAdapter) -> String? {
        let url: URL? =
            switch adapter {
            case let stripe as StripeAdapter: stripe.configuration.baseURL
            case let paypal as PayPalAdapter: paypal.configuration.baseURL
            default: nil
            }
        guard let url, let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// An HTML page with the security headers.
    func page(_ status: HTTPResponse.Status = .ok, _ html: String, cookies: [Cookie] = []) -> Response {
        var response = Response(
            status: status,
            headers: pageHeaders(contentType: "text/html; charset=utf-8"),
            body: ResponseBody(byteBuffer: ByteBuffer(string: html))
        )
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    func pageHeaders(contentType: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy()
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return headers
    }

    /// A 303 to a path of this server (or a store's page), with cookies.
    func redirect(_ location: String, cookies: [Cookie] = []) -> Response {
        var headers = pageHeaders(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        var response = Response(status: .seeOther, headers: headers)
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// Signs out: checks the form's CSRF token, ends the session the cookie names, removes the cookie.
    func signOut(_ request: Request, csrf: String, cookie: String, path: String, then location: String) async throws
        -> Response
    {
        try checkCSRF(try await form(request), expected: csrf)
        if let id = request.cookies[cookie]?.value {
            try await sessions.endWebSession(idSHA256: Fingerprint.hex(of: id))
        }
        return redirect(location, cookies: [sessionCookie(cookie, "", path: path, lifetime: 0)])
    }

    /// A session cookie (or its removal with `value` empty).
    func sessionCookie(_ name: String, _ value: String, path: String, lifetime: TimeInterval) -> Cookie {
        Cookie(
            name: name,
            value: value,
            maxAge: value.isEmpty ? 0 : Int(lifetime),
            path: path,
            secure: !(portal?.isLoopback ?? false),
            httpOnly: true,
            sameSite: .strict
        )
    }

    /// Renders a page in the layout.
    func render(_ template: String, _ context: [String: Any], status: HTTPResponse.Status = .ok, cookies: [Cookie] = [])
        -> Response
    {
        page(status, WebTemplates.render(template, context), cookies: cookies)
    }

    /// The assets every page links: the stylesheet and the copy-button script.
    func addAssetRoutes(to router: Router<ServerRequestContext>) {
        router.get("/assets/site.css") { _, _ in
            var headers = pageHeaders(contentType: "text/css; charset=utf-8")
            headers[.cacheControl] = "public, max-age=3600"
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: WebTemplates.stylesheet))
            )
        }
        router.get("/assets/site.js") { _, _ in
            var headers = pageHeaders(contentType: "text/javascript; charset=utf-8")
            headers[.cacheControl] = "public, max-age=3600"
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: WebTemplates.script))
            )
        }
    }

    // MARK: Forms

    /// A form body (`application/x-www-form-urlencoded`), at most 16 KiB.
    func form(_ request: Request) async throws -> [String: String] {
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: 16 * 1024) } catch {
            throw PageError(.contentTooLarge, "The form is too large.")
        }
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }

    /// Refuses a form whose `csrf` field is not `expected` (compared in constant time).
    func checkCSRF(_ fields: [String: String], expected: String?) throws {
        guard let expected, !expected.isEmpty, let given = fields["csrf"],
            ConstantTime.equals(Data(given.utf8), Data(expected.utf8))
        else { throw PageError(.forbidden, "This form has expired. Go back, reload the page and try again.") }
    }

    /// How long an anonymous form's token is accepted.
    static let formTokenLifetime: TimeInterval = 3_600

    /// The anonymous forms' token (sign-in pages): the request's form cookie when this server issued it and it has
    /// not expired, or a new one to set. A token is `<issued>.<nonce>.<HMAC-SHA256>` under a key every instance
    /// shares, so a value the client chose (a planted cookie) is never accepted.
    func formToken(_ request: Request) async throws -> (token: String, cookie: Cookie?) {
        let key = try await formKey()
        if let existing = request.cookies[Self.formCookie]?.value, isIssuedFormToken(existing, key: key) {
            return (existing, nil)
        }
        let body = "\(Int64(clock().timeIntervalSince1970)).\(Self.randomSecret())"
        let token = body + "." + Self.formMAC(body, key: key)
        return (token, sessionCookie(Self.formCookie, token, path: "/", lifetime: Self.formTokenLifetime))
    }

    /// Refuses an anonymous form unless its `csrf` field is the form cookie and this server issued that cookie.
    func checkFormCSRF(_ fields: [String: String], _ request: Request) async throws {
        let cookie = request.cookies[Self.formCookie]?.value
        guard let cookie, isIssuedFormToken(cookie, key: try await formKey()) else {
            throw PageError(.forbidden, "This form has expired. Go back, reload the page and try again.")
        }
        try checkCSRF(fields, expected: cookie)
    }

    func formKey() async throws -> SymmetricKey {
        let secret = try await state.serverSecret("form-csrf") { Self.randomSecret() }
        return SymmetricKey(data: Data(secret.utf8))
    }

    func isIssuedFormToken(_ token: String, key: SymmetricKey) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let issued = Int64(parts[0]) else { return false }
        let age = clock().timeIntervalSince1970 - TimeInterval(issued)
        guard age >= -60, age <= Self.formTokenLifetime else { return false }
        let expected = Self.formMAC("\(parts[0]).\(parts[1])", key: key)
        return ConstantTime.equals(Data(parts[2].utf8), Data(expected.utf8))
    }

    static func formMAC(_ body: String, key: SymmetricKey) -> String {
        Fingerprint.lowercaseHex(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: key))
    }
}

/// A refused web request: answered as the portal's or console's error page with the status and a message (never a
/// secret).
struct PageError: Error {
    var status: HTTPResponse.Status
    var message: String
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}

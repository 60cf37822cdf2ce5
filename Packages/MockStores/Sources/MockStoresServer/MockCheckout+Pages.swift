import Foundation
import HTTPTypes
import Logging
import MockStores
import OpenCatCore
import Synchronization

// The buyer's side: the hosted pages (small, accessible, no script), redirects, and the webhook deliveries.
extension MockCheckout {
    // MARK: Pages

    /// Stripe's hosted payment page for a session.
    static func stripePage(_ session: StripeSession) -> MockResponse {
        let exponent = minorUnitExponent(session.currency)
        let currency = session.currency.uppercased()
        var rows = ""
        for item in session.items {
            let quantity = item.quantity == 1 ? "" : " × \(item.quantity)"
            rows += "<dt>\(html(item.name))\(quantity)</dt><dd>\(decimal(minor: item.unitAmount, exponent: exponent)) "
            rows += "\(html(currency))</dd>\n"
        }
        var body = """
            <h1>Stripe Checkout (mock)</h1>
            <p class="notice">Test mode: the OpenCat mock of Stripe Checkout. No money moves.</p>
            <dl>
            \(rows)<dt>Total</dt><dd id="amount">\(decimal(minor: session.amountTotal, exponent: exponent)) \(html(currency))</dd>
            """
        if let email = session.customerEmail { body += "\n<dt>Email</dt><dd id=\"email\">\(html(email))</dd>" }
        body += "\n</dl>\n"
        if session.intent == nil {
            body += """
                <form method="post" action="/checkout/pay/\(html(session.id))" aria-label="Payment">
                <button id="pay" type="submit">Pay</button>
                </form>

                """
            if let cancel = session.cancelURL {
                body += "<p><a id=\"cancel\" href=\"\(html(cancel))\">Cancel and return to the store</a></p>\n"
            }
        } else {
            let success = substitutingSessionId(in: session.successURL, id: session.id)
            body += """
                <p id="status" role="status">This checkout is paid.</p>
                <p><a id="continue" href="\(html(success))">Return to the store</a></p>

                """
        }
        return page(title: "Pay \(session.items.first?.name ?? "") – Stripe Checkout (mock)", body: body)
    }

    /// PayPal's approval page for an order.
    static func payPalPage(_ order: PayPalOrder) -> MockResponse {
        var rows = ""
        for unit in order.units {
            rows += "<dt>\(html(unit.description ?? unit.referenceId))</dt>"
            rows += "<dd class=\"amount\">\(html(unit.value)) \(html(unit.currency))</dd>\n"
        }
        var body = """
            <h1>PayPal (mock)</h1>
            <p class="notice">Sandbox: the OpenCat mock of PayPal checkout. No money moves.</p>
            <dl>
            \(rows)</dl>

            """
        switch order.status {
        case .created, .payerActionRequired:
            body += """
                <form method="post" action="/checkoutnow?token=\(html(order.id))" aria-label="Approval">
                <button id="approve" class="paypal" type="submit">Approve</button>
                </form>

                """
            if let cancel = order.cancelURL {
                let href = appendingQuery(to: cancel, [("token", order.id)])
                body += "<p><a id=\"cancel\" href=\"\(html(href))\">Cancel and return to the store</a></p>\n"
            }
        case .approved, .completed:
            body += "<p id=\"status\" role=\"status\">You approved this payment.</p>\n"
            if let returnURL = order.returnURL, let payerId = order.payerId {
                let href = appendingQuery(to: returnURL, [("token", order.id), ("PayerID", payerId)])
                body += "<p><a id=\"continue\" href=\"\(html(href))\">Return to the store</a></p>\n"
            }
        }
        return page(title: "Approve your payment – PayPal (mock)", body: body)
    }

    /// The page after an approval when the order has no return URL.
    static func approvedPage(_ order: PayPalOrder) -> MockResponse {
        page(
            title: "Payment approved – PayPal (mock)",
            body: """
                <h1>PayPal (mock)</h1>
                <p id="status" role="status">You approved this payment. You can close this page.</p>

                """
        )
    }

    /// 404 for a session or order the checkout does not know.
    static func notFoundPage() -> MockResponse {
        page(
            title: "Checkout not found (mock)",
            body: """
                <h1>Checkout not found</h1>
                <p>This checkout does not exist on this mock server.</p>

                """,
            status: 404
        )
    }

    /// A whole page: language, title, viewport, one `main` landmark, high-contrast styles, no script.
    static func page(title: String, body: String, status: Int = 200) -> MockResponse {
        let text = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(html(title))</title>
            <style>\(stylesheet)</style>
            </head>
            <body>
            <main>
            \(body)</main>
            </body>
            </html>

            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // No script at all; `form-action` is left open because the answers redirect to the merchant's site.
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        return MockResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    /// Text colours of at least 7:1 against their backgrounds; controls 44 px high; fits 320 px and up.
    static let stylesheet = """
        *{box-sizing:border-box}\
        body{margin:0;background:#fff;color:#1a1a1a;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}\
        main{max-width:30rem;margin:0 auto;padding:1.5rem 1rem}\
        h1{font-size:1.5rem;margin:0 0 1rem}\
        .notice{background:#fff4ce;color:#1a1a1a;padding:.5rem .75rem;border-radius:4px}\
        dl{display:grid;grid-template-columns:1fr auto;gap:.25rem 1rem}\
        dt{overflow-wrap:anywhere}dd{margin:0;font-weight:600;text-align:right}\
        button{display:block;width:100%;min-height:44px;margin:1rem 0;padding:.75rem 1rem;border:0;border-radius:6px;\
        font:inherit;font-weight:600;color:#fff;background:#0b5394;cursor:pointer}\
        button.paypal{color:#111;background:#ffc439}\
        a{color:#0b5394}\
        button:focus-visible,a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}
        """

    /// Text escaped for HTML content and double-quoted attributes.
    static func html(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Stripe's minor-unit exponent: 0 for zero-decimal currencies, 3 for three-decimal ones, else 2.
    static func minorUnitExponent(_ currency: String) -> Int {
        let zero: Set = [
            "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof",
            "xpf",
        ]
        let three: Set = ["bhd", "jod", "kwd", "omr", "tnd"]
        let code = currency.lowercased()
        return zero.contains(code) ? 0 : three.contains(code) ? 3 : 2
    }

    /// Minor units as decimal text (`499`, exponent 2 → `4.99`), exactly.
    static func decimal(minor: Int64, exponent: Int) -> String {
        guard exponent > 0 else { return String(minor) }
        var divisor: Int64 = 1
        for _ in 0..<exponent { divisor *= 10 }
        let fraction = String(minor % divisor)
        return "\(minor / divisor).\(String(repeating: "0", count: exponent - fraction.count))\(fraction)"
    }

    // MARK: Redirects

    /// `303 See Other` to a URL.
    static func redirect(to location: String) -> MockResponse {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return MockResponse(status: 303, headers: headers)
    }

    /// A URL with query pairs added (before any fragment), each percent-encoded.
    static func appendingQuery(to url: String, _ pairs: [(String, String)]) -> String {
        var head = url
        var fragment = ""
        if let hash = url.firstIndex(of: "#") {
            head = String(url[..<hash])
            fragment = String(url[hash...])
        }
        let separator = head.contains("?") ? (head.hasSuffix("?") || head.hasSuffix("&") ? "" : "&") : "?"
        return head + separator + APIRequest.query(pairs) + fragment
    }

    // MARK: Webhook deliveries

    /// Sends a webhook from a detached task (it races the buyer's redirect, as the real stores' do) and records
    /// how it went.
    func send(_ webhook: Webhook) {
        guard var request = Self.postRequest(to: webhook.url) else {
            record(webhook, status: nil, failure: HTTPTransportError.Code.invalidRequest.rawValue)
            return
        }
        request.headerFields.append(contentsOf: webhook.headers)
        Task.detached { [self, request] in
            var status: Int?
            var failure: String?
            do {
                status = try await httpClient.send(request, body: webhook.body, idempotent: true).status.code
            } catch let error as HTTPTransportError {
                failure = error.code.rawValue
            } catch {
                failure = "cancelled"
            }
            record(webhook, status: status, failure: failure)
        }
    }

    private func record(_ webhook: Webhook, status: Int?, failure: String?) {
        if !(200..<300).contains(status ?? 0) {
            logger.warning(
                "mock checkout webhook not accepted",
                metadata: [
                    "event": "\(webhook.eventType)", "status": "\(status.map(String.init) ?? "none")",
                    "failure": "\(failure ?? "")",
                ]
            )
        }
        let delivery = Delivery(
            store: webhook.store,
            eventType: webhook.eventType,
            eventId: webhook.eventId,
            url: webhook.url,
            status: status,
            failure: failure
        )
        state.withLock { $0.deliveries.append(delivery) }
    }

    /// A `POST` to an absolute http(s) URL, or `nil` for anything else.
    static func postRequest(to url: URL) -> HTTPRequest? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var authority = components.percentEncodedHost, !authority.isEmpty
        else { return nil }
        if authority.contains(":"), !authority.hasPrefix("[") { authority = "[\(authority)]" }
        if let port = components.port { authority += ":\(port)" }
        var path = components.percentEncodedPath
        if path.isEmpty { path = "/" }
        if let query = components.percentEncodedQuery { path += "?" + query }
        return HTTPRequest(method: .post, scheme: scheme, authority: authority, path: path)
    }
}

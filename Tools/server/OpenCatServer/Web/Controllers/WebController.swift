import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenCatCore

/// A controller of web pages (the portal, the console): its pages render through the shared ``WebPages`` and a
/// failure becomes the error page through ``WebPageErrorMiddleware`` on its group.
protocol WebController: ServerController {
    var pages: WebPages { get }
}

extension WebController {
    static var portalCookie: String { WebPages.portalCookie }
    static var consoleCookie: String { WebPages.consoleCookie }

    static func randomSecret() -> String { WebPages.randomSecret() }
    static func displayDate(_ date: Date) -> String { WebPages.displayDate(date) }
    static func entryLabel(_ kind: String) -> String { WebPages.entryLabel(kind) }

    func render(_ template: String, _ context: [String: Any], status: HTTPResponse.Status = .ok, cookies: [Cookie] = [])
        -> Response
    {
        pages.render(template, context, status: status, cookies: cookies)
    }

    func redirect(_ location: String, cookies: [Cookie] = []) -> Response { pages.redirect(location, cookies: cookies) }
    func form(_ request: Request) async throws -> [String: String] { try await pages.form(request) }
    func checkCSRF(_ fields: [String: String], expected: String?) throws {
        try pages.checkCSRF(fields, expected: expected)
    }
    func formToken(_ request: Request) async throws -> (token: String, cookie: Cookie?) {
        try await pages.formToken(request)
    }
    func checkFormCSRF(_ fields: [String: String], _ request: Request) async throws {
        try await pages.checkFormCSRF(fields, request)
    }
    func sessionCookie(_ name: String, _ value: String, path: String, lifetime: TimeInterval) -> Cookie {
        pages.sessionCookie(name, value, path: path, lifetime: lifetime)
    }
    func signOut(_ request: Request, csrf: String, cookie: String, path: String, then location: String) async throws
        -> Response
    {
        try await pages.signOut(request, csrf: csrf, cookie: cookie, path: path, then: location)
    }
    func notice(_ request: Request) -> String? { WebPages.notice(request) }
    func page(_ status: HTTPResponse.Status = .ok, _ html: String, cookies: [Cookie] = []) -> Response {
        pages.page(status, html, cookies: cookies)
    }
    func pageHeaders(contentType: String) -> HTTPFields { pages.pageHeaders(contentType: contentType) }
}

/// Answers a failed page as the web's error page (the way ``ErrorEnvelopeMiddleware`` answers the APIs' JSON): a
/// ``PageError`` with its status and message, a ``WebRedirect`` as a 303, an ``APIError`` (a rate limit, a store's
/// refusal) and a ``LedgerError`` in words, anything else as a 500 page that says nothing of the cause (the log has
/// its type).
struct WebPageErrorMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let pages: WebPages
    /// The area whose error page it is: its pages link back to its own start, never to the other area's.
    let area: WebPages.Area

    func handle(
        _ request: Request,
        context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let redirect as WebRedirect {
            return pages.redirect(redirect.location)
        } catch let refusal as PageError {
            return pages.errorPage(refusal.status, refusal.message, area: area)
        } catch let refusal as APIError {
            return pages.errorPage(
                refusal.status,
                refusal.status == .tooManyRequests
                    ? "Too many requests. Try again in a minute." : "The store did not confirm this payment.",
                area: area
            )
        } catch let error as LedgerError {
            return pages.errorPage(
                error.code == .notFound ? .notFound : .unprocessableContent,
                "That could not be done: \(error.code.rawValue.replacingOccurrences(of: "_", with: " ")).",
                area: area
            )
        } catch {
            pages.logger.error("page failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return pages.errorPage(
                .internalServerError,
                "Something went wrong on our side. Try again later.",
                area: area
            )
        }
    }
}

extension WebPages {
    /// The two web areas: the buyers' portal and the operators' console.
    enum Area: String, Sendable {
        case portal
        case console

        /// Where the area starts (its pages' home link).
        var home: String { self == .portal ? "/portal" : "/console" }
        /// The name in the page header.
        var label: String { self == .portal ? "keys" : "console" }
    }

    /// An area's error page: the status, the message, a link back to the area's start.
    func errorPage(_ status: HTTPResponse.Status, _ message: String, area: Area = .portal) -> Response {
        var context: [String: Any] = [
            "title": status.code >= 500 ? "Sorry" : "That did not work", "home": area.home, "area": area.label,
        ]
        context["messageId"] = "error-message"
        context["text"] = message
        context["link"] = ["href": area.home, "label": "Back to the start"]
        return render("message", context, status: status)
    }

    /// The notice a redirect asked for (`?notice=bought`), from a fixed list (never the query's text).
    static func notice(_ request: Request) -> String? {
        switch request.uri.queryParameters.get("notice") {
        case "bought": "Thank you: your keys are in your wallet."
        case "cancelled": "The payment was cancelled; nothing was charged."
        case "shared": "Shared: the keys are in their wallet."
        case "shared-pending":
            "Shared: nobody has signed in with that address yet, so the keys wait for it (below). You can take them "
                + "back until its owner signs in."
        case "share-cancelled": "The share is cancelled: its keys are back in your wallet."
        case "share-not-cancelled": "Nothing to take back: that share was cancelled already."
        case "donated": "Thank you for giving to the pool."
        case "signed-out": "You are signed out."
        case "granted": "Granted."
        case "credited": "The order is credited: its keys are in the customer's wallet."
        case "not-credited": "The store does not say this order is paid: nothing was credited."
        case "revoked": "Revoked."
        case "not-revoked": "Nothing was revoked: that entitlement was already revoked or is not this customer's."
        case "adjusted": "The wallet was adjusted."
        case "reverified": "Re-verified with the store."
        case "refunded": "The store refunded the payment; the ledger took the keys back."
        case "extended": "The store extended the subscription; the entitlement runs until its new date."
        case "refused": "The store refused the request; the audit log has its reason."
        case "test-sent": "A test event is queued for this endpoint; it is sent within seconds."
        case "resent": "The event is queued again, with the same webhook-id."
        case "not-resent": "That event never went to this endpoint."
        case "endpoint-disabled": "The endpoint is off: nothing is sent to it until it is turned on."
        case "endpoint-enabled": "The endpoint is on; what is due is sent."
        default: nil
        }
    }

    static func displayDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day().dateSeparator(.dash))
    }

    static func entryLabel(_ kind: String) -> String {
        switch kind {
        case "purchase": "Bought"
        case "spend": "Spent"
        case "unlock": "Unlocked a feature"
        case "share": "Shared"
        case "received": "Received"
        case "share_returned": "A share taken back"
        case "donation": "Donated"
        case "refund": "Refunded"
        case "adjustment": "Adjusted by support"
        default: kind.replacingOccurrences(of: "_", with: " ")
        }
    }
}

/// Sends the browser elsewhere (a page that needs a session, without one).
struct WebRedirect: Error {
    var location: String
}

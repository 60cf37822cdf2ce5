import Crypto
public import Foundation
import HTTPTypes
public import Logging
import MockStores
public import OpenCatCore
import Synchronization

/// A stateful, in-memory simulator of Stripe Checkout and PayPal order approval, served by a ``MockStoreServer``
/// next to its cassettes (checked after the cassette interactions and the built-in token endpoints, before the
/// unmatched answer), behind the same auth checks (the Stripe secret key; a PayPal bearer token the mock issued).
///
/// ```swift
/// let checkout = MockCheckout(configuration: .init(
///     stripeWebhook: (url: hooks.appendingPathComponent("stripe"), secret: Secret("whsec_…")),
///     payPalWebhook: hooks.appendingPathComponent("paypal")
/// ))
/// try await MockStoreServer.withRunningServer(credentials: credentials, checkout: checkout) { server in … }
/// ```
///
/// **Stripe.** `POST /v1/checkout/sessions` (form-encoded, mode `payment`, `line_items[i][price_data]…`,
/// `metadata[k]`, `payment_intent_data[metadata][k]`, `Idempotency-Key` honoured) answers an `open`, `unpaid`
/// Checkout Session whose `url` is the hosted page `GET /checkout/pay/{id}`. Posting that page's form
/// (`POST /checkout/pay/{id}`) pays it: the session becomes `complete`/`paid` with a succeeded PaymentIntent (read
/// with `GET /v1/payment_intents/{id}`, `expand[]=latest_charge` supported), a `checkout.session.completed` event
/// signed like Stripe (`Stripe-Signature: t=…,v1=<HMAC-SHA256>`) goes to the configured URL, and the buyer is sent
/// (303) to `success_url` with `{CHECKOUT_SESSION_ID}` (also percent-encoded) replaced by the id.
///
/// **PayPal.** `POST /v2/checkout/orders` (JSON, intent `CAPTURE`, `PayPal-Request-Id` honoured) answers an order
/// waiting for the payer with a `payer-action` link (`approve` for the older `application_context` form) to
/// `GET /checkoutnow?token={id}`. Posting that page's form approves it, sends `CHECKOUT.ORDER.APPROVED` to the
/// configured URL and sends the buyer (303) to `return_url?token={id}&PayerID={payer}`.
/// `POST /v2/checkout/orders/{id}/capture` completes an approved order (the same `PayPal-Request-Id` gets the same
/// answer; an unapproved order gets 422 `ORDER_NOT_APPROVED`, a second capture 422 `ORDER_ALREADY_CAPTURED`), and
/// `POST /v1/notifications/verify-webhook-signature` answers `SUCCESS` for exactly the deliveries the mock sent.
/// Captures are read (`GET /v2/payments/captures/{id}`) and refunded (`POST …/refund`, in full or in part, with a
/// `PAYMENT.CAPTURE.REFUNDED` event); Stripe PaymentIntents are refunded with `POST /v1/refunds` (`charge.refunded`).
///
/// Ids on these paths that the checkout did not make get the store's own 404 (not the unmatched answer). Webhooks
/// go out in detached tasks, once, without retries; ``deliveries`` records how each went.
public final class MockCheckout: Sendable {
    /// Where the checkout sends its webhooks, and who the PayPal orders pay.
    public struct Configuration: Sendable {
        /// Where `checkout.session.completed` events go, and the endpoint secret (`whsec_…`) they are signed with;
        /// `nil`: no Stripe webhooks.
        public var stripeWebhook: (url: URL, secret: Secret<String>)?
        /// Where `CHECKOUT.ORDER.APPROVED` and `PAYMENT.CAPTURE.REFUNDED` events go; `nil`: no PayPal webhooks.
        public var payPalWebhook: URL?
        /// The payee's merchant id on orders that name none (PayPalAdapter checks it against its
        /// `payeeMerchantId`).
        public var payPalMerchantId: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - stripeWebhook: the Stripe webhook endpoint and its signing secret, if any.
        ///   - payPalWebhook: the PayPal webhook endpoint, if any.
        ///   - payPalMerchantId: the payee of orders that name none.
        public init(
            stripeWebhook: (url: URL, secret: Secret<String>)? = nil,
            payPalWebhook: URL? = nil,
            payPalMerchantId: String = MockCheckout.defaultPayPalMerchantId
        ) {
            self.stripeWebhook = stripeWebhook
            self.payPalWebhook = payPalWebhook
            self.payPalMerchantId = payPalMerchantId
        }
    }

    /// One webhook the checkout sent, and how it went.
    public struct Delivery: Sendable, Hashable {
        /// `.stripe` or `.paypal`.
        public var store: Store
        /// The event type (`checkout.session.completed`, `CHECKOUT.ORDER.APPROVED`).
        public var eventType: String
        /// The event id (`evt_…`, `WH-…`).
        public var eventId: String
        /// Where it went.
        public var url: URL
        /// The receiver's HTTP status, or `nil` when no response came (the reason is in ``failure``).
        public var status: Int?
        /// Why no response came (a transport error code), or `nil`.
        public var failure: String?

        /// Creates a record.
        public init(store: Store, eventType: String, eventId: String, url: URL, status: Int?, failure: String?) {
            self.store = store
            self.eventType = eventType
            self.eventId = eventId
            self.url = url
            self.status = status
            self.failure = failure
        }
    }

    /// The payee merchant id of orders that name none: `OPENCATMOCK01`.
    public static let defaultPayPalMerchantId = "OPENCATMOCK01"
    /// The Stripe API version written into events: `2024-06-20` (StripeAdapter's default).
    public static let stripeAPIVersion = "2024-06-20"

    /// The webhook endpoints and the payee.
    public let configuration: Configuration
    let httpClient: HTTPClient
    let logger: Logger
    let state = Mutex(State())
    /// Signs PayPal transmissions (only this instance checks them, in `verify-webhook-signature`).
    let transmissionKey = SymmetricKey(size: .bits256)

    /// Creates a checkout simulator; hand it to ``MockStoreServer`` (`checkout:`).
    /// - Parameters:
    ///   - configuration: the webhook endpoints and the payee.
    ///   - httpClient: what sends the webhooks (one attempt, 10 s, by default; inject a transport in tests).
    ///   - logger: receives one line per webhook that got no 2xx (event type and status, never a secret).
    public init(
        configuration: Configuration = Configuration(),
        httpClient: HTTPClient = HTTPClient(retryPolicy: .never, timeout: .seconds(10)),
        logger: Logger = Logger(label: "dev.opencat.mockstores.checkout", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.logger = logger
    }

    /// The webhooks sent so far, in the order their deliveries finished.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    // MARK: State

    struct State: Sendable {
        var sessions: [String: StripeSession] = [:]
        var intentSessions: [String: String] = [:]
        var stripeIdempotency: [String: (body: Data, response: MockResponse)] = [:]
        var orders: [String: PayPalOrder] = [:]
        var payPalReplies: [String: MockResponse] = [:]
        var transmissions: [String: Transmission] = [:]
        var deliveries: [Delivery] = []
    }

    /// A PayPal delivery the mock sent, as `verify-webhook-signature` checks it.
    struct Transmission: Sendable {
        var time: String
        var signature: String
        var event: JSONValue
    }

    /// A webhook to send once the state lock is released.
    struct Webhook: Sendable {
        var store: Store
        var eventType: String
        var eventId: String
        var url: URL
        var headers: HTTPFields
        var body: Data
    }

    /// Who answered a request, for the server's exchange records.
    struct Handled: Sendable {
        var store: Store
        var response: MockResponse
        var rejectedByAuth: Bool
    }

    // MARK: Routing

    /// The requests the checkout serves.
    enum Route: Equatable {
        case createSession
        case session(String)
        case paymentIntent(String)
        case stripePage(String)
        case stripePay(String)
        case stripeRefund
        case createOrder
        case order(String)
        case capture(String)
        case readCapture(String)
        case refundCapture(String)
        case payPalPage(String?)
        case payPalApprove(String?)
        case verifyWebhookSignature

        init?(_ request: MockRequest) {
            let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                String($0).removingPercentEncoding ?? String($0)
            }
            switch (request.method, segments) {
            case ("POST", ["v1", "checkout", "sessions"]): self = .createSession
            case ("GET", let s) where s.count == 4 && s[0] == "v1" && s[1] == "checkout" && s[2] == "sessions":
                self = .session(s[3])
            case ("GET", let s) where s.count == 3 && s[0] == "v1" && s[1] == "payment_intents":
                self = .paymentIntent(s[2])
            case ("GET", let s) where s.count == 3 && s[0] == "checkout" && s[1] == "pay": self = .stripePage(s[2])
            case ("POST", let s) where s.count == 3 && s[0] == "checkout" && s[1] == "pay": self = .stripePay(s[2])
            case ("POST", ["v1", "refunds"]): self = .stripeRefund
            case ("POST", ["v2", "checkout", "orders"]): self = .createOrder
            case ("GET", let s) where s.count == 4 && s[0] == "v2" && s[1] == "checkout" && s[2] == "orders":
                self = .order(s[3])
            case ("POST", let s)
            where s.count == 5 && s[0] == "v2" && s[1] == "checkout" && s[2] == "orders" && s[4] == "capture":
                self = .capture(s[3])
            case ("GET", let s) where s.count == 4 && s[0] == "v2" && s[1] == "payments" && s[2] == "captures":
                self = .readCapture(s[3])
            case ("POST", let s)
            where s.count == 5 && s[0] == "v2" && s[1] == "payments" && s[2] == "captures" && s[4] == "refund":
                self = .refundCapture(s[3])
            case ("GET", ["checkoutnow"]): self = .payPalPage(request.queryValue("token"))
            case ("POST", ["checkoutnow"]): self = .payPalApprove(request.queryValue("token"))
            case ("POST", ["v1", "notifications", "verify-webhook-signature"]): self = .verifyWebhookSignature
            default: return nil
            }
        }

        /// The store whose API (or hosted page) this is.
        var store: Store {
            switch self {
            case .createSession, .session, .paymentIntent, .stripePage, .stripePay, .stripeRefund: .stripe
            default: .paypal
            }
        }

        /// Whether the store's API credentials are checked (not for the buyer's hosted pages).
        var isAPI: Bool {
            switch self {
            case .stripePage, .stripePay, .payPalPage, .payPalApprove: false
            default: true
            }
        }
    }

    /// Answers a request the checkout serves, or `nil` when it is not one of its endpoints. Called by the server
    /// with its own lock held: it sends webhooks from detached tasks and never waits.
    /// - Parameters:
    ///   - request: the request (its `receivedAt` is "now").
    ///   - baseURL: the server's base URL (for the hosted pages' links).
    ///   - authenticate: the store's built-in auth check (`nil`: accepted).
    func handle(
        _ request: MockRequest,
        baseURL: URL,
        authenticate: (Store) -> MockResponse?
    ) -> Handled? {
        guard let route = Route(request) else { return nil }
        if route.isAPI, let rejection = authenticate(route.store) {
            return Handled(store: route.store, response: rejection, rejectedByAuth: true)
        }
        let base = Self.origin(of: baseURL)
        var webhooks: [Webhook] = []
        let response = state.withLock { state -> MockResponse in
            switch route {
            case .createSession: return createSession(request, base: base, state: &state)
            case .session(let id): return readSession(id, request: request, state: state)
            case .paymentIntent(let id): return readPaymentIntent(id, request: request, state: state)
            case .stripePage(let id): return stripePage(id, state: state)
            case .stripePay(let id): return pay(id, request: request, state: &state, webhooks: &webhooks)
            case .stripeRefund: return refund(request, state: &state, webhooks: &webhooks)
            case .createOrder: return createOrder(request, base: base, state: &state)
            case .order(let id): return readOrder(id, base: base, state: state)
            case .capture(let id): return capture(id, request: request, base: base, state: &state)
            case .readCapture(let id): return readCapture(id, base: base, state: state)
            case .refundCapture(let id):
                return refundCapture(id, request: request, base: base, state: &state, webhooks: &webhooks)
            case .payPalPage(let token): return payPalPage(token, state: state)
            case .payPalApprove(let token):
                return approve(token, request: request, base: base, state: &state, webhooks: &webhooks)
            case .verifyWebhookSignature: return verifyWebhookSignature(request, state: state)
            }
        }
        webhooks.forEach(send)
        return Handled(store: route.store, response: response, rejectedByAuth: false)
    }

    /// `scheme://host:port` of the server, without a trailing slash.
    static func origin(of url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    // MARK: Ids and times

    /// `prefix` followed by `count` random characters of `alphabet`.
    static func randomId(_ prefix: String, count: Int, alphabet: String = alphanumerics) -> String {
        let characters = Array(alphabet)
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<count).map { _ in characters.randomElement(using: &generator)! })
    }

    static let alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    static let upperAlphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    /// Seconds since 1970, rounded down.
    static func unixTime(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// PayPal's ISO 8601 time (`2024-01-01T00:00:00Z`).
    static func isoTime(_ date: Date) -> String { Date.ISO8601FormatStyle().format(date) }
}

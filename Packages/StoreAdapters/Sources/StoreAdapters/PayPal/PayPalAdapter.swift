import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

/// Verifies PayPal Checkout payments: reads an order with `GET /v2/checkout/orders/{id}` (OAuth 2.0 client
/// credentials, token cached) and maps it to a ``VerifiedPurchase``; captures approved orders.
///
/// The proof is a `PurchaseProof` of kind `PurchaseProof/Kind/paypalOrder` whose token is the order id.
/// OpenCat orders carry one purchase unit: `reference_id` is the product id and `custom_id` the app's user id.
///
/// How an order maps (by its status, then its first purchase unit's first capture):
/// - `COMPLETED`, capture `COMPLETED` → ``VerifiedPurchase/State/active``.
/// - `COMPLETED`, capture `PENDING` → ``VerifiedPurchase/State/pending``.
/// - `COMPLETED`, capture `DECLINED` or `FAILED` → throws ``StoreAdapterError/Code/notPaid``.
/// - `COMPLETED`, capture `REFUNDED` → ``VerifiedPurchase/State/refunded``; the refunded amount is the sum of the
///   completed refunds listed, else the capture's amount.
/// - `COMPLETED`, capture `PARTIALLY_REFUNDED` → ``VerifiedPurchase/State/refunded`` with the completed refunds'
///   sum as ``VerifiedPurchase/refundedAmount``.
/// - `COMPLETED` with an authorization but no capture → ``VerifiedPurchase/State/pending`` (not captured yet).
/// - `APPROVED` with intent `CAPTURE` → captured (`POST …/capture` with
///   `PayPal-Request-Id: opencat-capture-<order id>`, so a repeat cannot charge twice), then mapped again with
///   ``VerifiedPurchase/finalizedByAdapter`` set. With capturing off, or intent `AUTHORIZE` → pending.
/// - `CREATED`, `SAVED`, `PAYER_ACTION_REQUIRED` → ``VerifiedPurchase/State/pending``: the buyer has not approved
///   yet, but nothing failed and they still can (like Steam's `Init`). Access is not granted either way.
/// - `VOIDED` → throws ``StoreAdapterError/Code/notPaid``.
/// - anything else → throws ``StoreAdapterError/Code/malformedResponse``: an unknown state never grants access.
///
/// The product is checked *before* an approved order is captured: an order without `reference_id` is an
/// ``StoreAdapterError/Code/invalidProof``, one for another product than `PurchaseProof/productId` a
/// ``StoreAdapterError/Code/productMismatch``. So are the price and the payee (see
/// `checkTerms(of:productId:configuration:)`: a wrong amount or currency is `productMismatch`, another payee
/// `notPaid`), checked again on the captured amounts, and the purchaser: when
/// `PurchaseProof/expectedPurchaser` is set, `custom_id` must be present and equal (`purchaserMismatch`).
/// ``VerifiedPurchase/verifiedAt`` is the last response's HTTP `Date` (nil without one), never the device clock. Amounts are PayPal's decimal strings, kept exact. The environment
/// is the configured one (sandbox or live). The transaction id is the capture id (the order id if there is none).
///
/// Errors: 404 / `RESOURCE_NOT_FOUND` → ``StoreAdapterError/Code/notFound``; 401 (after one token refresh) /
/// 403 / `invalid_client` → ``StoreAdapterError/Code/unauthorized``; 429 / `RATE_LIMIT_REACHED` →
/// ``StoreAdapterError/Code/rateLimited``; 5xx after retries → ``StoreAdapterError/Code/storeUnavailable``;
/// 422 `UNPROCESSABLE_ENTITY` (`ORDER_NOT_APPROVED`, `INSTRUMENT_DECLINED`, …) →
/// ``StoreAdapterError/Code/notPaid``, except `ORDER_ALREADY_CAPTURED` / `ORDER_COMPLETION_IN_PROGRESS` on
/// capture, which re-read the order; other 4xx → ``StoreAdapterError/Code/invalidProof``. The store reason is
/// `NAME/ISSUE (debug_id …)`; PayPal's `message` and descriptions are never copied.
public struct PayPalAdapter: StoreAdapter {
    /// The configuration.
    public let configuration: Configuration
    let api: PayPalAPI

    /// Always `Store/paypal`.
    public var store: Store { .paypal }

    /// Creates an adapter.
    /// - Parameter configuration: credentials, environment, base URL and HTTP client.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.api = PayPalAPI(configuration: configuration)
    }

    /// A webhook verifier that shares this adapter's access token cache.
    /// - Parameters:
    ///   - webhookId: the webhook's id (default: ``Configuration/webhookId``).
    ///   - tolerance: see ``PayPalWebhookVerifier/tolerance``.
    ///   - isReplay: see ``PayPalWebhookVerifier/isReplay``.
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/misconfigured`` without a webhook id.
    public func webhookVerifier(
        webhookId: String? = nil,
        tolerance: Duration? = PayPalWebhookVerifier.defaultTolerance,
        isReplay: PayPalWebhookVerifier.ReplayCheck? = nil
    ) throws(StoreAdapterError) -> PayPalWebhookVerifier {
        try PayPalWebhookVerifier(
            api: api,
            webhookId: webhookId ?? configuration.webhookId,
            tolerance: tolerance,
            isReplay: isReplay
        )
    }

    /// Verifies an order, capturing it first if it is approved and ``Configuration/captureApproved`` is set.
    /// - Parameter proof: a `PurchaseProof/Kind/paypalOrder` proof.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError``.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        if proof.store == .paypal, proof.kind == .paypalSubscription { return try await verifySubscription(proof) }
        guard proof.store == .paypal, proof.kind == .paypalOrder else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "a \(proof.store) \(proof.kind) proof cannot be verified with PayPal"
            )
        }
        let id = try Self.orderId(from: proof.token)
        var (order, storeDate) = try await fetchOrder(id: id)
        let productId = try Self.productId(of: order, expected: proof.productId)
        // Never capture an order for the wrong price, payee or purchaser: it can be made in the browser.
        try Self.checkTerms(of: order, productId: productId, configuration: configuration)
        try PurchaserBinding.check(
            proof,
            reported: order.purchaseUnits?.first?.customId,
            field: "purchase_units[0].custom_id"
        )
        var finalized = false
        if order.status == .approved, configuration.captureApproved, (order.intent ?? .capture) == .capture {
            (order, storeDate) = try await capture(orderId: id)
            finalized = true
            try Self.checkTerms(of: order, productId: productId, configuration: configuration)
        }
        let purchase = try Self.purchase(
            from: order,
            expectedProductId: proof.productId,
            environment: configuration.environment,
            finalizedByAdapter: finalized,
            verifiedAt: storeDate
        )
        try PurchaserBinding.check(proof, reported: purchase.purchaser, field: "purchase_units[0].custom_id")
        configuration.logger.debug(
            "paypal order verified",
            metadata: [
                "state": "\(purchase.state)", "captured": "\(finalized)", "environment": "\(purchase.environment)",
            ]
        )
        return purchase
    }

    /// Reads an order.
    /// - Parameter id: the order id.
    /// - Returns: the order.
    /// - Throws: ``StoreAdapterError``.
    public func order(id: Secret<String>) async throws -> PayPal.Order {
        try await fetchOrder(id: try Self.orderId(from: id)).order
    }

    /// Reads an order, with the response's HTTP `Date` (PayPal's time; `nil` when absent or unreadable).
    private func fetchOrder(id: String) async throws -> (order: PayPal.Order, date: Date?) {
        let response = try await api.send(.get, path: "/v2/checkout/orders/\(id)")
        guard response.status.code == 200 else { throw api.error(for: response, subject: "order") }
        return (try api.http.decode(PayPal.Order.self, from: response.body), HTTPDate.of(response.head.headerFields))
    }

    /// Captures an approved order, idempotently: the `PayPal-Request-Id` is derived from the order id, so a
    /// retried or repeated capture cannot charge twice.
    private func capture(orderId id: String) async throws -> (order: PayPal.Order, date: Date?) {
        let response = try await api.send(
            .post,
            path: "/v2/checkout/orders/\(id)/capture",
            headers: [
                (.paypalRequestId, Self.captureRequestId(orderId: id)), (.paypalPrefer, "return=representation"),
            ],
            body: Data("{}".utf8)
        )
        switch response.status.code {
        case 200, 201:
            let order = try api.http.decode(PayPal.Order.self, from: response.body)
            // A minimal representation has no purchase units: read the whole order.
            guard order.purchaseUnits?.isEmpty == false else { return try await fetchOrder(id: id) }
            return (order, HTTPDate.of(response.head.headerFields))
        case 422:
            let body = try? JSONDecoder().decode(PayPal.ErrorResponse.self, from: response.body)
            let issues = body?.issues ?? []
            if issues.contains("ORDER_ALREADY_CAPTURED") || issues.contains("ORDER_COMPLETION_IN_PROGRESS") {
                return try await fetchOrder(id: id)
            }
            throw api.error(for: response, subject: "order")
        default:
            throw api.error(for: response, subject: "order")
        }
    }

    /// The `PayPal-Request-Id` of an order's capture: `opencat-capture-<order id>`.
    static func captureRequestId(orderId: String) -> String { "opencat-capture-\(orderId)" }

    /// The order id in a token: letters, digits, `-` and `_`, at most 64 characters (it goes into a URL path).
    static func orderId(from token: Secret<String>) throws -> String {
        let id = token.revealed
        guard !id.isEmpty, id.utf8.count <= 64,
            id.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        else {
            throw StoreAdapterError(.invalidProof, store: .paypal, "the token is not a PayPal order id")
        }
        return id
    }
}

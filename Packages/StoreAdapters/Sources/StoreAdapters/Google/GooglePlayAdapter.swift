import Foundation
import HTTPTypes
public import Logging
public import OpenCatCore

/// Verifies Google Play purchase tokens with the Google Play Developer API (androidpublisher v3).
///
/// - `.googleProductPurchaseToken` → `purchases.products.get` (the proof's `productId` is required):
///   purchaseState 0 → `active`, 2 → `pending`, 1 (canceled) → `notPaid`; `purchaseType` 0 (license tester) →
///   `sandbox`.
/// - `.googleSubscriptionPurchaseToken` → `purchases.subscriptionsv2.get`: ACTIVE → `active`; IN_GRACE_PERIOD →
///   `gracePeriod`; ON_HOLD → `billingRetry`; PAUSED → `expired` (a paused subscription grants no access, and the
///   normalized states have no "paused"); CANCELED → `active` until `expiryTime`, then `expired`, never renewing;
///   EXPIRED → `expired`; PENDING → `pending`; PENDING_PURCHASE_CANCELED → `notPaid`. A `testPurchase` →
///   `sandbox`; the recurring price (`units` + `nanos`) becomes an exact ``Money``.
///
/// A paid purchase that is not yet acknowledged is acknowledged (`:acknowledge`) when
/// ``Configuration/acknowledge`` is on, and the result says ``VerifiedPurchase/finalizedByAdapter``. A failed
/// acknowledgement fails the verification, so that the caller retries it before Google's three-day refund.
///
/// Google's error envelope is mapped to ``StoreAdapterError`` with `error.errors[].reason` kept as
/// ``StoreAdapterError/storeReason``: `purchaseTokenDoesNotMatchProductId` → `productMismatch`;
/// `purchaseTokenNotFound`/404 and `purchaseTokenNoLongerValid`/410 (tokens are dropped 60 days after expiry) →
/// `notFound`; `applicationNotFound` → `wrongApplication`; other 400s → `invalidProof`; 401/403 → `unauthorized`
/// (after one retry with a fresh token on 401); 429 → `rateLimited`; 5xx → `storeUnavailable`.
///
/// When ``PurchaseProof/expectedPurchaser`` is set, the purchase's `obfuscatedExternalAccountId` must equal it
/// (checked before acknowledging); a purchase without one is refused too → `purchaserMismatch`.
/// ``VerifiedPurchase/verifiedAt`` is the response's HTTP `Date` (nil without one), never the device clock; a
/// subscription in grace reports its `expiryTime` as the grace end (Google gives no other).
///
/// The purchase token never reaches a log line or an error message; nor do request paths, which contain it.
public struct GooglePlayAdapter: StoreAdapter {
    /// The adapter's settings.
    public let configuration: Configuration
    private let http: StoreHTTP
    private let logger: Logger

    /// Creates an adapter.
    /// - Parameters:
    ///   - configuration: package name, credentials, base URL and HTTP client.
    ///   - logger: receives one line per verification (never a token); a no-op logger by default.
    public init(
        configuration: Configuration,
        logger: Logger = Logger(label: "dev.opencat.google", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.http = StoreHTTP(client: configuration.httpClient, store: .google)
        self.logger = logger
    }

    /// Always ``Store/google``.
    public var store: Store { .google }

    /// Verifies a Google Play purchase token.
    /// - Parameter proof: a `.googleProductPurchaseToken` (with `productId`) or `.googleSubscriptionPurchaseToken`
    ///   proof; a `packageName` in its context must match the configured one.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError``.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard proof.store == .google else {
            throw StoreAdapterError(.invalidProof, store: .google, "the proof is for another store (\(proof.store))")
        }
        guard !proof.token.revealed.isEmpty else {
            throw StoreAdapterError(.invalidProof, store: .google, "the purchase token is empty")
        }
        if let packageName = proof.context["packageName"], packageName != configuration.packageName {
            throw StoreAdapterError(
                .wrongApplication,
                store: .google,
                "the proof names another package than the configured one"
            )
        }
        let purchase: VerifiedPurchase
        switch proof.kind {
        case .googleProductPurchaseToken:
            purchase = try await verifyProduct(proof)
        case .googleSubscriptionPurchaseToken:
            purchase = try await verifySubscription(proof)
        default:
            throw StoreAdapterError(
                .invalidProof,
                store: .google,
                "a Google Play adapter cannot verify a \(proof.kind) proof"
            )
        }
        logger.debug(
            "google play purchase verified",
            metadata: [
                "kind": "\(proof.kind)", "productId": "\(purchase.productId)", "state": "\(purchase.state)",
                "environment": "\(purchase.environment)", "acknowledged": "\(purchase.finalizedByAdapter)",
            ]
        )
        return purchase
    }

    // MARK: - purchases.products

    private func verifyProduct(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard let productId = proof.productId, !productId.isEmpty else {
            throw StoreAdapterError(.invalidProof, store: .google, "a Google Play product proof needs its product id")
        }
        let path =
            "\(applicationPath)/purchases/products/\(Self.segment(productId))/tokens/\(Self.segment(proof.token.revealed))"
        let response = try await sendAuthorized(.get, path: path)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        let purchase = try http.decode(ProductPurchase.self, from: response.body)
        let storeDate = HTTPDate.of(response.head.headerFields)

        if let reported = purchase.productId, reported != productId {
            throw StoreAdapterError(.productMismatch, store: .google, "the purchase is for another product")
        }
        guard let millis = purchase.purchaseTimeMillis?.value else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "the product purchase has no purchaseTimeMillis"
            )
        }
        let state: VerifiedPurchase.State
        let status: String
        switch purchase.purchaseState {
        case .purchased:
            (state, status) = (.active, "purchased")
        case .pending:
            (state, status) = (.pending, "pending")
        case .canceled:
            throw StoreAdapterError(
                .notPaid,
                store: .google,
                "the purchase was canceled",
                storeReason: "purchaseState=1"
            )
        case let other:
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "unknown product purchaseState",
                storeReason: other.map { "purchaseState=\($0.rawValue)" } ?? "purchaseState missing"
            )
        }

        try PurchaserBinding.check(proof, reported: purchase.obfuscatedExternalAccountId, field: "obfuscatedExternalAccountId")
        var acknowledged = false
        if state == .active, configuration.acknowledge, purchase.acknowledgementState == .yetToBeAcknowledged,
            purchase.consumptionState != .consumed
        {
            try await acknowledge(path: path + ":acknowledge")
            acknowledged = true
        }

        return VerifiedPurchase(
            store: .google,
            transactionId: purchase.orderId ?? proof.fingerprint,
            productId: productId,
            purchaser: purchase.obfuscatedExternalAccountId,
            purchaseDate: Date(timeIntervalSince1970: TimeInterval(millis) / 1000),
            state: state,
            environment: purchase.purchaseType == .test ? .sandbox : .production,
            quantity: Int(purchase.quantity ?? 1),
            finalizedByAdapter: acknowledged,
            storeStatus: status,
            verifiedAt: storeDate
        )
    }

    // MARK: - purchases.subscriptionsv2

    private func verifySubscription(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = Self.segment(proof.token.revealed)
        let response = try await sendAuthorized(
            .get,
            path: "\(applicationPath)/purchases/subscriptionsv2/tokens/\(token)"
        )
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        let subscription = try http.decode(SubscriptionPurchaseV2.self, from: response.body)
        let storeDate = HTTPDate.of(response.head.headerFields)

        guard let items = subscription.lineItems, !items.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the subscription has no line items")
        }
        let item: SubscriptionPurchaseLineItem
        if let wanted = proof.productId {
            guard let match = items.first(where: { $0.productId == wanted }) else {
                throw StoreAdapterError(.productMismatch, store: .google, "the subscription is for another product")
            }
            item = match
        } else {
            item = items[0]
        }
        guard let productId = item.productId, !productId.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .google, "the subscription line item has no productId")
        }
        let expiry = try item.expiryTime.map { try Self.timestamp($0, field: "expiryTime") }
        let start = try subscription.startTime.map { try Self.timestamp($0, field: "startTime") }
        // Google's own time decides "still before expiry" when it sent one; the device clock only as a fallback.
        let now = storeDate ?? http.client.clock.currentDate
        let autoRenew = item.autoRenewingPlan?.autoRenewEnabled ?? false
        let rawState = subscription.subscriptionState?.rawValue ?? "missing"

        let state: VerifiedPurchase.State
        var willRenew = false
        switch subscription.subscriptionState {
        case .active:
            (state, willRenew) = (.active, autoRenew)
        case .inGracePeriod:
            (state, willRenew) = (.gracePeriod, autoRenew)
        case .onHold:
            (state, willRenew) = (.billingRetry, autoRenew)
        case .paused:
            state = .expired
        case .canceled:
            state = expiry.map { $0 > now } == true ? .active : .expired
        case .expired:
            state = .expired
        case .pending:
            state = .pending
        case .pendingPurchaseCanceled:
            throw StoreAdapterError(
                .notPaid,
                store: .google,
                "the pending subscription purchase was canceled",
                storeReason: rawState
            )
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .google,
                "unknown subscriptionState",
                storeReason: rawState
            )
        }

        try PurchaserBinding.check(
            proof,
            reported: subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            field: "externalAccountIdentifiers.obfuscatedExternalAccountId"
        )
        var acknowledged = false
        if state == .active || state == .gracePeriod, configuration.acknowledge,
            subscription.acknowledgementState == .pending
        {
            try await acknowledge(
                path:
                    "\(applicationPath)/purchases/subscriptions/\(Self.segment(productId))/tokens/\(token):acknowledge"
            )
            acknowledged = true
        }

        let orderId = item.latestSuccessfulOrderId ?? subscription.latestOrderId
        return VerifiedPurchase(
            store: .google,
            transactionId: orderId ?? proof.fingerprint,
            originalTransactionId: orderId.map(Self.originalOrderId),
            productId: productId,
            purchaser: subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            purchaseDate: start ?? now,
            expirationDate: expiry,
            // subscriptionsv2 has no grace end of its own: while in grace, the line item's expiryTime is the end of
            // the grace period (the engine bounds it as well).
            gracePeriodExpirationDate: state == .gracePeriod ? expiry : nil,
            state: state,
            environment: subscription.testPurchase != nil ? .sandbox : .production,
            price: item.autoRenewingPlan?.recurringPrice?.money,
            willRenew: willRenew,
            finalizedByAdapter: acknowledged,
            storeStatus: rawState,
            verifiedAt: storeDate
        )
    }

    // MARK: - HTTP

    private var applicationPath: String {
        "/androidpublisher/v3/applications/\(Self.segment(configuration.packageName))"
    }

    private func acknowledge(path: String) async throws {
        // Acknowledging twice is harmless, so the request may be retried.
        let response = try await sendAuthorized(.post, path: path, body: Data("{}".utf8), idempotent: true)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
    }

    /// Sends an API request with a bearer token; on 401 drops the token and tries once more with a fresh one.
    private func sendAuthorized(
        _ method: HTTPRequest.Method,
        path: String,
        body: Data? = nil,
        idempotent: Bool? = nil
    ) async throws -> HTTPTransportResponse {
        let cache = await configuration.tokenProvider.tokenCache()
        return try await cache.sendAuthorized(
            onRefused: { [logger] in logger.notice("google play api refused the access token; fetching a new one") }
        ) { [self] token in
            try await http.send(
                request(method, path: path, token: token, hasBody: body != nil), body: body, idempotent: idempotent)
        }
    }

    private func request(_ method: HTTPRequest.Method, path: String, token: Secret<String>, hasBody: Bool)
        -> HTTPRequest
    {
        let base = configuration.baseURL
        let basePath = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
        var request = HTTPRequest(
            method: method,
            scheme: base.scheme,
            authority: GoogleAccessTokenProvider.authority(of: base),
            path: basePath + path
        )
        request.headerFields[.authorization] = "Bearer \(token.revealed)"
        request.headerFields[.accept] = "application/json"
        if hasBody { request.headerFields[.contentType] = "application/json" }
        return request
    }

    /// Maps a non-2xx answer to the shared error, keeping Google's reason.
    private func error(for response: HTTPTransportResponse) -> StoreAdapterError {
        let status = response.status.code
        let reason = (try? JSONDecoder().decode(GoogleAPIErrorResponse.self, from: response.body))?.reason
        func make(_ code: StoreAdapterError.Code, _ message: String) -> StoreAdapterError {
            StoreAdapterError(code, store: .google, message, storeReason: reason, httpStatus: status)
        }
        switch reason {
        case "purchaseTokenDoesNotMatchProductId":
            return make(.productMismatch, "the purchase token is for another product")
        case "purchaseTokenDoesNotMatchPackageName", "applicationNotFound":
            return make(.wrongApplication, "the purchase token or package does not belong to the configured app")
        case "purchaseTokenNoLongerValid":
            return make(.notFound, "the purchase token is no longer valid")
        case "purchaseTokenNotFound":
            return make(.notFound, "Google Play does not know the purchase token")
        default:
            break
        }
        switch status {
        case 404, 410:
            return make(.notFound, "Google Play does not know the purchase")
        case 400, 409, 422:
            return make(.invalidProof, "Google Play rejected the purchase token")
        default:
            if let common = http.commonError(for: response, reason: reason) { return common }
            return make(.malformedResponse, "unexpected HTTP status from Google Play")
        }
    }

    // MARK: - Helpers

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// Percent-encodes one path segment.
    static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    private static func timestamp(_ text: String, field: String) throws -> Date {
        guard let date = RFC3339Timestamp.date(from: text) else {
            throw StoreAdapterError(.malformedResponse, store: .google, "\(field) is not an RFC 3339 timestamp")
        }
        return date
    }

    /// Google's renewal order ids extend the first one: `GPA.1234-5678-9012-34567..2` → `GPA.1234-5678-9012-34567`.
    static func originalOrderId(_ orderId: String) -> String {
        guard let range = orderId.range(of: "..") else { return orderId }
        return String(orderId[..<range.lowerBound])
    }
}

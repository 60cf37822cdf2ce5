import Foundation
import HTTPTypes
public import Logging
public import OpenCatCore

/// Verifies Google Play purchase tokens with the Google Play Developer API (androidpublisher v3).
///
/// - `.googleProductPurchaseToken` → `purchases.products.get` when the proof names its `productId`:
///   purchaseState 0 → `active`, 2 → `pending`, 1 (canceled) → `notPaid`; `purchaseType` 0 (license tester) →
///   `sandbox`. Without a product id → `purchases.productsv2.getproductpurchasev2`, which names the products:
///   `PURCHASED` → `active`, `PENDING` → `pending`, `CANCELLED` → `notPaid`; a `testPurchaseContext` → `sandbox`.
/// - `.googleSubscriptionPurchaseToken` → `purchases.subscriptionsv2.get`: ACTIVE → `active`; IN_GRACE_PERIOD →
///   `gracePeriod`; ON_HOLD → `billingRetry`; PAUSED → `expired` (a paused subscription grants no access, and the
///   normalized states have no "paused"); CANCELED → `active` until `expiryTime`, then `expired`, never renewing;
///   EXPIRED → `expired`; PENDING → `pending`; PENDING_PURCHASE_CANCELED → `notPaid`. A `testPurchase` →
///   `sandbox`; the recurring price (`units` + `nanos`) becomes an exact `Money`.
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
/// When `PurchaseProof/expectedPurchaser` is set, the purchase's `obfuscatedExternalAccountId` must equal it
/// (checked before acknowledging); a purchase without one is refused too → `purchaserMismatch`.
/// ``VerifiedPurchase/verifiedAt`` is the response's HTTP `Date` (nil without one), never the device clock; a
/// subscription in grace reports its `expiryTime` as the grace end (Google gives no other).
///
/// The purchase token never reaches a log line or an error message; nor do request paths, which contain it.
public struct GooglePlayAdapter: StoreAdapter {
    /// The adapter's settings.
    public let configuration: Configuration
    let http: StoreHTTP
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

    /// Always `Store/google`.
    public var store: Store { .google }

    /// Refuses a proof that is not Google's, is empty, or names another package than the configured one.
    func checkProof(_ proof: PurchaseProof) throws(StoreAdapterError) {
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
    }

    /// Verifies a Google Play purchase token.
    /// - Parameter proof: a `.googleProductPurchaseToken` (with `productId`) or `.googleSubscriptionPurchaseToken`
    ///   proof; a `packageName` in its context must match the configured one.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError``.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try checkProof(proof)
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
        guard let productId = proof.productId, !productId.isEmpty else { return try await verifyProductV2(proof) }
        let path =
            "\(applicationPath)/purchases/products/\(Self.segment(productId))/tokens/\(Self.segment(proof.token.revealed))"
        let response = try await sendAuthorized(.get, path: path)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        let decoded = try http.decode(ProductPurchase.self, from: response.body)
        let storeDate = HTTPDate.of(response.head.headerFields)

        let purchase = try GooglePurchaseMapping.product(
            decoded,
            proof: proof,
            productId: productId,
            verifiedAt: storeDate
        )
        return try await finishProduct(
            purchase,
            proof: proof,
            purchaser: decoded.obfuscatedExternalAccountId,
            acknowledgeable: decoded.acknowledgementState == .yetToBeAcknowledged
                && decoded.consumptionState != .consumed,
            acknowledgePath: path + ":acknowledge"
        )
    }

    /// What every one-time purchase read ends with: the purchaser binding checked, the purchase acknowledged when it is
    /// active, still unacknowledged and not consumed (and the adapter acknowledges), the voided purchases consulted.
    private func finishProduct(
        _ read: VerifiedPurchase,
        proof: PurchaseProof,
        purchaser: String?,
        acknowledgeable: Bool,
        acknowledgePath: String
    ) async throws -> VerifiedPurchase {
        try PurchaserBinding.check(proof, reported: purchaser, field: "obfuscatedExternalAccountId")
        var purchase = read
        purchase.finalizedByAdapter = false
        if purchase.state == .active, configuration.acknowledge, acknowledgeable {
            try await acknowledge(path: acknowledgePath)
            purchase.finalizedByAdapter = true
        }
        return try await consultingVoidedPurchases(purchase, token: proof.token.revealed, subscription: false)
    }

    /// A product token without its product id: `purchases.productsv2.getproductpurchasev2` (`GET
    /// …/purchases/productsv2/tokens/{token}`;
    /// <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.productsv2/getproductpurchasev2>),
    /// which names the products the token bought; acknowledged through `purchases.products.acknowledge` with the
    /// product it names, as ``verify(_:)`` acknowledges a product read by id.
    private func verifyProductV2(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = Self.segment(proof.token.revealed)
        let response = try await sendAuthorized(.get, path: "\(applicationPath)/purchases/productsv2/tokens/\(token)")
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        let decoded = try http.decode(ProductPurchaseV2.self, from: response.body)
        let storeDate = HTTPDate.of(response.head.headerFields)
        let purchase = try GooglePurchaseMapping.productV2(
            decoded,
            proof: proof,
            now: http.client.clock.currentDate,
            verifiedAt: storeDate
        )
        let consumed = decoded.productLineItem?.contains { $0.productOfferDetails?.consumptionState == .consumed }
        let product = Self.segment(purchase.productId)
        return try await finishProduct(
            purchase,
            proof: proof,
            purchaser: decoded.obfuscatedExternalAccountId,
            acknowledgeable: decoded.acknowledgementState == .pending && consumed != true,
            acknowledgePath: "\(applicationPath)/purchases/products/\(product)/tokens/\(token):acknowledge"
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

        // Google's own time decides "still before expiry" when it sent one; the device clock only as a fallback.
        var purchase = try GooglePurchaseMapping.subscription(
            subscription,
            proof: proof,
            now: storeDate ?? http.client.clock.currentDate,
            verifiedAt: storeDate
        )
        try PurchaserBinding.check(
            proof,
            reported: subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            field: "externalAccountIdentifiers.obfuscatedExternalAccountId"
        )
        var acknowledged = false
        if purchase.state == .active || purchase.state == .gracePeriod, configuration.acknowledge,
            subscription.acknowledgementState == .pending
        {
            try await acknowledge(
                path:
                    "\(applicationPath)/purchases/subscriptions/\(Self.segment(purchase.productId))/tokens/\(token):acknowledge"
            )
            acknowledged = true
        }

        purchase.finalizedByAdapter = acknowledged
        return try await consultingVoidedPurchases(purchase, token: proof.token.revealed, subscription: true)
    }

    // MARK: - HTTP

    var applicationPath: String {
        "/androidpublisher/v3/applications/\(Self.segment(configuration.packageName))"
    }

    private func acknowledge(path: String) async throws {
        // Acknowledging twice is harmless, so the request may be retried.
        let response = try await sendAuthorized(.post, path: path, body: Data("{}".utf8), idempotent: true)
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
    }

    /// Sends an API request with a bearer token; on 401 drops the token and tries once more with a fresh one.
    func sendAuthorized(
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
                request(method, path: path, token: token, hasBody: body != nil),
                body: body,
                idempotent: idempotent
            )
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
    func error(for response: HTTPTransportResponse) -> StoreAdapterError {
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

    /// Percent-encodes one path segment.
    static func segment(_ value: String) -> String { APIRequest.percentEncoded(value) }

}

import Foundation
import HTTPTypes
import Logging
import OpenCatCore
import OpenCatTesting
import Synchronization
import _CryptoExtras

@testable import StoreAdapters

/// Fixtures for the Google Play tests: one RSA key per test run, a service account built from it, a harness that
/// wires a token provider and an adapter to a ScriptedTransport on a manual clock, and JSON bodies written from
/// the androidpublisher v3 reference.
enum GoogleTestSupport {
    /// Generated once (RSA key generation is slow); never written anywhere.
    static let signingKey: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(keySize: .bits2048) } catch {
            fatalError("RSA key generation failed: \(error)")
        }
    }()

    static let packageName = "dev.opencat.sample"
    static let tokenURI = URL(string: "https://oauth2.test.invalid/o/oauth2/token")!
    static let tokenPath = "/o/oauth2/token"
    static let clientEmail = "play-verifier@opencat-test.iam.gserviceaccount.com"
    static let keyID = "0123456789abcdef-test-key"
    /// Distinctive values, so that a leak is easy to find in logs and error texts.
    static let purchaseToken = "opaque-PURCHASE-token.AO-J1Oz_leakcheck"
    static let accessToken = "ya29.ACCESS-token-leakcheck"

    static var serviceAccount: GoogleServiceAccount {
        GoogleServiceAccount(
            projectId: "opencat-test",
            privateKeyId: keyID,
            privateKey: Secret(signingKey.pkcs8PEMRepresentation),
            clientEmail: clientEmail,
            tokenURI: tokenURI
        )
    }

    /// The service account as a Google JSON key file.
    static func keyFileJSON() throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": "opencat-test", "private_key_id": keyID,
            "private_key": signingKey.pkcs8PEMRepresentation, "client_email": clientEmail,
            "client_id": "100000000000000000001", "token_uri": tokenURI.absoluteString,
        ])
    }

    /// A middle slice of the private key's base64 body, to look for in logs and errors.
    static var privateKeyFragment: String {
        let body = signingKey.pkcs8PEMRepresentation.split(separator: "\n").dropFirst(3).first ?? ""
        return String(body.prefix(40))
    }

    struct Harness {
        var transport: ScriptedTransport
        var clock: ManualClock
        var provider: GoogleAccessTokenProvider
        var adapter: GooglePlayAdapter
    }

    /// A token provider and an adapter over a scripted transport, on a manual clock that only moves when told to
    /// (so that token ages are exact), with one attempt per request.
    static func harness(
        acknowledge: Bool = true,
        transport: ScriptedTransport = ScriptedTransport(),
        wrapping: (any HTTPTransport)? = nil,
        logs: LogCapture? = nil,
        maxAttempts: Int = 1
    ) throws -> Harness {
        let clock = ManualClock()
        let logger = logs?.logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = HTTPClient(
            transport: wrapping ?? transport,
            retryPolicy: RetryPolicy(maxAttempts: maxAttempts, jitter: .none),
            clock: clock,
            timeout: .seconds(10),
            logger: logger
        )
        let provider = try GoogleAccessTokenProvider(serviceAccount: serviceAccount, httpClient: client, logger: logger)
        let adapter = GooglePlayAdapter(
            configuration: .init(
                packageName: packageName,
                tokenProvider: provider,
                baseURL: URL(string: "https://androidpublisher.test.invalid")!,
                httpClient: client,
                acknowledge: acknowledge
            ),
            logger: logger
        )
        return Harness(transport: transport, clock: clock, provider: provider, adapter: adapter)
    }

    static func tokenResponse(_ token: String = accessToken, expiresIn: Int = 3599) -> String {
        #"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#
    }

    static func productPath(_ productId: String, token: String = purchaseToken) -> String {
        "/androidpublisher/v3/applications/\(packageName)/purchases/products/\(productId)/tokens/\(token)"
    }

    static func subscriptionPath(token: String = purchaseToken) -> String {
        "/androidpublisher/v3/applications/\(packageName)/purchases/subscriptionsv2/tokens/\(token)"
    }

    static func subscriptionAcknowledgePath(_ productId: String, token: String = purchaseToken) -> String {
        "/androidpublisher/v3/applications/\(packageName)/purchases/subscriptions/\(productId)/tokens/\(token):acknowledge"
    }

    static func productProof(
        _ productId: String? = "coins_100",
        token: String = purchaseToken,
        context: [String: String] = [:]
    ) -> PurchaseProof {
        PurchaseProof(
            store: .google,
            kind: .googleProductPurchaseToken,
            token: Secret(token),
            productId: productId,
            context: context
        )
    }

    static func subscriptionProof(_ productId: String? = "premium_monthly", token: String = purchaseToken)
        -> PurchaseProof
    {
        PurchaseProof(
            store: .google,
            kind: .googleSubscriptionPurchaseToken,
            token: Secret(token),
            productId: productId
        )
    }

    /// A `ProductPurchase` body; `purchaseTimeMillis` as a string, as Google sends it, unless `millisAsNumber`.
    static func productPurchase(
        state: Int = 0,
        acknowledgement: Int = 1,
        consumption: Int = 0,
        purchaseType: Int? = nil,
        orderId: String? = "GPA.3301-2222-3333-44444",
        productId: String? = "coins_100",
        quantity: Int? = nil,
        millis: Int64 = 1_700_000_000_123,
        millisAsNumber: Bool = false,
        accountId: String? = "acct-7f3a"
    ) -> String {
        var fields = [
            #""kind":"androidpublisher#productPurchase""#,
            millisAsNumber ? #""purchaseTimeMillis":\#(millis)"# : #""purchaseTimeMillis":"\#(millis)""#,
            #""purchaseState":\#(state)"#, #""consumptionState":\#(consumption)"#,
            #""acknowledgementState":\#(acknowledgement)"#, #""regionCode":"US""#,
        ]
        if let purchaseType { fields.append(#""purchaseType":\#(purchaseType)"#) }
        if let orderId { fields.append(#""orderId":"\#(orderId)""#) }
        if let productId { fields.append(#""productId":"\#(productId)""#) }
        if let quantity { fields.append(#""quantity":\#(quantity)"#) }
        if let accountId { fields.append(#""obfuscatedExternalAccountId":"\#(accountId)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A `SubscriptionPurchaseV2` body.
    static func subscription(
        state: String = "SUBSCRIPTION_STATE_ACTIVE",
        acknowledgement: String = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
        productId: String = "premium_monthly",
        expiry: String = "2023-12-14T22:13:20.123456789Z",
        startTime: String? = "2023-11-14T22:13:20.5Z",
        autoRenew: Bool? = true,
        test: Bool = false,
        latestOrderId: String? = "GPA.3349-4454-9294-38157..3",
        lineItemOrderId: String? = nil,
        price: (units: String, nanos: Int, currency: String)? = ("6", 990_000_000, "USD"),
        accountId: String? = "acct-7f3a"
    ) -> String {
        var plan: [String] = []
        if let autoRenew { plan.append(#""autoRenewEnabled":\#(autoRenew)"#) }
        if let price {
            plan.append(
                #""recurringPrice":{"currencyCode":"\#(price.currency)","units":"\#(price.units)","nanos":\#(price.nanos)}"#
            )
        }
        var item = [
            #""productId":"\#(productId)""#, #""expiryTime":"\#(expiry)""#,
            #""autoRenewingPlan":{\#(plan.joined(separator: ","))}"#,
        ]
        if let lineItemOrderId { item.append(#""latestSuccessfulOrderId":"\#(lineItemOrderId)""#) }
        var fields = [
            #""kind":"androidpublisher#subscriptionPurchaseV2""#, #""regionCode":"US""#,
            #""subscriptionState":"\#(state)""#, #""acknowledgementState":"\#(acknowledgement)""#,
            #""lineItems":[{\#(item.joined(separator: ","))}]"#,
        ]
        if let startTime { fields.append(#""startTime":"\#(startTime)""#) }
        if let latestOrderId { fields.append(#""latestOrderId":"\#(latestOrderId)""#) }
        if test { fields.append(#""testPurchase":{}"#) }
        if let accountId {
            fields.append(#""externalAccountIdentifiers":{"obfuscatedExternalAccountId":"\#(accountId)"}"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A Google API error envelope.
    static func errorEnvelope(code: Int, reason: String?, status: String? = nil, message: String = "error") -> String {
        let errors =
            reason.map { #","errors":[{"domain":"androidpublisher","reason":"\#($0)","message":"\#(message)"}]"# } ?? ""
        let statusField = status.map { #","status":"\#($0)""# } ?? ""
        return #"{"error":{"code":\#(code),"message":"\#(message)"\#(statusField)\#(errors)}}"#
    }

    /// Decodes an `application/x-www-form-urlencoded` body.
    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// Base64url decoding (RFC 7515 §2).
    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A transport that holds requests to one path until opened, to observe callers piling up behind a token refresh.
final class GoogleGatedTransport: HTTPTransport {
    private struct State {
        var open = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var held = 0
    }

    let inner: ScriptedTransport
    let gatedPath: String
    private let state = Mutex(State())

    init(inner: ScriptedTransport, gatedPath: String) {
        self.inner = inner
        self.gatedPath = gatedPath
    }

    /// How many requests are being held.
    var heldCount: Int { state.withLock { $0.held } }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }

    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        if (request.path ?? "").hasPrefix(gatedPath) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.held += 1
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return try await inner.send(request, body: body)
    }
}

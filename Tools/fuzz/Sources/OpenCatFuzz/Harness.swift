import ChippiPayClient
import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import MockStores
import OpenCatCore
import OpenCatTesting
import StarknetCrypto
import StoreAdapters
import Synchronization
import X509
import _CryptoExtras

/// The parsers that read untrusted bytes, each fed through its public entry point with a fixed root, key and clock,
/// so mutated inputs reach the verification and mapping code behind the parsing.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// An App Store signed transaction / renewal info (compact JWS, header, x5c chain, payload decoders).
    case appleJWS = "apple-jws"
    /// An App Store Server Notification V2 body.
    case appleNotification = "apple-notification"
    /// A Stripe webhook (`Stripe-Signature` header and event), or a PaymentIntent answer through the adapter.
    case stripe
    /// A PayPal webhook event, or an order answer through the adapter.
    case paypal
    /// A Google Play product purchase or subscription (v2) answer through the adapter.
    case google
    /// A Steam QueryTxn answer through the adapter.
    case steam
    /// A cassette: the loader and its validation.
    case cassette
    /// A human license key and a signed license.
    case license
    /// A Starknet JSON-RPC answer through the RPC client.
    case starknetRPC = "starknet-rpc"
    /// A legacy App Store app receipt (PKCS#7 / BER), raw or in base64.
    case appleReceipt = "apple-receipt"
}

/// Answers every request with the current input (OAuth token endpoints get a fixed token), so an adapter's whole
/// path — request, status, decoding, mapping — runs on fuzzed bytes.
final class FuzzTransport: HTTPTransport {
    let body = Mutex(Data())

    func send(_ request: HTTPRequest, body _: Data?) async throws -> HTTPTransportResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.date] = "Sun, 22 Nov 2026 12:00:00 GMT"
        let path = request.path ?? ""
        if path.hasSuffix("/token") || path.hasSuffix("/oauth2/token") {
            let token = Data(#"{"access_token":"fuzz-token","token_type":"Bearer","expires_in":3600}"#.utf8)
            return HTTPTransportResponse(head: HTTPResponse(status: .ok, headerFields: headers), body: token)
        }
        // The last byte of the answer picks an error status now and then, so error mapping is fuzzed too.
        let answer = body.withLock { $0 }
        let statuses: [HTTPResponse.Status] = [
            .badRequest, .unauthorized, .notFound, .gone, .tooManyRequests, .internalServerError,
        ]
        let status = answer.last.map { $0 >= 0xFA ? statuses[Int($0 - 0xFA)] : .ok } ?? .ok
        return HTTPTransportResponse(head: HTTPResponse(status: status, headerFields: headers), body: answer)
    }
}

/// Everything a target needs, made once per process.
struct Harness: Sendable {
    /// The harness's "now": a minute after the App Store fixtures' latest signing date (2026-11-22T12:00:00Z), so
    /// their payloads pass the signed-date window and reach chain validation and decoding.
    static let signedDate = Date(timeIntervalSince1970: 1_795_348_800)
    /// When the Stripe verifier checks a signature's age.
    static let now = signedDate.addingTimeInterval(10)
    static let stripeSecret = Secret("whsec_fuzzing0123456789abcdefghijklmnop")
    static let licenseKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))

    let target: FuzzTarget
    let transport = FuzzTransport()
    let apple: AppleStoreAdapter?
    /// Signs fuzzed payloads (the App Store targets' odd mode), so mutations reach the payload decoders.
    let signer: MockAppleCA
    let stripe: StripeAdapter
    let stripeWebhooks: StripeWebhookVerifier
    let paypal: PayPalAdapter
    let google: GooglePlayAdapter?
    let steam: SteamAdapter
    let loader: FixtureLoader
    let licenses: LicenseVerifier
    let rpc: StarknetRPCClient

    init(target: FuzzTarget, appleRoot: Certificate?) throws {
        self.target = target
        signer = try MockAppleCA()
        let signerRoot = signer.rootCertificate
        let http = OpenCatCore.HTTPClient(
            transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: 1, jitter: .none),
            clock: FuzzClock()
        )
        apple = appleRoot.map { root in
            AppleStoreAdapter(
                configuration: .init(
                    bundleId: "dev.opencat.fuzz",
                    rootCertificates: [root, signerRoot],
                    environment: nil,
                    validationTime: .signedDate,
                    httpClient: http
                )
            )
        }
        stripe = StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_fuzz"),
                baseURL: URL(string: "https://stripe.fuzz")!,
                httpClient: http
            )
        )
        stripeWebhooks = try StripeWebhookVerifier(secret: Self.stripeSecret, tolerance: .seconds(300))
        paypal = PayPalAdapter(
            configuration: .init(
                clientId: "fuzz",
                clientSecret: Secret("fuzz-secret"),
                environment: .sandbox,
                payeeMerchantId: "C7CYMKZDG8D6E",
                prices: ["gems_500": Money(decimalString: "5.00", currency: "USD")!],
                baseURL: URL(string: "https://paypal.fuzz")!,
                captureApproved: false,
                httpClient: http
            )
        )
        google = target == .google ? try Self.googleAdapter(http) : nil
        steam = SteamAdapter(
            configuration: .init(
                appId: 480,
                publisherKey: Secret("fuzz-publisher-key"),
                baseURL: URL(string: "https://steam.fuzz")!,
                finalizeApproved: false,
                httpClient: http
            )
        )
        loader = FixtureLoader(appleCA: signer, variables: Self.placeholderValues)
        licenses = LicenseVerifier(keys: ["fuzz": Self.licenseKey.publicKey])
        rpc = StarknetRPCClient(url: URL(string: "https://starknet.fuzz/rpc")!, http: http)
    }

    /// The Google adapter of the Google target (the only one that signs a service-account assertion: swift-crypto's
    /// RSA key generation leaks a few bytes once; Tools/fuzz/lsan.supp names it).
    static func googleAdapter(_ http: OpenCatCore.HTTPClient) throws -> GooglePlayAdapter {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return GooglePlayAdapter(
            configuration: try .init(
                packageName: "dev.opencat.auralogic",
                serviceAccount: GoogleServiceAccount(
                    privateKeyId: "fuzz",
                    privateKey: Secret(rsa.pemRepresentation),
                    clientEmail: "fuzz@fuzz.iam.gserviceaccount.com",
                    tokenURI: URL(string: "https://google.fuzz/token")!
                ),
                baseURL: URL(string: "https://google.fuzz")!,
                tokenURL: URL(string: "https://google.fuzz/token")!,
                httpClient: http,
                acknowledge: false
            )
        )
    }

    /// Every placeholder the committed cassettes use, with dummy values: loading goes past substitution.
    static var placeholderValues: [String: String] {
        var variables: [String: String] = [:]
        for name in [
            "apple.issuerId", "apple.keyId", "apple.privateKey", "apple.wrongPrivateKey", "google.clientEmail",
            "google.accessToken", "google.wrongPrivateKey", "stripe.secretKey", "stripe.wrongSecretKey",
            "paypal.clientId", "paypal.clientSecret", "paypal.wrongClientSecret", "paypal.accessToken",
            "steam.publisherKey", "steam.wrongPublisherKey", "keyserver.token", "keyserver.wrongToken",
            "llmkeys.token", "llmkeys.wrongToken", "opencat.apiKey", "chippipay.apiKey", "chippipay.secretKey",
            "chippipay.wrongApiKey", "keyserver.license.forged", "keyserver.license.mine", "keyserver.license.new",
        ] {
            variables[name] = "fuzz-" + name
        }
        return variables
    }

    /// Whether the target's entry point is synchronous (run without a task hop).
    var isSynchronous: Bool { [.cassette, .license, .appleReceipt].contains(target) }

    /// One input of a synchronous target.
    func runSynchronously(_ data: Data) {
        switch target {
        case .cassette:
            _ = try? loader.decode(data, file: "fuzz.json")
        case .license:
            guard let text = String(data: data, encoding: .utf8) else { return }
            _ = try? HumanKey(text)
            _ = try? licenses.verify(text, at: Self.signedDate)
        case .appleReceipt:
            // As `opencat apple receipt` reads a file: raw PKCS#7 when it starts with a SEQUENCE, else base64.
            if data.first == 0x30 {
                _ = try? AppleLegacyReceipt(der: data)
            } else {
                _ = try? AppleLegacyReceipt(base64: String(decoding: data, as: UTF8.self))
            }
        default:
            break
        }
    }

    /// One input. Errors are the expected outcome for most inputs; only a crash, a leak or a hang is a finding.
    func run(_ data: Data) async {
        switch target {
        case .appleJWS:
            // Mode even: the input is a JWS. Odd: the input is a payload signed here, so mutations reach decoding.
            guard let apple, let (mode, rest) = split(data) else { return }
            let jws = mode % 2 == 0 ? String(decoding: rest, as: UTF8.self) : signer.signJWS(payload: rest)
            _ = try? await apple.verify(PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws)))
        case .appleNotification:
            guard let apple, let (mode, rest) = split(data) else { return }
            if mode % 2 == 0 {
                _ = try? await apple.verifyNotification(body: rest)
            } else {
                _ = try? await apple.verifyNotification(signedPayload: Secret(signer.signJWS(payload: rest)))
            }
        case .stripe:
            guard let (mode, rest) = split(data) else { return }
            await runStripe(mode, rest)
        case .paypal:
            guard let (mode, rest) = split(data) else { return }
            if mode % 2 == 0 {
                _ = try? PayPal.Event(payload: rest)
            } else {
                await adapter(
                    paypal,
                    rest,
                    PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret("ORDFUZZ1"))
                )
            }
        case .google:
            guard let google, let (mode, rest) = split(data) else { return }
            let kind: PurchaseProof.Kind =
                mode % 2 == 0 ? .googleProductPurchaseToken : .googleSubscriptionPurchaseToken
            let product = mode % 2 == 0 ? "dev.opencat.auralogic.gems500" : nil
            await adapter(
                google,
                rest,
                PurchaseProof(store: .google, kind: kind, token: Secret("fuzz-token"), productId: product)
            )
        case .steam:
            await adapter(
                steam,
                data,
                PurchaseProof(store: .steam, kind: .steamOrder, token: Secret("1000000000000001"))
            )
        case .cassette, .license, .appleReceipt:
            runSynchronously(data)
        case .starknetRPC:
            guard let (mode, rest) = split(data) else { return }
            transport.body.withLock { $0 = rest }
            switch mode % 4 {
            case 0: _ = try? await rpc.chainID()
            case 1: _ = try? await rpc.nonce(of: Felt(5))
            case 2: _ = try? await rpc.receipt(Felt(0x1234))
            default: _ = try? await rpc.status(Felt(0x1234))
            }
            transport.body.withLock { $0 = Data() }
        }
    }

    /// The Stripe target: a webhook (signature as sent, or signed here) or a PaymentIntent or subscription read.
    func runStripe(_ mode: UInt8, _ rest: Data) async {
        switch mode % 4 {
        case 0:
            // The first line is the Stripe-Signature header, the rest the payload.
            let parts = rest.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            let header = parts.first.map { String(decoding: $0, as: UTF8.self) }
            let payload = parts.count > 1 ? Data(parts[1]) : Data()
            _ = try? stripeWebhooks.verify(payload: payload, signatureHeader: header, now: Self.now)
        case 1:
            // A payload signed here: mutations reach the event parser.
            _ = try? stripeWebhooks.verify(
                payload: rest,
                signatureHeader: Self.stripeSignature(rest),
                now: Self.now
            )
        case 2:
            await adapter(
                stripe,
                rest,
                PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret("pi_fuzz"))
            )
        default:
            await adapter(
                stripe,
                rest,
                PurchaseProof(store: .stripe, kind: .stripeSubscription, token: Secret("sub_fuzz"))
            )
        }
    }

    /// A correct `Stripe-Signature` for a payload, signed 5 s before the harness's time.
    static func stripeSignature(_ payload: Data) -> String {
        let timestamp = Int64(signedDate.timeIntervalSince1970) - 5
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(timestamp).".utf8) + payload,
            using: SymmetricKey(data: Data(stripeSecret.revealed.utf8))
        )
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    func adapter(_ adapter: any StoreAdapter, _ body: Data, _ proof: PurchaseProof) async {
        transport.body.withLock { $0 = body }
        _ = try? await adapter.verify(proof)
        // Nothing of this input outlives it (LeakSanitizer cannot follow Swift's enum-packed references).
        transport.body.withLock { $0 = Data() }
    }

    /// The first byte chooses a mode; the rest is the input.
    func split(_ data: Data) -> (UInt8, Data)? {
        guard let first = data.first else { return nil }
        return (first, Data(data.dropFirst()))
    }
}

/// The harness's clock: a fixed date, and sleeps that end only when cancelled (an HTTP attempt's timer is always
/// cancelled by the answer, which FuzzTransport gives at once), so no input waits on a real timer.
final class FuzzClock: WallClock, Sendable {
    typealias Instant = ContinuousClock.Instant
    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .nanoseconds(1) }
    var currentDate: Date { Harness.signedDate }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        // A deadline already passed returns at once; any other sleep lasts until its task is cancelled (the HTTP
        // attempt's timer always is, and the harness retries nothing).
        guard deadline > now else { return }
        let waiter = Mutex<CheckedContinuation<Void, any Error>?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.withLock { $0 = continuation }
                if Task.isCancelled { waiter.withLock { $0.take() }?.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            waiter.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
    }
}

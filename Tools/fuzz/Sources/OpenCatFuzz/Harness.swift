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
}

/// Answers every request with the current input (OAuth token endpoints get a fixed token), so an adapter's whole
/// path — request, status, decoding, mapping — runs on fuzzed bytes.
final class FuzzTransport: HTTPTransport {
    let body = Mutex(Data())

    func send(_ request: HTTPRequest, body _: Data?) async throws -> HTTPTransportResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.date] = "Tue, 14 Nov 2023 22:13:20 GMT"
        let path = request.path ?? ""
        if path.hasSuffix("/token") || path.hasSuffix("/oauth2/token") {
            let token = Data(#"{"access_token":"fuzz-token","token_type":"Bearer","expires_in":3600}"#.utf8)
            return HTTPTransportResponse(head: HTTPResponse(status: .ok, headerFields: headers), body: token)
        }
        return HTTPTransportResponse(
            head: HTTPResponse(status: .ok, headerFields: headers),
            body: body.withLock { $0 }
        )
    }
}

/// Everything a target needs, made once per process.
struct Harness: Sendable {
    static let signedDate = Date(timeIntervalSince1970: 1_700_000_000)
    static let stripeSecret = Secret("whsec_fuzzing0123456789abcdefghijklmnop")
    static let licenseKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))

    let target: FuzzTarget
    let transport = FuzzTransport()
    let apple: AppleStoreAdapter?
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
        let http = OpenCatCore.HTTPClient(
            transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: 1, jitter: .none),
            clock: FuzzClock()
        )
        apple = appleRoot.map { root in
            AppleStoreAdapter(
                configuration: .init(
                    bundleId: "dev.opencat.fuzz",
                    rootCertificates: [root],
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
        // Only the Google target signs a service-account assertion (swift-crypto's RSA key generation leaks a few
        // bytes once; Tools/fuzz/lsan.supp names it).
        if target == .google {
            let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            google = GooglePlayAdapter(
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
        } else {
            google = nil
        }
        steam = SteamAdapter(
            configuration: .init(
                appId: 480,
                publisherKey: Secret("fuzz-publisher-key"),
                baseURL: URL(string: "https://steam.fuzz")!,
                finalizeApproved: false,
                httpClient: http
            )
        )
        loader = FixtureLoader(appleCA: try MockAppleCA(), variables: [:])
        licenses = LicenseVerifier(keys: ["fuzz": Self.licenseKey.publicKey])
        rpc = StarknetRPCClient(url: URL(string: "https://starknet.fuzz/rpc")!, http: http)
    }

    /// Whether the target's entry point is synchronous (run without a task hop).
    var isSynchronous: Bool { [.cassette, .license].contains(target) }

    /// One input of a synchronous target.
    func runSynchronously(_ data: Data) {
        switch target {
        case .cassette:
            _ = try? loader.decode(data, file: "fuzz.json")
        case .license:
            guard let text = String(data: data, encoding: .utf8) else { return }
            _ = try? HumanKey(text)
            _ = try? licenses.verify(text, at: Self.signedDate)
        default:
            break
        }
    }

    /// One input. Errors are the expected outcome for most inputs; only a crash, a leak or a hang is a finding.
    func run(_ data: Data) async {
        switch target {
        case .appleJWS:
            guard let apple, let text = String(data: data, encoding: .utf8) else { return }
            _ = try? await apple.verify(
                PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(text))
            )
        case .appleNotification:
            _ = try? await apple?.verifyNotification(body: data)
        case .stripe:
            guard let (mode, rest) = split(data) else { return }
            if mode % 2 == 0 {
                // The first line is the Stripe-Signature header, the rest the payload.
                let parts = rest.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
                let header = parts.first.map { String(decoding: $0, as: UTF8.self) }
                let payload = parts.count > 1 ? Data(parts[1]) : Data()
                _ = try? stripeWebhooks.verify(
                    payload: payload,
                    signatureHeader: header,
                    now: Self.signedDate.addingTimeInterval(10)
                )
            } else {
                await adapter(
                    stripe,
                    rest,
                    PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret("pi_fuzz"))
                )
            }
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
            guard let (mode, rest) = split(data) else { return }
            let kind: PurchaseProof.Kind =
                mode % 2 == 0 ? .googleProductPurchaseToken : .googleSubscriptionPurchaseToken
            guard let google else { return }
            await adapter(
                google,
                rest,
                PurchaseProof(store: .google, kind: kind, token: Secret("fuzz-token"), productId: "dev.opencat.gems")
            )
        case .steam:
            await adapter(
                steam,
                data,
                PurchaseProof(store: .steam, kind: .steamOrder, token: Secret("1000000000000001"))
            )
        case .cassette:
            _ = try? loader.decode(data, file: "fuzz.json")
        case .license:
            guard let text = String(data: data, encoding: .utf8) else { return }
            _ = try? HumanKey(text)
            _ = try? licenses.verify(text, at: Self.signedDate)
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

    func adapter(_ adapter: any StoreAdapter, _ body: Data, _ proof: PurchaseProof) async {
        transport.body.withLock { $0 = body }
        _ = try? await adapter.verify(proof)
        // Nothing of this input outlives it (LeakSanitizer cannot follow Swift's enum-packed references).
        transport.body.withLock { $0 = Data() }
    }

    /// The first byte chooses a mode; the rest is the input.
    func split(_ data: Data) -> (UInt8, Data)? {
        guard let first = data.first else { return nil }
        return (first, data.dropFirst())
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

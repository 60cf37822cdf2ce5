import ArgumentParser
import Crypto
import Foundation
import OpenCatCore
import StoreAdapters
import SwiftASN1
import X509

/// `opencat verify <store> …`: verify one proof and print the normalized result as JSON.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify one purchase proof and print the normalized result as JSON.",
        discussion: """
            Secrets (API keys, client secrets, private keys, webhook secrets) are read from files, never from \
            arguments, so they do not show in the process list or shell history. Exit status 0 means genuine; \
            anything else prints a one-line reason to standard error. A look-up at a store allows each HTTP \
            attempt OPENCAT_HTTP_TIMEOUT seconds (1...3600, default 30).
            """,
        subcommands: [
            VerifyApple.self, VerifyGoogle.self, VerifyStripe.self, VerifyPayPal.self, VerifySteam.self,
            VerifyStripeWebhook.self,
        ]
    )
}

/// Shared output and error handling of the verify subcommands.
enum VerifyOutput {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // ISO 8601 with milliseconds: store timestamps carry them (…:59.933Z), and they must not be lost.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }

    /// Runs a verification: prints the result as JSON, or a one-line reason and a non-zero exit.
    static func run(_ body: () async throws -> some Encodable) async throws {
        let result = try await verified(body)
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
    }

    /// Runs a verification step: its result, or a one-line reason and exit 2 (not verified) or 1 (other errors).
    static func verified<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as StoreAdapterError {
            FileHandle.standardError.write(
                Data(
                    "not verified: \(error.code): \(error.message)\(error.storeReason.map { " (store: \($0))" } ?? "")\n"
                        .utf8
                )
            )
            throw ExitCode(2)
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    static func readSecret(_ path: String, what: String) throws -> Secret<String> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read the \(what) file \(path)")
        }
        return Secret(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The environment variable bounding each HTTP attempt to a store, in whole seconds.
    static let timeoutVariable = "OPENCAT_HTTP_TIMEOUT"

    /// The client the commands call stores with: each attempt may take `OPENCAT_HTTP_TIMEOUT` seconds (1…3600,
    /// default 30) before it is retried (a read, or a write with an idempotency key) or reported as a timeout.
    static func httpClient(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HTTPClient {
        guard let text = environment[timeoutVariable] else { return HTTPClient() }
        guard let seconds = Int(text), (1...3600).contains(seconds) else {
            throw ValidationError("\(timeoutVariable) must be a whole number of seconds in 1...3600, found \"\(text)\"")
        }
        return HTTPClient(timeout: .seconds(seconds))
    }

    /// Builds a store's adapter from the flags gathered as settings, through ``StoreAdapterConfiguration`` (the
    /// path a server's configuration and the conformance suite take too). Nil values are left out; a setting the
    /// adapter cannot use (an unreadable file, a bad price, a URL that is not https) is a usage error.
    static func adapter<Adapter: ConfigurableStoreAdapter>(
        _ type: Adapter.Type,
        _ settings: [String: JSONValue?]
    ) throws -> Adapter {
        let configuration = StoreAdapterConfiguration(
            store: Adapter.verifiedStore,
            settings: settings.compactMapValues { $0 }
        )
        let context = StoreAdapterConfiguration.Context(httpClient: try httpClient())
        do throws(StoreAdapterError) {
            return try Adapter(configuration: configuration, context: context)
        } catch {
            if error.code == .misconfigured { throw ValidationError(error.message) }
            throw error
        }
    }
}

struct VerifyApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Verify App Store signed data offline, or look a transaction up (App Store Server API).",
        discussion: """
            --jws takes any payload the App Store signs: a signed transaction, signed renewal info, or an App Store \
            Server Notification V2 (its signedPayload, or the whole webhook body {"signedPayload": "…"}). The kind is \
            detected after the signature verifies. A transaction prints the normalized purchase; renewal info and \
            notifications print {"kind": …} objects (a notification with its nested purchase). Exit 0: verified; \
            2: not verified (with a one-line reason); 64: usage error.
            """
    )

    @Option(
        name: .customLong("jws"),
        help: "File holding App Store signed data (transaction, renewal info, notification signedPayload or body)."
    )
    var jwsFile: String?

    @Option(name: .customLong("transaction-id"), help: "A transaction id to look up with the App Store Server API.")
    var transactionId: String?

    @Option(name: .customLong("root"), help: "A trusted root certificate (PEM or DER). Repeatable.")
    var roots: [String] = []

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id; the signed data must be for this app.")
    var bundleId: String?

    @Flag(
        name: .customLong("any-bundle-id"),
        help: "Accept signed data for any app (offline checks only): the bundle id is reported, not checked."
    )
    var anyBundleId = false

    @Option(
        name: .customLong("environment"),
        help: "The App Store environment accepted: production (default), sandbox (Sandbox, Xcode, LocalTesting) or any."
    )
    var environment: String = "production"

    @Option(
        name: .customLong("at"),
        help: "When the chain must be valid: signed-date (default), now, or an ISO 8601 date."
    )
    var at: String = "signed-date"

    @Option(name: .customLong("product-id"), help: "The product the purchase must be for.")
    var productId: String?

    @Option(name: .customLong("issuer-id"), help: "App Store Connect API issuer id (lookups).")
    var issuerId: String?

    @Option(name: .customLong("key-id"), help: "App Store Connect API key id (lookups).")
    var keyId: String?

    @Option(name: .customLong("key-file"), help: "The .p8 private key file (lookups).")
    var keyFile: String?

    @Option(name: .customLong("base-url"), help: "Production API base URL override.")
    var baseURL: String?

    @Option(name: .customLong("sandbox-base-url"), help: "Sandbox API base URL override.")
    var sandboxBaseURL: String?

    func validate() throws {
        guard (jwsFile == nil) != (transactionId == nil) else {
            throw ValidationError("give exactly one of --jws FILE or --transaction-id ID")
        }
        guard !roots.isEmpty else {
            throw ValidationError("give at least one --root CERT (Apple Root CA - G3 in production)")
        }
        guard (bundleId == nil) == anyBundleId else {
            throw ValidationError("give exactly one of --bundle-id ID or --any-bundle-id")
        }
        guard !anyBundleId || transactionId == nil else {
            throw ValidationError("a lookup needs --bundle-id (it signs the App Store Server API token)")
        }
        guard ["production", "sandbox", "any"].contains(environment) else {
            throw ValidationError("--environment takes production, sandbox or any")
        }
    }

    func run() async throws {
        if transactionId != nil, issuerId == nil || keyId == nil || keyFile == nil {
            throw ValidationError("a lookup needs --issuer-id, --key-id and --key-file")
        }
        var adapter = try VerifyOutput.adapter(
            AppleStoreAdapter.self,
            [
                "bundleId": .string(bundleId ?? ""),
                "rootCertificates": .array(roots.map(JSONValue.string)),
                "environment": .string(environment),
                "validationTime": .string(at),
                "issuerId": issuerId.map(JSONValue.string),
                "keyId": keyId.map(JSONValue.string),
                "privateKeyFile": keyFile.map(JSONValue.string),
                "productionBaseURL": baseURL.map(JSONValue.string),
                "sandboxBaseURL": sandboxBaseURL.map(JSONValue.string),
            ]
        )
        let token = try jwsFile.map { try VerifyOutput.readSecret($0, what: "JWS") }
        // With --any-bundle-id, the bundle id is taken from the payload only after its signature and chain verify
        // (an explicit choice, reported on standard error), never read from unverified data.
        if anyBundleId, let token {
            let verifier = adapter.verifier
            let payload = try await VerifyOutput.verified {
                try await verifier.verifyPayload(Self.compactJWS(in: token.revealed))
            }
            let expectedBundleId = (try? JSONDecoder().decode(BundleIdOnly.self, from: payload))?.bundleId ?? ""
            FileHandle.standardError.write(
                Data("note: bundle id not checked (--any-bundle-id); the signed data names \(expectedBundleId)\n".utf8)
            )
            var configuration = adapter.configuration
            configuration.bundleId = expectedBundleId
            adapter = AppleStoreAdapter(configuration: configuration)
        }
        if let token {
            try await VerifyOutput.run { () async throws -> AppleSignedDataOutput in
                let verified = try await adapter.verifySignedData(token)
                if let productId, case .transaction(let purchase) = verified, purchase.productId != productId {
                    throw StoreAdapterError(
                        .productMismatch,
                        store: .apple,
                        "the transaction is for another product",
                        storeReason: "productIdMismatch"
                    )
                }
                return AppleSignedDataOutput(verified)
            }
        } else {
            let proof = PurchaseProof(
                store: .apple,
                kind: .appleTransactionId,
                token: Secret(transactionId ?? ""),
                productId: productId,
                transactionId: transactionId
            )
            try await VerifyOutput.run { try await adapter.verify(proof) }
        }
    }

    /// The one field `--any-bundle-id` needs from a verified payload: the transaction's own, or a notification's
    /// from its `data`, `summary` or `externalPurchaseToken`.
    struct BundleIdOnly: Decodable {
        struct Nested: Decodable { var bundleId: String? }
        var bundleId: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            bundleId =
                try container.decodeIfPresent(String.self, forKey: .bundleId)
                ?? container.decodeIfPresent(Nested.self, forKey: .data)?.bundleId
                ?? container.decodeIfPresent(Nested.self, forKey: .summary)?.bundleId
                ?? container.decodeIfPresent(Nested.self, forKey: .externalPurchaseToken)?.bundleId
        }

        enum CodingKeys: String, CodingKey { case bundleId, data, summary, externalPurchaseToken }
    }

    /// The compact JWS of a file: the text itself or a notification body's `signedPayload` (unverified: only to
    /// learn the bundle id after verification; the adapter parses it again).
    static func compactJWS(in text: String) -> String {
        guard text.first == "{",
            let body = try? JSONDecoder().decode(AppStore.ResponseBodyV2.self, from: Data(text.utf8))
        else { return text }
        return body.signedPayload.revealed
    }
}

struct VerifyGoogle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google",
        abstract: "Verify a Google Play purchase token with the Play Developer API."
    )

    @Option(name: .customLong("package"), help: "The app's package name.")
    var packageName: String

    @Option(name: .customLong("service-account"), help: "The service account's JSON key file.")
    var serviceAccountFile: String

    @Option(name: .customLong("token-file"), help: "File holding the purchase token.")
    var tokenFile: String

    @Option(
        name: .customLong("product-id"),
        help: "A one-time product's id (purchases.products); without it, purchases.productsv2 names the product."
    )
    var productId: String?

    @Flag(name: .customLong("subscription"), help: "The token is a subscription's (subscriptionsv2).")
    var subscription = false

    @Flag(name: .customLong("no-acknowledge"), help: "Do not acknowledge an unacknowledged purchase.")
    var noAcknowledge = false

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    @Option(name: .customLong("token-url"), help: "OAuth token endpoint override.")
    var tokenURL: String?

    func run() async throws {
        let adapter = try VerifyOutput.adapter(
            GooglePlayAdapter.self,
            [
                "packageName": .string(packageName),
                "serviceAccountFile": .string(serviceAccountFile),
                "baseURL": baseURL.map(JSONValue.string),
                "tokenURL": tokenURL.map(JSONValue.string),
                "acknowledge": .bool(!noAcknowledge),
            ]
        )
        let proof = PurchaseProof(
            store: .google,
            kind: subscription ? .googleSubscriptionPurchaseToken : .googleProductPurchaseToken,
            token: try VerifyOutput.readSecret(tokenFile, what: "purchase token"),
            productId: productId,
            context: ["packageName": packageName]
        )
        try await VerifyOutput.run { try await adapter.verify(proof) }
    }
}

struct VerifyStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "Verify a Stripe PaymentIntent."
    )

    @Option(name: .customLong("secret-key-file"), help: "File holding the secret key (sk_…/rk_…).")
    var secretKeyFile: String

    @Option(name: .customLong("payment-intent"), help: "The PaymentIntent id (pi_…).")
    var paymentIntent: String

    @Option(name: .customLong("product-id"), help: "The product the payment must be for.")
    var productId: String?

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func run() async throws {
        let adapter = try VerifyOutput.adapter(
            StripeAdapter.self,
            ["secretKeyFile": .string(secretKeyFile), "baseURL": baseURL.map(JSONValue.string)]
        )
        let proof = PurchaseProof(
            store: .stripe,
            kind: .stripePaymentIntent,
            token: Secret(paymentIntent),
            productId: productId
        )
        try await VerifyOutput.run { try await adapter.verify(proof) }
    }
}

struct VerifyPayPal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paypal",
        abstract: "Verify a PayPal order (Orders v2), capturing it if approved."
    )

    @Option(name: .customLong("client-id"), help: "The REST app's client id.")
    var clientId: String

    @Option(name: .customLong("client-secret-file"), help: "File holding the client secret.")
    var clientSecretFile: String

    @Option(name: .customLong("order"), help: "The order id.")
    var order: String

    @Option(name: .customLong("product-id"), help: "The product the order must be for (purchase unit reference_id).")
    var productId: String?

    @Option(name: .customLong("payee-merchant-id"), help: "The merchant id that must receive the payment.")
    var payeeMerchantId: String

    @Option(
        name: .customLong("price"),
        help: "The product's exact price, e.g. 5.00 (with --currency and --product-id)."
    )
    var price: String

    @Option(name: .customLong("currency"), help: "The price's ISO 4217 currency, e.g. USD.")
    var currency: String

    @Flag(name: .customLong("sandbox"), help: "Use the sandbox.")
    var sandbox = false

    @Flag(name: .customLong("no-capture"), help: "Do not capture an approved order.")
    var noCapture = false

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func run() async throws {
        // The adapter refuses orders for another price or payee, so both are required (security issue item 3).
        guard let productId else { throw ValidationError("--product-id is required: --price is that product's price") }
        let adapter = try VerifyOutput.adapter(
            PayPalAdapter.self,
            [
                "clientId": .string(clientId),
                "clientSecretFile": .string(clientSecretFile),
                "environment": .string(sandbox ? "sandbox" : "live"),
                "payeeMerchantId": .string(payeeMerchantId),
                "prices": [productId: ["amount": .string(price), "currency": .string(currency)]],
                "baseURL": baseURL.map(JSONValue.string),
                "captureApproved": .bool(!noCapture),
            ]
        )
        let proof = PurchaseProof(store: .paypal, kind: .paypalOrder, token: Secret(order), productId: productId)
        try await VerifyOutput.run { try await adapter.verify(proof) }
    }
}

struct VerifySteam: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steam",
        abstract: "Verify a Steam microtransaction (QueryTxn), finalizing it if approved."
    )

    @Option(name: .customLong("app-id"), help: "The Steam app id.")
    var appId: UInt32

    @Option(name: .customLong("key-file"), help: "File holding the publisher Web API key.")
    var keyFile: String

    @Option(name: .customLong("order-id"), help: "The partner order id.")
    var orderId: String?

    @Option(name: .customLong("transaction-id"), help: "Steam's transaction id.")
    var transactionId: String?

    @Option(name: .customLong("product-id"), help: "The item id the order must be for.")
    var productId: String?

    @Flag(name: .customLong("sandbox"), help: "Use ISteamMicroTxnSandbox.")
    var sandbox = false

    @Flag(name: .customLong("no-finalize"), help: "Do not finalize an approved order.")
    var noFinalize = false

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func validate() throws {
        guard (orderId == nil) != (transactionId == nil) else {
            throw ValidationError("give exactly one of --order-id or --transaction-id")
        }
    }

    func run() async throws {
        let adapter = try VerifyOutput.adapter(
            SteamAdapter.self,
            [
                "appId": .integer(Int64(appId)),
                "publisherKeyFile": .string(keyFile),
                "sandbox": .bool(sandbox),
                "baseURL": baseURL.map(JSONValue.string),
                "finalizeApproved": .bool(!noFinalize),
            ]
        )
        let proof = PurchaseProof(
            store: .steam,
            kind: orderId != nil ? .steamOrder : .steamTransaction,
            token: Secret(orderId ?? transactionId ?? ""),
            productId: productId
        )
        try await VerifyOutput.run { try await adapter.verify(proof) }
    }
}

struct VerifyStripeWebhook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe-webhook",
        abstract: "Verify a Stripe webhook delivery's Stripe-Signature header."
    )

    @Option(name: .customLong("secret-file"), help: "File holding the endpoint's signing secret (whsec_…).")
    var secretFile: String

    @Option(name: .customLong("signature"), help: "The Stripe-Signature header value.")
    var signature: String

    @Option(name: .customLong("payload"), help: "File holding the raw request body, byte for byte.")
    var payloadFile: String

    @Option(name: .customLong("now"), help: "The current time as Unix seconds (default: the system clock).")
    var now: Int64?

    @Option(name: .customLong("tolerance"), help: "Allowed clock difference in seconds (default 300).")
    var tolerance: Int64 = 300

    func run() async throws {
        guard let payload = FileManager.default.contents(atPath: payloadFile) else {
            throw ValidationError("cannot read \(payloadFile)")
        }
        let verifier: StripeWebhookVerifier
        do {
            verifier = try StripeWebhookVerifier(
                secret: try VerifyOutput.readSecret(secretFile, what: "webhook secret"),
                tolerance: .seconds(tolerance)
            )
        } catch let error as StoreAdapterError {
            // An empty or unusable secret file (an unset variable) must not verify anything.
            throw ValidationError("\(secretFile): \(error.message)")
        }
        let date = now.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let event: Stripe.Event
        do {
            event = try verifier.verify(payload: payload, signatureHeader: signature, now: date)
        } catch {
            FileHandle.standardError.write(Data("not verified: \(error.code): \(error.message)\n".utf8))
            throw ExitCode(2)
        }
        let summary = [
            "id": event.id, "type": event.type.rawValue, "livemode": "\(event.livemode)", "verified": "true",
        ]
        print(String(decoding: try VerifyOutput.encoder.encode(summary), as: UTF8.self))
    }
}

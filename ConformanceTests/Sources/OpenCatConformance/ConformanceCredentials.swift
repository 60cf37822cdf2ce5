public import Crypto
import Foundation
public import MockStores
public import OpenCatCore
public import OpenCatTesting
public import _CryptoExtras

/// Credentials generated for one suite run, typed: the mock stores accept them, the adapters use them, nothing is
/// committed. Cassettes refer to them through placeholders (`{{stripe.secretKey}}`, …; see ``variables``).
public struct ConformanceCredentials: Sendable {
    /// The Apple test CA that signs every App Store payload of the run.
    public let appleCA: MockAppleCA
    /// App Store Server API: issuer, key id, the signing key the mock accepts and one it refuses.
    public var appleIssuerId: String
    /// The App Store Server API key id (`kid`).
    public var appleKeyId: String
    /// The App Store Server API signing key the mock accepts.
    public var appleAPIKey: P256.Signing.PrivateKey
    /// A signing key the mock refuses (the credentials-rejected scenario).
    public var appleWrongAPIKey: P256.Signing.PrivateKey
    /// Google Play: the service account's email, the key the mock accepts and one it refuses.
    public var googleClientEmail: String
    /// The service account key the mock accepts.
    public var googleKey: _RSA.Signing.PrivateKey
    /// A service account key the mock refuses.
    public var googleWrongKey: _RSA.Signing.PrivateKey
    /// Stripe secret keys: accepted and refused.
    public var stripeSecretKey: Secret<String>
    /// A Stripe secret key the mock refuses.
    public var stripeWrongSecretKey: Secret<String>
    /// PayPal client credentials: id, accepted and refused secret.
    public var payPalClientId: String
    /// The PayPal client secret the mock accepts.
    public var payPalClientSecret: Secret<String>
    /// A PayPal client secret the mock refuses.
    public var payPalWrongClientSecret: Secret<String>
    /// Steam publisher keys: accepted and refused.
    public var steamPublisherKey: Secret<String>
    /// A Steam publisher key the mock refuses.
    public var steamWrongPublisherKey: Secret<String>
    /// The OpenCat server's API key.
    public var openCatAPIKey: Secret<String>
    /// The key server: the user's bearer token, and the issuer whose licenses the client trusts (`kid`
    /// `conformance`).
    public var keyServerToken: Secret<String>
    /// A key server bearer token the server refuses.
    public var keyServerWrongToken: Secret<String>
    /// The LLM key API: the user's bearer token and one it refuses.
    public var llmKeysToken: Secret<String>
    /// An LLM key API bearer token the API refuses.
    public var llmKeysWrongToken: Secret<String>
    /// ChippiPay: the public API key and secret key the mock accepts, and an API key it refuses.
    public var chippiPayAPIKey: Secret<String>
    /// The ChippiPay secret key the mock accepts.
    public var chippiPaySecretKey: Secret<String>
    /// A ChippiPay API key the mock refuses.
    public var chippiPayWrongAPIKey: Secret<String>
    /// Placeholders for third-party cassettes that no built-in credential names.
    public var extraVariables: [String: String] = [:]
    /// Signers for other signed formats in cassettes (by member name; see `FixtureLoader/signers`): how a section
    /// whose cassettes hold signed licenses, say, has them signed with its run's keys.
    public var signers: [String: FixtureLoader.Signer] = [:]

    /// The Apple bundle id the App Store Server API token must name.
    public static let appleBundleId = "dev.opencat.auralogic"

    /// Generates a fresh set (RSA key generation takes a moment: make one per run).
    public init() throws {
        func random(_ bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }
        appleCA = try MockAppleCA()
        appleIssuerId = UUID().uuidString.lowercased()
        appleKeyId = String(random(5).uppercased().prefix(10))
        appleAPIKey = P256.Signing.PrivateKey()
        appleWrongAPIKey = P256.Signing.PrivateKey()
        googleClientEmail = "conformance@opencat-test.iam.gserviceaccount.com"
        googleKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        googleWrongKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        stripeSecretKey = Secret("sk_test_opencat_\(random(12))")
        stripeWrongSecretKey = Secret("sk_test_opencat_\(random(12))")
        payPalClientId = "opencat-paypal-client-\(random(6))"
        payPalClientSecret = Secret("opencat-paypal-secret-\(random(12))")
        payPalWrongClientSecret = Secret("opencat-paypal-secret-\(random(12))")
        steamPublisherKey = Secret(random(16).uppercased())
        steamWrongPublisherKey = Secret(random(16).uppercased())
        openCatAPIKey = Secret("ocat_test_\(random(12))")
        keyServerToken = Secret("kst_test_\(random(12))")
        keyServerWrongToken = Secret("kst_test_\(random(12))")
        llmKeysToken = Secret("llm_test_\(random(12))")
        llmKeysWrongToken = Secret("llm_test_\(random(12))")
        chippiPayAPIKey = Secret("pk_dev_opencat_\(random(12))")
        chippiPaySecretKey = Secret("sk_dev_opencat_\(random(12))")
        chippiPayWrongAPIKey = Secret("pk_dev_opencat_\(random(12))")
    }

    /// Placeholder name → value, for cassettes: every credential above under its placeholder name, then
    /// ``extraVariables``.
    public var variables: [String: String] {
        var values = [
            "stripe.secretKey": stripeSecretKey.revealed,
            "stripe.wrongSecretKey": stripeWrongSecretKey.revealed,
            "paypal.clientId": payPalClientId,
            "paypal.clientSecret": payPalClientSecret.revealed,
            "paypal.wrongClientSecret": payPalWrongClientSecret.revealed,
            "steam.publisherKey": steamPublisherKey.revealed,
            "steam.wrongPublisherKey": steamWrongPublisherKey.revealed,
            "apple.issuerId": appleIssuerId,
            "apple.keyId": appleKeyId,
            "apple.privateKey": appleAPIKey.pemRepresentation,
            "apple.wrongPrivateKey": appleWrongAPIKey.pemRepresentation,
            "google.clientEmail": googleClientEmail,
            "google.privateKey": googleKey.pemRepresentation,
            "google.wrongPrivateKey": googleWrongKey.pemRepresentation,
            "opencat.apiKey": openCatAPIKey.revealed,
            "keyserver.token": keyServerToken.revealed,
            "keyserver.wrongToken": keyServerWrongToken.revealed,
            "llmkeys.token": llmKeysToken.revealed,
            "llmkeys.wrongToken": llmKeysWrongToken.revealed,
            "chippipay.apiKey": chippiPayAPIKey.revealed,
            "chippipay.secretKey": chippiPaySecretKey.revealed,
            "chippipay.wrongApiKey": chippiPayWrongAPIKey.revealed,
        ]
        values.merge(extraVariables) { $1 }
        return values
    }

    /// The same credentials with some replaced by placeholder name (what the mock checks follows: replacing
    /// `google.privateKey` also changes the public key the mock verifies with). Unknown names become
    /// ``extraVariables``.
    /// - Throws: ``ConformanceError`` when a replacement key is not a PEM key of the right kind.
    public func overriding(_ values: [String: String]) throws -> ConformanceCredentials {
        var copy = self
        for (name, value) in values {
            switch name {
            case "stripe.secretKey": copy.stripeSecretKey = Secret(value)
            case "stripe.wrongSecretKey": copy.stripeWrongSecretKey = Secret(value)
            case "paypal.clientId": copy.payPalClientId = value
            case "paypal.clientSecret": copy.payPalClientSecret = Secret(value)
            case "paypal.wrongClientSecret": copy.payPalWrongClientSecret = Secret(value)
            case "steam.publisherKey": copy.steamPublisherKey = Secret(value)
            case "steam.wrongPublisherKey": copy.steamWrongPublisherKey = Secret(value)
            case "apple.issuerId": copy.appleIssuerId = value
            case "apple.keyId": copy.appleKeyId = value
            case "apple.privateKey": copy.appleAPIKey = try Self.p256(value, name)
            case "apple.wrongPrivateKey": copy.appleWrongAPIKey = try Self.p256(value, name)
            case "google.clientEmail": copy.googleClientEmail = value
            case "google.privateKey": copy.googleKey = try Self.rsa(value, name)
            case "google.wrongPrivateKey": copy.googleWrongKey = try Self.rsa(value, name)
            case "opencat.apiKey": copy.openCatAPIKey = Secret(value)
            case "keyserver.token": copy.keyServerToken = Secret(value)
            case "keyserver.wrongToken": copy.keyServerWrongToken = Secret(value)
            case "llmkeys.token": copy.llmKeysToken = Secret(value)
            case "llmkeys.wrongToken": copy.llmKeysWrongToken = Secret(value)
            case "chippipay.apiKey": copy.chippiPayAPIKey = Secret(value)
            case "chippipay.secretKey": copy.chippiPaySecretKey = Secret(value)
            case "chippipay.wrongApiKey": copy.chippiPayWrongAPIKey = Secret(value)
            default: copy.extraVariables[name] = value
            }
        }
        return copy
    }

    /// A fixture loader that signs with ``appleCA``, fills these credentials' placeholders and runs ``signers``.
    public var fixtureLoader: FixtureLoader {
        FixtureLoader(appleCA: appleCA, variables: variables, signers: signers)
    }

    /// The credentials the mock stores check.
    public func mockCredentials(tokenPath: String) -> MockCredentials {
        var credentials = MockCredentials()
        credentials.stripeSecretKey = stripeSecretKey
        credentials.payPal = .init(clientId: payPalClientId, clientSecret: payPalClientSecret)
        credentials.google = .init(clientEmail: googleClientEmail, publicKey: googleKey.publicKey, tokenPath: tokenPath)
        credentials.steamPublisherKey = steamPublisherKey
        credentials.apple = .init(
            keyId: appleKeyId,
            issuerId: appleIssuerId,
            bundleId: Self.appleBundleId,
            publicKey: appleAPIKey.publicKey
        )
        credentials.openCatAPIKey = openCatAPIKey
        credentials.keyServerToken = keyServerToken
        credentials.llmKeysToken = llmKeysToken
        credentials.chippiPay = .init(apiKey: chippiPayAPIKey, secretKey: chippiPaySecretKey)
        return credentials
    }

    private static func p256(_ pem: String, _ name: String) throws -> P256.Signing.PrivateKey {
        do { return try P256.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw ConformanceError("\(name): not a PEM P-256 private key")
        }
    }

    private static func rsa(_ pem: String, _ name: String) throws -> _RSA.Signing.PrivateKey {
        do { return try _RSA.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw ConformanceError("\(name): not a PEM RSA private key")
        }
    }
}

public import Crypto
public import Foundation
public import OpenCatCore
public import _CryptoExtras

/// The credentials a `MockStoreServer` accepts, per store: it checks every request the way the real service does
/// and answers a wrong or missing credential with the store's own 401/403 shape.
///
/// A store left `nil` is not checked. Generate keys at run time (`P256.Signing.PrivateKey()`,
/// `_RSA.Signing.PrivateKey(keySize: .bits2048)`) and hand the public halves here; never commit live secrets.
public struct MockCredentials: Sendable {
    /// PayPal REST app credentials.
    public struct PayPal: Sendable {
        /// The REST app's client id.
        public var clientId: String
        /// The REST app's secret.
        public var clientSecret: Secret<String>
        /// The access token the mock's own `POST /v1/oauth2/token` issues.
        public var accessToken: Secret<String>

        /// Creates PayPal credentials.
        public init(
            clientId: String,
            clientSecret: Secret<String>,
            accessToken: Secret<String> = Secret("opencat-mock-paypal-access-token")
        ) {
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.accessToken = accessToken
        }
    }

    /// A Google service account, as the OAuth token endpoint knows it.
    public struct Google: Sendable {
        /// The service account's `client_email` (the assertion's `iss`).
        public var clientEmail: String
        /// The public half of the service account key (verifies the RS256 assertion).
        public var publicKey: _RSA.Signing.PublicKey
        /// The token endpoint's path on the mock server (default `/token`).
        public var tokenPath: String
        /// The assertion's expected `aud`; `nil`: the mock's base URL followed by ``tokenPath``.
        public var audience: String?
        /// The access token the token endpoint issues.
        public var accessToken: Secret<String>

        /// Creates Google credentials from a public key.
        public init(
            clientEmail: String,
            publicKey: _RSA.Signing.PublicKey,
            tokenPath: String = "/token",
            audience: String? = nil,
            accessToken: Secret<String> = Secret("opencat-mock-google-access-token")
        ) {
            self.clientEmail = clientEmail
            self.publicKey = publicKey
            self.tokenPath = tokenPath
            self.audience = audience
            self.accessToken = accessToken
        }

        /// Creates Google credentials from a PEM (`-----BEGIN PUBLIC KEY-----`) public key.
        /// - Throws: when the PEM is not an RSA public key of at least 2048 bits.
        public init(
            clientEmail: String,
            publicKeyPEM: String,
            tokenPath: String = "/token",
            audience: String? = nil,
            accessToken: Secret<String> = Secret("opencat-mock-google-access-token")
        ) throws {
            self.init(
                clientEmail: clientEmail,
                publicKey: try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM),
                tokenPath: tokenPath,
                audience: audience,
                accessToken: accessToken
            )
        }

        /// Creates Google credentials from a DER (SubjectPublicKeyInfo or PKCS #1) public key.
        /// - Throws: when the bytes are not an RSA public key of at least 2048 bits.
        public init(
            clientEmail: String,
            publicKeyDER: Data,
            tokenPath: String = "/token",
            audience: String? = nil,
            accessToken: Secret<String> = Secret("opencat-mock-google-access-token")
        ) throws {
            self.init(
                clientEmail: clientEmail,
                publicKey: try _RSA.Signing.PublicKey(derRepresentation: publicKeyDER),
                tokenPath: tokenPath,
                audience: audience,
                accessToken: accessToken
            )
        }
    }

    /// An App Store Connect API key for the App Store Server API.
    public struct Apple: Sendable {
        /// The key id (the JWT header's `kid`).
        public var keyId: String
        /// The issuer id (the JWT's `iss`).
        public var issuerId: String
        /// The app's bundle id (the JWT's `bid`).
        public var bundleId: String
        /// The public half of the API key (verifies the ES256 signature).
        public var publicKey: P256.Signing.PublicKey

        /// Creates Apple credentials.
        public init(keyId: String, issuerId: String, bundleId: String, publicKey: P256.Signing.PublicKey) {
            self.keyId = keyId
            self.issuerId = issuerId
            self.bundleId = bundleId
            self.publicKey = publicKey
        }
    }

    /// The Stripe secret key (`sk_test_…`), accepted as `Bearer` or as the Basic user name.
    public var stripeSecretKey: Secret<String>?
    /// PayPal client credentials.
    public var payPal: PayPal?
    /// The Google service account.
    public var google: Google?
    /// The Steam publisher Web API key, accepted in `x-webapi-key` or as the `key` parameter.
    public var steamPublisherKey: Secret<String>?
    /// The App Store Server API key.
    public var apple: Apple?
    /// The OpenCat server API key (`Authorization: Bearer <key>`).
    public var openCatAPIKey: Secret<String>?
    /// The key server's user token (`Authorization: Bearer <token>`).
    public var keyServerToken: Secret<String>?
    /// The LLM key API's user token (`Authorization: Bearer <token>`).
    public var llmKeysToken: Secret<String>?
    /// ChippiPay's API keys: `x-api-key` and the bearer secret key.
    public var chippiPay: ChippiPay?

    /// ChippiPay's pair of keys.
    public struct ChippiPay: Sendable {
        /// The public API key, `pk_…`.
        public var apiKey: Secret<String>
        /// The secret key, `sk_…`, sent as the bearer.
        public var secretKey: Secret<String>

        /// A key pair.
        public init(apiKey: Secret<String>, secretKey: Secret<String>) {
            self.apiKey = apiKey
            self.secretKey = secretKey
        }
    }

    /// Creates credentials; stores left `nil` are not checked.
    public init(
        stripeSecretKey: Secret<String>? = nil,
        payPal: PayPal? = nil,
        google: Google? = nil,
        steamPublisherKey: Secret<String>? = nil,
        apple: Apple? = nil,
        openCatAPIKey: Secret<String>? = nil,
        keyServerToken: Secret<String>? = nil,
        llmKeysToken: Secret<String>? = nil,
        chippiPay: ChippiPay? = nil
    ) {
        self.stripeSecretKey = stripeSecretKey
        self.payPal = payPal
        self.google = google
        self.steamPublisherKey = steamPublisherKey
        self.apple = apple
        self.openCatAPIKey = openCatAPIKey
        self.keyServerToken = keyServerToken
        self.llmKeysToken = llmKeysToken
        self.chippiPay = chippiPay
    }

    /// The store identifier of OpenCat server API cassettes: `opencat`.
    public static let openCatStore = Store(rawValue: "opencat")
    /// The store identifier of key server API cassettes: `keyserver`.
    public static let keyServerStore = Store(rawValue: "keyserver")
    /// The store identifier of LLM key API cassettes: `llmkeys`.
    public static let llmKeysStore = Store(rawValue: "llmkeys")
    /// The store identifier of ChippiPay cassettes (ChippiPay's REST API and the Starknet node): `chippipay`.
    public static let chippiPayStore = Store(rawValue: "chippipay")

    /// The built-in authenticators for the stores that have credentials.
    package func authenticators() -> [Store: any MockAuthenticator] {
        var result: [Store: any MockAuthenticator] = [:]
        if let stripeSecretKey { result[.stripe] = StripeAuthenticator(secretKey: stripeSecretKey) }
        if let payPal { result[.paypal] = PayPalAuthenticator(credentials: payPal) }
        if let google { result[.google] = GoogleAuthenticator(credentials: google) }
        if let steamPublisherKey { result[.steam] = SteamAuthenticator(publisherKey: steamPublisherKey) }
        if let apple { result[.apple] = AppleAuthenticator(credentials: apple) }
        if let openCatAPIKey {
            result[Self.openCatStore] = BearerTokenAuthenticator(
                token: openCatAPIKey,
                message: "The API key is missing or not valid."
            )
        }
        if let keyServerToken {
            result[Self.keyServerStore] = BearerTokenAuthenticator(
                token: keyServerToken,
                message: "The token is missing, invalid or expired."
            )
        }
        if let llmKeysToken {
            result[Self.llmKeysStore] = BearerTokenAuthenticator(
                token: llmKeysToken,
                message: "a valid bearer token is required"
            )
        }
        if let chippiPay { result[Self.chippiPayStore] = ChippiPayAuthenticator(credentials: chippiPay) }
        return result
    }
}

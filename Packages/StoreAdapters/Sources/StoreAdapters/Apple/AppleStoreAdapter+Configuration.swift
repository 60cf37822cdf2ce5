public import Crypto
public import Foundation
public import OpenCatCore
public import X509

extension AppleStoreAdapter {
    /// What the App Store adapter needs: the app, the trusted roots, how to date chain checks, and optionally
    /// App Store Server API credentials for online look-ups.
    public struct Configuration: Sendable {
        /// Apple's production App Store Server API.
        public static let defaultProductionBaseURL = URL(string: "https://api.storekit.itunes.apple.com")!
        /// Apple's sandbox App Store Server API.
        public static let defaultSandboxBaseURL = URL(string: "https://api.storekit-sandbox.itunes.apple.com")!

        /// The app's bundle identifier; signed data for any other app is `wrongApplication`. Also the `bid` claim
        /// of App Store Server API tokens.
        public var bundleId: String
        /// The app's App Store identifier; when set, production notifications for another `appAppleId` are
        /// `wrongApplication`.
        public var appAppleId: Int64?
        /// The only environment accepted: production by default, so that sandbox, Xcode and local StoreKit testing
        /// purchases (which anyone can make for free) never unlock a production app. `.sandbox` for test builds;
        /// `nil` explicitly accepts both (and looks transactions up in production, then in the sandbox).
        public var environment: VerifiedPurchase.Environment?
        /// The roots signing chains must lead to (DER certificates supplied by the caller: Apple Root CA - G3 in
        /// production, see ``AppleRootCAG3``).
        public var rootCertificates: [Certificate]
        /// When certificate chains must be valid.
        public var validationTime: AppleJWSVerifier.ValidationTime
        /// App Store Server API credentials; without them only offline verification is available.
        public var apiCredentials: APICredentials?
        /// The production App Store Server API (overridable for mock servers).
        public var productionBaseURL: URL
        /// The sandbox App Store Server API (overridable for mock servers).
        public var sandboxBaseURL: URL
        /// The HTTP client (timeouts, retries, clock) for the App Store Server API; its clock is also "now".
        public var httpClient: HTTPClient
        /// How many verified certificate chains to remember.
        public var chainCacheCapacity: Int
        /// Size and time limits of JWS verification.
        public var limits: AppleJWSVerifier.Limits
        /// Online OCSP revocation checks of the signing chain (servers; none by default).
        public var revocationCheck: AppleJWSVerifier.RevocationCheck

        /// Creates a configuration.
        public init(
            bundleId: String,
            rootCertificates: [Certificate],
            environment: VerifiedPurchase.Environment? = .production,
            appAppleId: Int64? = nil,
            validationTime: AppleJWSVerifier.ValidationTime = .signedDate,
            apiCredentials: APICredentials? = nil,
            productionBaseURL: URL = Configuration.defaultProductionBaseURL,
            sandboxBaseURL: URL = Configuration.defaultSandboxBaseURL,
            httpClient: HTTPClient = HTTPClient(),
            chainCacheCapacity: Int = 32,
            limits: AppleJWSVerifier.Limits = AppleJWSVerifier.Limits(),
            revocationCheck: AppleJWSVerifier.RevocationCheck = .none
        ) {
            self.bundleId = bundleId
            self.rootCertificates = rootCertificates
            self.environment = environment
            self.appAppleId = appAppleId
            self.validationTime = validationTime
            self.apiCredentials = apiCredentials
            self.productionBaseURL = productionBaseURL
            self.sandboxBaseURL = sandboxBaseURL
            self.httpClient = httpClient
            self.chainCacheCapacity = chainCacheCapacity
            self.limits = limits
            self.revocationCheck = revocationCheck
        }
    }

    /// An App Store Connect in-app purchase key, used to sign App Store Server API tokens (ES256).
    ///
    /// [Generating JSON Web Tokens for API requests](https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests)
    public struct APICredentials: Sendable {
        /// The issuer id from App Store Connect (`iss`).
        public var issuerId: String
        /// The key id (`kid`).
        public var keyId: String
        /// The key's P-256 private key.
        public var privateKey: Secret<P256.Signing.PrivateKey>
        /// How long each token is valid; Apple rejects more than 60 minutes, so longer values are capped.
        public var tokenLifetime: Duration

        /// Creates credentials from a key.
        public init(
            issuerId: String,
            keyId: String,
            privateKey: Secret<P256.Signing.PrivateKey>,
            tokenLifetime: Duration = .seconds(300)
        ) {
            self.issuerId = issuerId
            self.keyId = keyId
            self.privateKey = privateKey
            self.tokenLifetime = tokenLifetime
        }

        /// Creates credentials from the PEM text of an App Store Connect `.p8` key file.
        /// - Throws: ``StoreAdapterError`` `unauthorized` if the text is not a P-256 private key.
        public init(
            issuerId: String,
            keyId: String,
            privateKeyPEM: Secret<String>,
            tokenLifetime: Duration = .seconds(300)
        ) throws {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM.revealed) else {
                throw StoreAdapterError(
                    .unauthorized,
                    store: .apple,
                    "the App Store Server API key is not a P-256 PEM private key",
                    storeReason: "invalidPrivateKey"
                )
            }
            self.init(issuerId: issuerId, keyId: keyId, privateKey: Secret(key), tokenLifetime: tokenLifetime)
        }
    }
}

public import Crypto
public import Foundation
public import OpenCatCore

/// Signs the JWS that newer StoreKit requests carry: promotional offers (signature V2, `aud` `promotional-offer`)
/// and introductory offer eligibility (`aud` `introductory-offer-eligibility`).
///
/// [Generating JWS to sign App Store requests](https://developer.apple.com/documentation/storekit/generating-jws-to-sign-app-store-requests):
/// a compact JWS signed with ES256 by an App Store Connect In-App Purchase key, header `{alg: ES256, kid, typ: JWT}`,
/// claims `iss` (the issuer id), `iat` (UNIX seconds), `aud`, `bid` (the bundle id), `nonce` (a fresh lowercase UUID)
/// and the feature's own claims (see ``Claims``), as Apple's App Store Server Library signs them
/// (`PromotionalOfferV2SignatureCreator`, `IntroductoryOfferEligibilitySignatureCreator`). The App Store Server API
/// token is signed by the same code.
public struct AppleOfferJWSSigner: Sendable {
    /// The `aud` of a promotional offer signature (V2).
    public static let promotionalOfferAudience = "promotional-offer"
    /// The `aud` of an introductory offer eligibility signature.
    public static let introductoryOfferEligibilityAudience = "introductory-offer-eligibility"

    /// The key's id in App Store Connect (the header's `kid`).
    public let keyId: String
    /// The issuer id from App Store Connect's Keys page (`iss`).
    public let issuerId: String
    /// The app's bundle id (`bid`).
    public let bundleId: String
    private let privateKey: Secret<P256.Signing.PrivateKey>

    /// A signer with a key already loaded.
    public init(keyId: String, issuerId: String, bundleId: String, privateKey: P256.Signing.PrivateKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.privateKey = Secret(privateKey)
    }

    /// A signer with the key's PEM text (the contents of the `.p8`).
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`invalidPrivateKey`) if it is not a P-256 private key.
    public init(keyId: String, issuerId: String, bundleId: String, privateKeyPEM: Secret<String>)
        throws(StoreAdapterError)
    {
        let key = try AppleSigningKey.privateKey(pem: privateKeyPEM)
        self.init(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)
    }

    /// A signer with the key in a `.p8` file.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`keyFileUnreadable`, `invalidPrivateKey`).
    public init(keyId: String, issuerId: String, bundleId: String, pemFile: String) throws(StoreAdapterError) {
        let key = try AppleSigningKey.privateKey(pemFile: pemFile)
        self.init(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)
    }

    /// The key's public half, which verifies the signatures.
    public var publicKey: P256.Signing.PublicKey { privateKey.revealed.publicKey }

    /// The claims of a signed request, as encoded (keys sorted, absent optionals left out).
    public struct Claims: Sendable, Codable, Hashable {
        /// The issuer id.
        public var iss: String
        /// When it was signed, UNIX seconds.
        public var iat: Int64
        /// ``AppleOfferJWSSigner/promotionalOfferAudience`` or
        /// ``AppleOfferJWSSigner/introductoryOfferEligibilityAudience``.
        public var aud: String
        /// The bundle id.
        public var bid: String
        /// A one-time lowercase UUID.
        public var nonce: String
        /// The product the request is for.
        public var productId: String
        /// Promotional offers: the offer's id in App Store Connect.
        public var offerIdentifier: String?
        /// Introductory offer eligibility: whether the customer may have the introductory offer.
        public var allowIntroductoryOffer: Bool?
        /// Any transaction of the customer (its `appTransactionId` will do): optional for a promotional offer,
        /// required for introductory offer eligibility.
        public var transactionId: String?

        /// Creates claims.
        public init(
            iss: String,
            iat: Int64,
            aud: String,
            bid: String,
            nonce: String,
            productId: String,
            offerIdentifier: String? = nil,
            allowIntroductoryOffer: Bool? = nil,
            transactionId: String? = nil
        ) {
            self.iss = iss
            self.iat = iat
            self.aud = aud
            self.bid = bid
            self.nonce = nonce
            self.productId = productId
            self.offerIdentifier = offerIdentifier
            self.allowIntroductoryOffer = allowIntroductoryOffer
            self.transactionId = transactionId
        }
    }

    /// A promotional offer signature (V2), for StoreKit's purchase option `.promotionalOffer(_:compactJWS:)` and the
    /// Retention Messaging API's `promotionalOfferSignatureV2`.
    /// - Parameters:
    ///   - productId: the subscription's product id.
    ///   - offerIdentifier: the promotional offer's id in App Store Connect.
    ///   - transactionId: any transaction of the customer (optional, recommended).
    ///   - nonce: a one-time UUID; a random one by default.
    ///   - issuedAt: the signing time; now by default.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`signingFailed`) if the key cannot sign.
    public func promotionalOffer(
        productId: String,
        offerIdentifier: String,
        transactionId: String? = nil,
        nonce: UUID = UUID(),
        issuedAt: Date = Date()
    ) throws(StoreAdapterError) -> String {
        try sign(
            claims(Self.promotionalOfferAudience, productId: productId, nonce: nonce, issuedAt: issuedAt).with {
                $0.offerIdentifier = offerIdentifier
                $0.transactionId = transactionId
            }
        )
    }

    /// An introductory offer eligibility signature, for StoreKit's purchase option
    /// `.introductoryOfferEligibility(compactJWS:)`.
    /// - Parameters:
    ///   - productId: the subscription's product id.
    ///   - allowIntroductoryOffer: whether the customer may have the introductory offer.
    ///   - transactionId: any transaction of the customer (its `appTransactionId` will do).
    ///   - nonce: a one-time UUID; a random one by default.
    ///   - issuedAt: the signing time; now by default.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`signingFailed`) if the key cannot sign.
    public func introductoryOfferEligibility(
        productId: String,
        allowIntroductoryOffer: Bool,
        transactionId: String,
        nonce: UUID = UUID(),
        issuedAt: Date = Date()
    ) throws(StoreAdapterError) -> String {
        try sign(
            claims(Self.introductoryOfferEligibilityAudience, productId: productId, nonce: nonce, issuedAt: issuedAt)
                .with {
                    $0.allowIntroductoryOffer = allowIntroductoryOffer
                    $0.transactionId = transactionId
                }
        )
    }

    private func claims(_ audience: String, productId: String, nonce: UUID, issuedAt: Date) -> Claims {
        Claims(
            iss: issuerId,
            iat: Int64(issuedAt.timeIntervalSince1970.rounded(.down)),
            aud: audience,
            bid: bundleId,
            nonce: nonce.uuidString.lowercased(),
            productId: productId
        )
    }

    private func sign(_ claims: Claims) throws(StoreAdapterError) -> String {
        do {
            return try AppStoreServerAPIToken.sign(claims, keyId: keyId, privateKey: privateKey.revealed)
        } catch {
            throw AppleSigningKey.signingFailed()
        }
    }
}

extension AppleOfferJWSSigner.Claims {
    fileprivate func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}

public import Crypto
public import Foundation
public import OpenCatCore

/// Signs App Store promotional offers the original way: the signature StoreKit 1's `SKPaymentDiscount` and StoreKit
/// 2's `Product.SubscriptionOffer.Signature` (and the Retention Messaging API's `promotionalOfferSignatureV1`) carry.
///
/// [Generating a signature for promotional offers](https://developer.apple.com/documentation/storekit/generating-a-signature-for-promotional-offers):
/// the UTF-8 string
///
///     appBundleId ␣ keyIdentifier ␣ productIdentifier ␣ offerIdentifier ␣ appAccountToken ␣ nonce ␣ timestamp
///
/// (each ␣ being U+2063 INVISIBLE SEPARATOR), where `appAccountToken` (formerly `applicationUsername`) and `nonce` are
/// lowercase UUIDs (an absent token is the empty string) and `timestamp` is UNIX time in milliseconds, is signed
/// with ECDSA P-256 and SHA-256 by the In-App Purchase key named by `keyIdentifier`; the DER signature, in base64,
/// is the offer's signature. Apple's App Store Server Library builds the same string
/// (`PromotionalOfferSignatureCreator`).
///
/// ```swift
/// let signer = try ApplePromotionalOfferSigner(
///     keyId: "ABCDEF1234", bundleId: "com.example.app", pemFile: "SubscriptionKey_ABCDEF1234.p8")
/// let offer = try signer.signedOffer(
///     productId: "com.example.monthly", offerId: "WINBACK50", appAccountToken: user.appAccountToken)
/// // send offer.keyIdentifier, offer.nonce, offer.timestamp and offer.signature to the app
/// ```
public struct ApplePromotionalOfferSigner: Sendable {
    /// The separator between the fields: U+2063 INVISIBLE SEPARATOR (UTF-8 `E2 81 A3`).
    public static let separator = "\u{2063}"

    /// The In-App Purchase key's id in App Store Connect (`keyIdentifier`).
    public let keyId: String
    /// The app's bundle id (`appBundleId`).
    public let bundleId: String
    private let privateKey: Secret<P256.Signing.PrivateKey>

    /// A signer with a key already loaded.
    public init(keyId: String, bundleId: String, privateKey: P256.Signing.PrivateKey) {
        self.keyId = keyId
        self.bundleId = bundleId
        self.privateKey = Secret(privateKey)
    }

    /// A signer with the key's PEM text (the contents of the `.p8`).
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`invalidPrivateKey`) if it is not a P-256 private key.
    public init(keyId: String, bundleId: String, privateKeyPEM: Secret<String>) throws(StoreAdapterError) {
        self.init(keyId: keyId, bundleId: bundleId, privateKey: try AppleSigningKey.privateKey(pem: privateKeyPEM))
    }

    /// A signer with the key in a `.p8` file.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`keyFileUnreadable`, `invalidPrivateKey`).
    public init(keyId: String, bundleId: String, pemFile: String) throws(StoreAdapterError) {
        self.init(keyId: keyId, bundleId: bundleId, privateKey: try AppleSigningKey.privateKey(pemFile: pemFile))
    }

    /// The key's public half, which verifies the signatures.
    public var publicKey: P256.Signing.PublicKey { privateKey.revealed.publicKey }

    /// The exact string that is signed, fields joined by ``separator``, UUIDs lowercase.
    /// - Parameters:
    ///   - productId: the subscription's product id.
    ///   - offerId: the promotional offer's id in App Store Connect.
    ///   - appAccountToken: the token the purchase will carry (StoreKit 1's `applicationUsername`); nil for none.
    ///   - nonce: a one-time UUID, new for every signature.
    ///   - timestamp: UNIX time in milliseconds; the offer is valid for 24 hours from it.
    public func payload(
        productId: String,
        offerId: String,
        appAccountToken: UUID?,
        nonce: UUID,
        timestamp: Int64
    ) -> String {
        [
            bundleId, keyId, productId, offerId, appAccountToken?.uuidString.lowercased() ?? "",
            nonce.uuidString.lowercased(), String(timestamp),
        ].joined(separator: Self.separator)
    }

    /// The offer's signature: base64 of the DER ECDSA signature of
    /// ``payload(productId:offerId:appAccountToken:nonce:timestamp:)``.
    /// - Throws: ``StoreAdapterError`` `misconfigured` (`signingFailed`) if the key cannot sign.
    public func signature(
        productId: String,
        offerId: String,
        appAccountToken: UUID?,
        nonce: UUID,
        timestamp: Int64
    ) throws(StoreAdapterError) -> String {
        let text = payload(
            productId: productId,
            offerId: offerId,
            appAccountToken: appAccountToken,
            nonce: nonce,
            timestamp: timestamp
        )
        return try AppleSigningKey.signature(for: Data(text.utf8), with: privateKey.revealed).derRepresentation
            .base64EncodedString()
    }

    /// Everything the app passes to StoreKit: a fresh nonce, the current time and the signature over them.
    /// - Parameters:
    ///   - nonce: the nonce; a random one by default.
    ///   - now: when the offer is signed; now by default.
    public func signedOffer(
        productId: String,
        offerId: String,
        appAccountToken: UUID?,
        nonce: UUID = UUID(),
        now: Date = Date()
    ) throws(StoreAdapterError) -> SignedOffer {
        let timestamp = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        return SignedOffer(
            productId: productId,
            offerIdentifier: offerId,
            keyIdentifier: keyId,
            nonce: nonce.uuidString.lowercased(),
            timestamp: timestamp,
            signature: try signature(
                productId: productId,
                offerId: offerId,
                appAccountToken: appAccountToken,
                nonce: nonce,
                timestamp: timestamp
            )
        )
    }

    /// A signed promotional offer, named as StoreKit names its parts (`SKPaymentDiscount`,
    /// `Product.SubscriptionOffer.Signature`).
    public struct SignedOffer: Sendable, Codable, Hashable {
        /// The subscription's product id.
        public var productId: String
        /// The offer's id (`SKPaymentDiscount.identifier`).
        public var offerIdentifier: String
        /// The signing key's id.
        public var keyIdentifier: String
        /// The nonce, a lowercase UUID.
        public var nonce: String
        /// UNIX time in milliseconds.
        public var timestamp: Int64
        /// Base64 DER ECDSA signature.
        public var signature: String
    }
}

import OpenCatCore

/// The check of an App Store JWS that failed; its raw value is the ``StoreAdapterError/storeReason`` of the
/// `invalidProof` error.
enum AppleJWSCheck: String, Sendable, CaseIterable {
    /// Not three base64url segments, or a header or payload that is not the expected JSON.
    case malformedJWS
    /// The header's `alg` is not `ES256`.
    case unsupportedAlgorithm
    /// The header has no `x5c` chain.
    case missingX5C
    /// `x5c` does not hold exactly leaf, intermediate and root.
    case invalidChainLength
    /// An `x5c` entry is not standard base64 of a DER certificate.
    case malformedCertificate
    /// No chain from the leaf to a configured root (wrong root, or a broken certificate signature).
    case untrustedChain
    /// The intermediate lacks OID 1.2.840.113635.100.6.2.1.
    case intermediateOIDMissing
    /// The leaf lacks OID 1.2.840.113635.100.6.11.1.
    case leafOIDMissing
    /// A certificate of the chain had expired at the validation time.
    case certificateExpired
    /// A certificate of the chain was not yet valid at the validation time.
    case certificateNotYetValid
    /// The chain failed another RFC 5280 rule (basic constraints, key usage, name constraints).
    case chainPolicyFailed
    /// The leaf key is not a P-256 key.
    case unsupportedLeafKey
    /// The signature segment is not 64 bytes of raw R‖S.
    case malformedSignature
    /// The ES256 signature does not match the header and payload.
    case invalidSignature
    /// The JWS is larger than ``AppleJWSVerifier/Limits`` allow for its kind; rejected before it is read.
    case tooLarge
    /// The chain's validation time (the payload's `signedDate`, the clock, or a fixed time) is outside the window
    /// the App Store can have signed in, or outside what a certificate can express.
    case validationTimeOutOfRange
    /// OCSP says a certificate of the chain is revoked, or (hard failure mode) could not say it is not.
    case revocationCheckFailed
    /// The payload's `signedDate` is before its purchase: signed data dated back into an older certificate's life.
    case signedBeforePurchase

    /// The error for this failed check. The message never contains the JWS or any part of it.
    func error(_ message: String) -> StoreAdapterError {
        StoreAdapterError(.invalidProof, store: .apple, message, storeReason: rawValue)
    }
}

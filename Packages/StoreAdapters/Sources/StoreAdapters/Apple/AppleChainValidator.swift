import Crypto
import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// Validates an App Store `x5c` chain with swift-certificates: RFC 5280 at a chosen time, plus ``AppleOIDPolicy``,
/// anchored only in the caller's roots (the root inside `x5c` is never trusted).
struct AppleChainValidator: Sendable {
    /// A validated chain: the leaf's key and the window in which every certificate of the chain is valid.
    struct Validated: Sendable {
        var publicKey: P256.Signing.PublicKey
        var notValidBefore: Date
        var notValidAfter: Date
    }

    let roots: CertificateStore
    let revocationCheck: AppleJWSVerifier.RevocationCheck

    init(roots: [Certificate], revocationCheck: AppleJWSVerifier.RevocationCheck = .none) {
        self.roots = CertificateStore(roots)
        self.revocationCheck = revocationCheck
    }

    /// Validates leaf → intermediate → configured root at `time`.
    /// - Throws: ``StoreAdapterError`` `invalidProof` naming the failed check.
    func validate(leaf: Certificate, intermediate: Certificate, at time: Date) async throws -> Validated {
        // The fixed-time initialiser is SPI because most users want "now"; App Store payloads are checked at their
        // signedDate when verified offline, as Apple's own libraries do.
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AppleOIDPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let chain):
            try await checkRevocation(leaf: leaf, intermediate: intermediate, at: time)
            guard let publicKey = P256.Signing.PublicKey(chain.leaf.publicKey) else {
                throw AppleJWSCheck.unsupportedLeafKey.error(
                    "the App Store signing certificate does not hold a P-256 key"
                )
            }
            return Validated(
                publicKey: publicKey,
                notValidBefore: chain.map(\.notValidBefore).max() ?? time,
                notValidAfter: chain.map(\.notValidAfter).min() ?? time
            )
        case .couldNotValidate(let failures):
            throw Self.classify(failures, leaf: leaf, intermediate: intermediate, at: time)
        }
    }

    /// Asks OCSP about the validated chain when ``AppleJWSVerifier/RevocationCheck/ocsp(requester:failureMode:)``
    /// is configured.
    private func checkRevocation(leaf: Certificate, intermediate: Certificate, at time: Date) async throws {
        guard case .ocsp(let requester, let failureMode) = revocationCheck else { return }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            OCSPVerifierPolicy(
                failureMode: failureMode,
                requester: AnyOCSPRequester(base: requester),
                fixedExpiryValidationTime: time
            )
        }
        if case .couldNotValidate = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        {
            throw AppleJWSCheck.revocationCheckFailed.error(
                "a certificate of the chain is revoked, or its OCSP status could not be established"
            )
        }
    }

    /// Names the check that failed. No policy failure at all means no chain reached a configured root.
    private static func classify(
        _ failures: [CertificateValidationResult.PolicyFailure],
        leaf: Certificate,
        intermediate: Certificate,
        at time: Date
    ) -> StoreAdapterError {
        guard let failure = failures.first else {
            return AppleJWSCheck.untrustedChain.error("the certificate chain does not lead to a configured root")
        }
        if !AppleOIDPolicy.hasIntermediateMarker(intermediate) {
            return AppleJWSCheck.intermediateOIDMissing.error(
                "the intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
            )
        }
        if !AppleOIDPolicy.hasLeafMarker(leaf) {
            return AppleJWSCheck.leafOIDMissing.error(
                "the signing certificate lacks Apple's OID 1.2.840.113635.100.6.11.1"
            )
        }
        let chain = Array(failure.chain)
        if chain.contains(where: { time > $0.notValidAfter }) {
            return AppleJWSCheck.certificateExpired.error(
                "a certificate of the chain had expired at the validation time"
            )
        }
        if chain.contains(where: { time < $0.notValidBefore }) {
            return AppleJWSCheck.certificateNotYetValid.error(
                "a certificate of the chain was not yet valid at the validation time"
            )
        }
        return AppleJWSCheck.chainPolicyFailed.error("the certificate chain breaks an RFC 5280 rule")
    }
}

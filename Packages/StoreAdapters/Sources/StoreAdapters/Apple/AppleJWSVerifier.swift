import Crypto
public import Foundation
public import Logging
public import OpenCatCore
import SwiftASN1
public import X509

/// Verifies App Store signed data (compact JWS, ES256, `x5c` chain) and decodes its payload.
///
/// For each JWS: the `x5c` leaf → intermediate chain is validated with swift-certificates against the
/// caller-supplied roots (never the root inside `x5c`), with RFC 5280 rules at the ``ValidationTime`` and Apple's
/// OIDs (1.2.840.113635.100.6.2.1 on the intermediate, 1.2.840.113635.100.6.11.1 on the leaf); then the ES256
/// signature (raw R‖S) is checked with the leaf's key.
///
/// **Chain cache.** A validated chain is remembered (keyed by the SHA-256 of the protected header, which carries
/// the chain; bounded, least recently used first out; honoured only while the validation time is inside every
/// certificate's validity), so verifying many transactions signed by the same leaf costs one ECDSA verification
/// each. The verifier is a value type whose copies share one cache; it is safe to use from many tasks.
///
/// Every failure is a ``StoreAdapterError`` with code `invalidProof` and, in `storeReason`, the check that failed
/// (`malformedJWS`, `unsupportedAlgorithm`, `missingX5C`, `invalidChainLength`, `malformedCertificate`,
/// `untrustedChain`, `intermediateOIDMissing`, `leafOIDMissing`, `certificateExpired`, `certificateNotYetValid`,
/// `chainPolicyFailed`, `unsupportedLeafKey`, `malformedSignature`, `invalidSignature`, `tooLarge`,
/// `validationTimeOutOfRange`). Messages never contain the JWS.
///
/// Nothing from the payload is used before the ES256 signature is checked with the leaf key of `x5c`; the chain is
/// then validated at a time that must lie in a sane window (see ``validationDate(signedDate:)``), so a forged or
/// absurd `signedDate` is rejected, never handed to the certificate library.
public struct AppleJWSVerifier: Sendable {
    /// The instant at which the certificate chain must be valid.
    public enum ValidationTime: Sendable, Hashable {
        /// The payload's `signedDate` (the current time if it has none): offline verification, as Apple's own
        /// libraries do, since App Store signing certificates expire while signed transactions stay valid.
        case signedDate
        /// The current time of the verifier's clock.
        case now
        /// A fixed instant (reproducible checks).
        case fixed(Date)
    }

    /// Counters of the chain cache.
    public struct Statistics: Sendable, Hashable {
        /// Full chain validations performed (cache misses that reached swift-certificates).
        public var chainValidations: Int
        /// Verifications that reused a cached chain.
        public var cacheHits: Int
        /// Verifications that found no usable cached chain.
        public var cacheMisses: Int
        /// Chains cached right now.
        public var cachedChains: Int
    }

    private struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
    }

    /// The roots chains must lead to.
    public let rootCertificates: [Certificate]
    /// When chains must be valid.
    public let validationTime: ValidationTime
    /// Size and time limits.
    public let limits: Limits
    private let clock: any WallClock
    /// Online checks validate the chain at the current time (OCSP answers are about now).
    private let checksRevocation: Bool
    private let validator: AppleChainValidator
    private let cache: AppleChainCache

    /// Creates a verifier.
    /// - Parameters:
    ///   - rootCertificates: the trusted roots (Apple Root CA - G3 in production; see ``AppleRootCAG3``). A root
    ///     whose fingerprint differs from G3's is accepted but logged as a warning.
    ///   - validationTime: when chains must be valid (default: the payload's `signedDate`).
    ///   - clock: the source of "now".
    ///   - chainCacheCapacity: how many verified chains to remember (0 disables the cache).
    ///   - limits: size and time limits.
    ///   - revocationCheck: online OCSP checks (servers); none by default.
    ///   - logger: where the root warning goes; nothing secret is ever logged.
    public init(
        rootCertificates: [Certificate],
        validationTime: ValidationTime = .signedDate,
        clock: any WallClock = SystemClock(),
        chainCacheCapacity: Int = 32,
        limits: Limits = Limits(),
        revocationCheck: RevocationCheck = .none,
        logger: Logger = Logger(label: "dev.opencat.apple", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.rootCertificates = rootCertificates
        self.validationTime = validationTime
        self.limits = limits
        self.clock = clock
        self.validator = AppleChainValidator(roots: rootCertificates, revocationCheck: revocationCheck)
        // With online revocation checks every verification asks the responder: nothing is cached.
        if case .ocsp = revocationCheck {
            self.cache = AppleChainCache(capacity: 0)
        } else {
            self.cache = AppleChainCache(capacity: chainCacheCapacity)
        }
        self.checksRevocation = if case .ocsp = revocationCheck { true } else { false }
        if rootCertificates.isEmpty {
            logger.warning("no App Store root certificate is configured: every signed payload will be rejected")
        }
        for root in rootCertificates where !AppleRootCAG3.matches(root) {
            logger.warning(
                "a configured App Store root certificate is not Apple Root CA - G3",
                metadata: [
                    "sha256": "\(AppleRootCAG3.sha256Fingerprint(of: root) ?? "unknown")",
                    "expected": "\(AppleRootCAG3.sha256Fingerprint)",
                    "subject": "\(root.subject)",
                ]
            )
        }
    }

    /// The chain cache's counters.
    public var statistics: Statistics {
        let counters = cache.statistics
        return Statistics(
            chainValidations: counters.validations,
            cacheHits: counters.hits,
            cacheMisses: counters.misses,
            cachedChains: counters.entries
        )
    }

    /// Verifies a JWS and decodes its payload.
    ///
    /// Order of checks: size, segments, header, the ES256 signature with the leaf key, and only then anything from
    /// the payload: its `signedDate` (which must lie in ``Limits/earliestSignedDate`` … now + ``Limits/maximumClockSkew``)
    /// dates the chain validation, and the payload is decoded last.
    /// - Parameters:
    ///   - jws: the compact JWS.
    ///   - type: the payload type (``JWSTransactionDecodedPayload``, ``JWSRenewalInfoDecodedPayload``,
    ///     ``ResponseBodyV2DecodedPayload``).
    /// - Returns: the payload, once chain and signature are verified.
    /// - Throws: ``StoreAdapterError`` `invalidProof`, with the failed check in `storeReason`.
    public func verify<Payload: DecodedSignedData>(_ jws: String, as type: Payload.Type = Payload.self) async throws
        -> Payload
    {
        let payloadBytes = try await verifiedPayload(jws, maximumBytes: Payload.maximumJWSBytes(limits))
        do {
            return try JSONDecoder().decode(Payload.self, from: Data(payloadBytes))
        } catch {
            throw AppleJWSCheck.malformedJWS.error(
                "the JWS payload is not a readable \(Payload.self): \(StoreHTTP.summary(of: error))"
            )
        }
    }

    /// Verifies a JWS and returns its payload as JSON bytes, without decoding it into a model.
    ///
    /// The lean path for throughput (a warm verification is then little more than one ECDSA check): in
    /// ``ValidationTime/signedDate`` mode only the payload's top-level `signedDate` is read. In a tight loop, call it
    /// from a nonisolated async context: called from an actor (the main actor included), every call hops executors,
    /// which costs more than the verification. Accepts JWS up to ``Limits/maximumNotificationBytes``.
    /// - Parameter jws: the compact JWS.
    /// - Returns: the verified payload (UTF-8 JSON).
    /// - Throws: ``StoreAdapterError`` `invalidProof`, with the failed check in `storeReason`.
    public func verifyPayload(_ jws: String) async throws -> Data {
        Data(try await verifiedPayload(jws, maximumBytes: limits.maximumNotificationBytes))
    }

    /// Verifies a JWS held as a `Secret` and decodes its payload; see ``verify(_:as:)``.
    public func verify<Payload: DecodedSignedData>(_ jws: Secret<String>, as type: Payload.Type = Payload.self)
        async throws -> Payload
    {
        try await verify(jws.revealed, as: type)
    }

    /// Size, signature, validation time and chain, in that order; returns the payload bytes.
    private func verifiedPayload(_ jws: String, maximumBytes: Int) async throws -> [UInt8] {
        let parts = try AppleCompactJWS(jws, maximumBytes: maximumBytes)
        let headerKey = parts.withBytes(parts.header) { cache.key(forHeader: UnsafeRawBufferPointer($0)) }
        // The signing key: a chain validated earlier, or the leaf of this header's chain (not yet trusted).
        var chain: (leaf: Certificate, intermediate: Certificate)?
        let leafKey: P256.Signing.PublicKey
        if let cached = cache.cachedKey(for: headerKey) {
            leafKey = cached
        } else {
            let certificates = try Self.chain(in: parts)
            guard let key = P256.Signing.PublicKey(certificates.leaf.publicKey) else {
                throw AppleJWSCheck.unsupportedLeafKey.error(
                    "the App Store signing certificate does not hold a P-256 key"
                )
            }
            (chain, leafKey) = (certificates, key)
        }
        try Self.checkSignature(of: parts, by: leafKey)
        // Signed by the leaf: the payload may now be read, to date the chain check.
        guard let payloadBytes = parts.decoded(parts.payload) else {
            throw AppleJWSCheck.malformedJWS.error("the JWS payload is not base64url")
        }
        let time = try validationDate(payload: payloadBytes)
        if cache.publicKey(for: headerKey, at: time) != nil { return payloadBytes }
        let certificates = try chain ?? Self.chain(in: parts)
        cache.recordValidation()
        let validated = try await validator.validate(
            leaf: certificates.leaf,
            intermediate: certificates.intermediate,
            at: time
        )
        cache.insert(
            validated.publicKey,
            for: headerKey,
            validFrom: validated.notValidBefore,
            until: validated.notValidAfter
        )
        return payloadBytes
    }

    /// The instant the chain must be valid at, for a payload signed at `signedDate`.
    ///
    /// - Throws: `invalidProof` / `validationTimeOutOfRange` when that instant is outside what a certificate can
    ///   express or what the App Store can have signed: a `signedDate` before ``Limits/earliestSignedDate`` or
    ///   after now + ``Limits/maximumClockSkew``, or a clock or fixed time outside the years 1 to 9999.
    public func validationDate(signedDate: Date?) throws -> Date {
        let now = clock.currentDate
        let date: Date
        switch validationTime {
        case .signedDate:
            guard let signedDate else {
                date = now
                break
            }
            guard signedDate >= limits.earliestSignedDate,
                signedDate <= now.addingTimeInterval(TimeInterval(limits.maximumClockSkew.components.seconds))
            else {
                throw AppleJWSCheck.validationTimeOutOfRange.error(
                    "the payload's signedDate is outside the window the App Store can have signed in"
                )
            }
            date = signedDate
        case .now: date = now
        case .fixed(let fixed): date = fixed
        }
        guard Self.certificateTimeRange.contains(date) else {
            throw AppleJWSCheck.validationTimeOutOfRange.error(
                "the validation time is outside the years 1 to 9999 that a certificate can express"
            )
        }
        return date
    }

    /// 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z: what X.509's GeneralizedTime can hold.
    static let certificateTimeRange: ClosedRange<Date> =
        Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)

    /// The validation date, reading the payload's `signedDate` only in ``ValidationTime/signedDate`` mode.
    private func validationDate(payload: [UInt8]) throws -> Date {
        guard case .signedDate = validationTime else { return try validationDate(signedDate: nil) }
        let signedDate = try validationDate(signedDate: try AppleSignedDateScanner.signedDate(in: payload))
        // Online checks validate at now (range-checked like any validation time).
        return checksRevocation ? try validationDate(signedDate: nil) : signedDate
    }

    /// Leaf and intermediate of the header's `x5c` (the root inside `x5c` is never used).
    private static func chain(in parts: AppleCompactJWS) throws -> (leaf: Certificate, intermediate: Certificate) {
        guard let headerBytes = parts.decoded(parts.header),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes))
        else {
            throw AppleJWSCheck.malformedJWS.error("the JWS header is not base64url JSON")
        }
        guard header.alg == "ES256" else {
            throw AppleJWSCheck.unsupportedAlgorithm.error("the JWS algorithm is not ES256")
        }
        guard let x5c = header.x5c, !x5c.isEmpty else {
            throw AppleJWSCheck.missingX5C.error("the JWS header has no x5c certificate chain")
        }
        guard x5c.count == 3 else {
            throw AppleJWSCheck.invalidChainLength.error("the x5c chain has \(x5c.count) certificates, expected 3")
        }
        let certificates = try x5c.prefix(2).map { encoded in
            guard let der = Data(base64Encoded: encoded), let certificate = try? Certificate(derEncoded: Array(der))
            else {
                throw AppleJWSCheck.malformedCertificate.error("an x5c entry is not a base64 DER certificate")
            }
            return certificate
        }
        return (certificates[0], certificates[1])
    }

    /// Checks the ES256 signature (raw R‖S, canonical base64url) of header and payload.
    private static func checkSignature(of parts: AppleCompactJWS, by publicKey: P256.Signing.PublicKey) throws {
        guard let signatureBytes = parts.decoded(parts.signature), signatureBytes.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else {
            throw AppleJWSCheck.malformedSignature.error("the JWS signature is not a 64-byte ES256 signature")
        }
        guard parts.isSigned(with: signature, by: publicKey) else {
            throw AppleJWSCheck.invalidSignature.error("the JWS signature does not match its header and payload")
        }
    }
}

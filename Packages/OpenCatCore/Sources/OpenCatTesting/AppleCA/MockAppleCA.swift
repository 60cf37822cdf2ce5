public import Crypto
public import Foundation
import OpenCatCore
public import SwiftASN1
public import X509

/// A test certificate authority shaped like Apple's App Store signing chain: a root, an intermediate carrying
/// Apple's WWDR marker OID `1.2.840.113635.100.6.2.1` and a leaf carrying the App Store receipt-signing marker OID
/// `1.2.840.113635.100.6.11.1` (non-critical extensions with an ASN.1 NULL value, as Apple's are). Keys are P-256,
/// generated at run time; nothing is committed.
///
/// It signs compact JWS the way the App Store does (header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`,
/// raw `r||s` signature), so tests and MockStores' cassettes (`{{apple.jws.…}}` placeholders) get JWS that verify against
/// ``rootCertificate``. Verify at the payload's `signedDate`: the default validity (2020-01-01 to 2040-01-01) never
/// makes a suite rot, and ``Options-swift.struct`` can mint expired or marker-less chains for negative tests.
///
/// One test CA for the whole project: StoreAdapters' tests, MockStores, the conformance suite, the CLI tests and
/// the benchmarks all mint their Apple chains here.
public struct MockAppleCA: Sendable {
    /// The OID Apple puts on its WWDR intermediate (`1.2.840.113635.100.6.2.1`).
    public static let intermediateMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// The OID Apple puts on its App Store signing leaf (`1.2.840.113635.100.6.11.1`).
    public static let leafMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// The options the chain was minted with.
    public let options: Options
    /// The root certificate (self-signed): the trust anchor a verifier is configured with.
    public let rootCertificate: Certificate
    /// The intermediate certificate.
    public let intermediateCertificate: Certificate
    /// The signing (leaf) certificate.
    public let leafCertificate: Certificate

    private let leafKey: P256.Signing.PrivateKey

    /// Mints a chain.
    /// - Parameter options: names, validity and markers (default: a valid Apple-shaped chain, 2020–2040).
    /// - Throws: when swift-certificates cannot build a certificate (it cannot with these inputs).
    public init(options: Options = Options()) throws {
        self.options = options
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("US")
            OrganizationName("OpenCat MockStores")
            CommonName(options.rootCommonName)
        }
        let intermediateName = try DistinguishedName {
            CountryName("US")
            OrganizationName("OpenCat MockStores")
            OrganizationalUnitName("G6")
            CommonName("OpenCat Mock Worldwide Developer Relations Certification Authority")
        }
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("OpenCat MockStores")
            CommonName("OpenCat Mock Prod ECC Mac App Store and iTunes Store Receipt Signing")
        }

        rootCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(rootKey.publicKey),
            notValidBefore: options.notValidBefore,
            notValidAfter: options.notValidAfter,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey)
        )

        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(intermediateKey.publicKey))
        }
        if options.intermediateHasAppleOID {
            try intermediateExtensions.append(
                Certificate.Extension(oid: Self.intermediateMarkerOID, critical: false, value: Self.asn1Null)
            )
        }
        intermediateCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(intermediateKey.publicKey),
            notValidBefore: options.notValidBefore,
            notValidAfter: options.notValidAfter,
            issuer: rootName,
            subject: intermediateName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions,
            issuerPrivateKey: .init(rootKey)
        )

        let leafExtensions = try Self.leafExtensions(options)
        leafCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(leafKey.publicKey),
            notValidBefore: options.leafNotValidBefore ?? options.notValidBefore,
            notValidAfter: options.leafNotValidAfter ?? options.notValidAfter,
            issuer: intermediateName,
            subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions,
            issuerPrivateKey: .init(intermediateKey)
        )
        self.leafKey = leafKey
    }

    /// The leaf's extensions: not a CA, then the key usage, OCSP responder and Apple marker the options ask for.
    static func leafExtensions(_ options: Options) throws -> Certificate.Extensions {
        var leafExtensions = try Certificate.Extensions { BasicConstraints.notCertificateAuthority }
        if let usage = options.leafKeyUsage { try leafExtensions.append(Certificate.Extension(usage, critical: true)) }
        if let uri = options.leafOCSPURI {
            try leafExtensions.append(
                Certificate.Extension(
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(uri))]),
                    critical: false
                )
            )
        }
        if options.leafHasAppleOID {
            try leafExtensions.append(
                Certificate.Extension(oid: Self.leafMarkerOID, critical: false, value: Self.asn1Null)
            )
        }
        return leafExtensions
    }

    /// An ASN.1 NULL, DER-encoded: the value of Apple's marker extensions.
    static let asn1Null: ArraySlice<UInt8> = [0x05, 0x00]

    /// The root certificate's DER bytes (what `AppleStoreAdapter`'s configuration takes as a trust anchor).
    public var rootCertificateDER: Data { Data(Self.der(rootCertificate)) }

    /// The public key of the leaf: verifies the JWS this CA signs.
    public var leafPublicKey: P256.Signing.PublicKey { P256.Signing.PublicKey(leafCertificate.publicKey)! }

    /// The header's `x5c`: leaf, intermediate and root, standard base64 of DER.
    public var x5c: [String] {
        [leafCertificate, intermediateCertificate, rootCertificate].map { Data(Self.der($0)).base64EncodedString() }
    }

    /// Signs payload bytes as a compact JWS: header `{"alg":"ES256","x5c":[…]}`, base64url parts, raw `r||s`
    /// signature by the leaf key.
    /// - Parameters:
    ///   - payload: the payload JSON, signed as given.
    ///   - x5c: the header's chain (default: this CA's leaf, intermediate, root; pass `[]` with `omitX5C` for none).
    ///   - omitX5C: leave `x5c` out of the header.
    ///   - alg: the header's `alg`.
    /// - Returns: `header.payload.signature`.
    public func signJWS(payload: Data, x5c: [String]? = nil, omitX5C: Bool = false, alg: String = "ES256") -> String {
        var header: [String: any Sendable] = ["alg": alg]
        if !omitX5C { header["x5c"] = x5c ?? self.x5c }
        // Serializing strings and arrays of strings cannot fail.
        let headerJSON = try! JSONSerialization.data(
            withJSONObject: header,
            options: [.sortedKeys, .withoutEscapingSlashes]
        )
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(leafSignature(for: Data(signingInput.utf8)).rawRepresentation)
    }

    /// The leaf key's ECDSA signature of some bytes (for tests that need another encoding of it, such as DER).
    public func leafSignature(for data: Data) -> P256.Signing.ECDSASignature {
        // P-256 signing with a valid key only fails if the system's randomness does; treat that as fatal.
        try! leafKey.signature(for: data)
    }

    /// Signs an `Encodable` payload as a compact JWS.
    /// - Parameters:
    ///   - payload: the payload (App Store models carry dates as integer milliseconds).
    ///   - encoder: the encoder (default: sorted keys).
    /// - Throws: what the encoder throws.
    public func signJWS<Payload: Encodable>(_ payload: Payload, encoder: JSONEncoder = MockAppleCA.defaultEncoder())
        throws -> String
    {
        signJWS(payload: try encoder.encode(payload))
    }

    /// A `JSONEncoder` with sorted keys and unescaped slashes.
    public static func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        // Serializing a certificate this type built cannot fail.
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

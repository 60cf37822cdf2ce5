import Crypto
import Foundation
import SwiftASN1
import X509

/// A test root → intermediate → leaf chain shaped like Apple's App Store signing chain (Apple's OIDs on the
/// intermediate and the leaf), and a compact-JWS signer using its leaf. Keys are generated at run time.
struct TestAppleChain: Sendable {
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// Default validity of every certificate: 2020-09-13 … 2033-05-18.
    static let notBefore = Date(timeIntervalSince1970: 1_600_000_000)
    static let notAfter = Date(timeIntervalSince1970: 2_000_000_000)

    let rootKey: P256.Signing.PrivateKey
    let intermediateKey: P256.Signing.PrivateKey
    let leafKey: P256.Signing.PrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    /// Mints a chain.
    /// - Parameters:
    ///   - rootName: the root's common name (two chains with different names/keys are different roots).
    ///   - intermediateHasOID: whether the intermediate carries 1.2.840.113635.100.6.2.1.
    ///   - leafHasOID: whether the leaf carries 1.2.840.113635.100.6.11.1.
    ///   - leafNotBefore: start of the leaf's validity.
    ///   - leafNotAfter: end of the leaf's validity.
    ///   - leafKeyUsage: the leaf's Key Usage extension (`nil`: none).
    ///   - leafOCSPURI: an OCSP responder named in the leaf's Authority Information Access.
    init(
        rootName: String = "OpenCat Test Root CA",
        intermediateHasOID: Bool = true,
        leafHasOID: Bool = true,
        leafNotBefore: Date = TestAppleChain.notBefore,
        leafNotAfter: Date = TestAppleChain.notAfter,
        leafKeyUsage: KeyUsage? = KeyUsage(digitalSignature: true),
        leafOCSPURI: String? = nil
    ) throws {
        rootKey = P256.Signing.PrivateKey()
        intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let rootSubject = try DistinguishedName {
            CountryName("US"); OrganizationName("OpenCat Tests"); CommonName(rootName)
        }
        let intermediateSubject = try DistinguishedName {
            CountryName("US"); OrganizationName("OpenCat Tests"); CommonName("Test WWDR Intermediate")
        }
        let leafSubject = try DistinguishedName {
            CountryName("US"); OrganizationName("OpenCat Tests"); CommonName("Test App Store Receipt Signing")
        }

        root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(rootKey.publicKey),
            notValidBefore: Self.notBefore,
            notValidAfter: Self.notAfter,
            issuer: rootSubject,
            subject: rootSubject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions([
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
            ]),
            issuerPrivateKey: .init(rootKey)
        )

        var intermediateExtensions = [
            try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true),
            try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ]
        if intermediateHasOID {
            intermediateExtensions.append(
                Certificate.Extension(oid: Self.intermediateOID, critical: false, value: [0x05, 0x00])
            )
        }
        intermediate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(intermediateKey.publicKey),
            notValidBefore: Self.notBefore,
            notValidAfter: Self.notAfter,
            issuer: rootSubject,
            subject: intermediateSubject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions(intermediateExtensions),
            issuerPrivateKey: .init(rootKey)
        )

        var leafExtensions = [try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: false)]
        if let leafKeyUsage { leafExtensions.append(try Certificate.Extension(leafKeyUsage, critical: true)) }
        if let leafOCSPURI {
            leafExtensions.append(
                try Certificate.Extension(
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(leafOCSPURI))]),
                    critical: false))
        }
        if leafHasOID {
            leafExtensions.append(Certificate.Extension(oid: Self.leafOID, critical: false, value: [0x05, 0x00]))
        }
        leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(leafKey.publicKey),
            notValidBefore: leafNotBefore,
            notValidAfter: leafNotAfter,
            issuer: intermediateSubject,
            subject: leafSubject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions(leafExtensions),
            issuerPrivateKey: .init(intermediateKey)
        )
    }

    /// The DER bytes of a certificate.
    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The `x5c` header value: leaf, intermediate, root, standard base64 DER.
    func x5c() throws -> [String] {
        try [leaf, intermediate, root].map { Data(try Self.der($0)).base64EncodedString() }
    }

    /// Signs a payload as a compact JWS with the leaf key.
    /// - Parameters:
    ///   - payload: encoded with `JSONEncoder` (App Store models encode dates as integer milliseconds).
    ///   - x5c: the chain to put in the header (default: this chain's leaf, intermediate, root).
    ///   - omitX5C: leave `x5c` out of the header.
    ///   - alg: the header's `alg`.
    func sign<Payload: Encodable>(
        _ payload: Payload,
        x5c: [String]? = nil,
        omitX5C: Bool = false,
        alg: String = "ES256"
    ) throws -> String {
        let chain: [String]?
        if omitX5C { chain = nil } else if let x5c { chain = x5c } else { chain = try self.x5c() }
        return try signRaw(payloadJSON: try JSONEncoder().encode(payload), x5c: chain, alg: alg)
    }

    /// Signs raw payload bytes as a compact JWS with the leaf key.
    func signRaw(payloadJSON: Data, x5c: [String]?, alg: String = "ES256") throws -> String {
        var header: [String: any Sendable] = ["alg": alg, "typ": "JWT"]
        if let x5c { header["x5c"] = x5c }
        let headerJSON = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        let signingInput = Self.base64URL(headerJSON) + "." + Self.base64URL(payloadJSON)
        let signature = try leafKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Self.base64URL(signature.rawRepresentation)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

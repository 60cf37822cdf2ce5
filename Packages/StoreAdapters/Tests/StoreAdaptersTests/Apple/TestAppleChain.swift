import Crypto
import Foundation
import OpenCatCore
import OpenCatTesting
import X509

/// The StoreAdapters tests' view of the project's one test CA (OpenCatTesting's ``MockAppleCA``): an Apple-shaped
/// root → intermediate → leaf chain and a compact-JWS signer using its leaf. Keys are generated at run time.
struct TestAppleChain: Sendable {
    /// Default validity of every certificate (MockAppleCA's: 2020-01-01 … 2040-01-01).
    static let notBefore = MockAppleCA.Options.defaultNotValidBefore
    static let notAfter = MockAppleCA.Options.defaultNotValidAfter

    let ca: MockAppleCA
    var root: Certificate { ca.rootCertificate }
    var intermediate: Certificate { ca.intermediateCertificate }
    var leaf: Certificate { ca.leafCertificate }

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
        leafNotBefore: Date? = nil,
        leafNotAfter: Date? = nil,
        leafKeyUsage: KeyUsage? = KeyUsage(digitalSignature: true),
        leafOCSPURI: String? = nil
    ) throws {
        ca = try MockAppleCA(
            options: .init(
                rootCommonName: rootName,
                leafNotValidBefore: leafNotBefore,
                leafNotValidAfter: leafNotAfter,
                intermediateHasAppleOID: intermediateHasOID,
                leafHasAppleOID: leafHasOID,
                leafKeyUsage: leafKeyUsage,
                leafOCSPURI: leafOCSPURI
            )
        )
    }

    /// The `x5c` header value: leaf, intermediate, root, standard base64 DER.
    func x5c() throws -> [String] { ca.x5c }

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
        ca.signJWS(payload: try JSONEncoder().encode(payload), x5c: x5c, omitX5C: omitX5C, alg: alg)
    }

    /// Signs raw payload bytes as a compact JWS with the leaf key.
    func signRaw(payloadJSON: Data, x5c: [String]?, alg: String = "ES256") throws -> String {
        ca.signJWS(payload: payloadJSON, x5c: x5c, omitX5C: x5c == nil, alg: alg)
    }

    /// The leaf key's signature of some bytes.
    func leafSignature(for data: Data) -> P256.Signing.ECDSASignature { ca.leafSignature(for: data) }

    static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? { Base64URL.decode(text) }
}

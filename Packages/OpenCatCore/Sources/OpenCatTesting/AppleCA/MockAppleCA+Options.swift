public import Foundation
public import X509

extension MockAppleCA {
    /// How to mint the chain: names, validity, and whether the Apple markers are present.
    public struct Options: Sendable, Hashable {
        /// 2020-01-01T00:00:00Z: the default start of every certificate's validity.
        public static let defaultNotValidBefore = Date(timeIntervalSince1970: 1_577_836_800)
        /// 2040-01-01T00:00:00Z: the default end of every certificate's validity.
        public static let defaultNotValidAfter = Date(timeIntervalSince1970: 2_208_988_800)

        /// The root's common name (chains with different names and keys are different roots).
        public var rootCommonName: String
        /// Start of the root's and intermediate's validity (and the leaf's unless overridden).
        public var notValidBefore: Date
        /// End of the root's and intermediate's validity (and the leaf's unless overridden).
        public var notValidAfter: Date
        /// Start of the leaf's validity (`nil`: ``notValidBefore``).
        public var leafNotValidBefore: Date?
        /// End of the leaf's validity (`nil`: ``notValidAfter``).
        public var leafNotValidAfter: Date?
        /// Whether the intermediate carries `1.2.840.113635.100.6.2.1`.
        public var intermediateHasAppleOID: Bool
        /// Whether the leaf carries `1.2.840.113635.100.6.11.1`.
        public var leafHasAppleOID: Bool
        /// The leaf's Key Usage extension, critical (`nil`: none; Apple's leaf has digitalSignature).
        public var leafKeyUsage: KeyUsage?
        /// An OCSP responder named in the leaf's Authority Information Access (`nil`: none).
        public var leafOCSPURI: String?

        /// Creates options (defaults: a valid Apple-shaped chain, 2020–2040).
        public init(
            rootCommonName: String = "OpenCat Mock Apple Root CA - G3",
            notValidBefore: Date = Options.defaultNotValidBefore,
            notValidAfter: Date = Options.defaultNotValidAfter,
            leafNotValidBefore: Date? = nil,
            leafNotValidAfter: Date? = nil,
            intermediateHasAppleOID: Bool = true,
            leafHasAppleOID: Bool = true,
            leafKeyUsage: KeyUsage? = KeyUsage(digitalSignature: true),
            leafOCSPURI: String? = nil
        ) {
            self.rootCommonName = rootCommonName
            self.notValidBefore = notValidBefore
            self.notValidAfter = notValidAfter
            self.leafNotValidBefore = leafNotValidBefore
            self.leafNotValidAfter = leafNotValidAfter
            self.intermediateHasAppleOID = intermediateHasAppleOID
            self.leafHasAppleOID = leafHasAppleOID
            self.leafKeyUsage = leafKeyUsage
            self.leafOCSPURI = leafOCSPURI
        }

        /// A chain whose certificates carry neither Apple marker OID (valid otherwise): must be refused.
        public static let withoutAppleOIDs = Options(intermediateHasAppleOID: false, leafHasAppleOID: false)

        /// A chain whose leaf was valid only during 2020 (2020-01-01 to 2021-01-01): refused at any later time.
        public static let expiredLeaf = Options(leafNotValidAfter: Date(timeIntervalSince1970: 1_609_459_200))
    }
}

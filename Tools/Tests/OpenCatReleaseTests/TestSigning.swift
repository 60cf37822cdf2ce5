import Crypto
import Foundation
import SwiftASN1
import X509

/// Signing identities for the release tests.
enum TestSigning {
    /// A leaf's private key (PKCS#8 DER) and its chain (leaf, then root; DER files).
    struct Identity {
        var key: String
        var chain: [String]
        /// The root certificate's file: what a consumer trusts.
        var root: String { chain[chain.count - 1] }
    }

    /// A test CA and a code-signing leaf it issued, written as DER (the key as PKCS#8): what a release engineer signs
    /// with.
    static func identity(in signingFolder: URL, rootName commonName: String = "OpenCat Test Root") throws -> Identity {
        try FileManager.default.createDirectory(at: signingFolder, withIntermediateDirectories: true)
        let rootKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName(commonName) }
        let leafName = try DistinguishedName { CommonName("OpenCat Release Test") }
        let now = Date()
        let root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(rootKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(rootKey)
        )
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName,
            subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.codeSigning])
            },
            issuerPrivateKey: .init(rootKey)
        )
        var paths: [String] = []
        for (name, certificate) in [("leaf.der", leaf), ("root.der", root)] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            let url = signingFolder.appendingPathComponent(name)
            try Data(serializer.serializedBytes).write(to: url)
            paths.append(url.path)
        }
        let key = signingFolder.appendingPathComponent("leaf.p8")
        try leafKey.derRepresentation.write(to: key)
        return Identity(key: key.path, chain: paths)
    }

}

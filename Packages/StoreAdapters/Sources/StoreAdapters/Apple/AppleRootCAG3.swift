import Crypto
import SwiftASN1
public import X509

/// Apple Root CA - G3, the root of every App Store signing chain.
///
/// OpenCat does not ship Apple's certificate: callers supply the roots they trust (download them from
/// [Apple PKI](https://www.apple.com/certificateauthority/)). This constant lets them, and ``AppleJWSVerifier``,
/// check that the configured root is the real one; the verifier logs a warning for any root that differs.
public enum AppleRootCAG3 {
    /// The SHA-256 fingerprint of the DER encoding of Apple Root CA - G3, lower-case hex.
    public static let sha256Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// The SHA-256 fingerprint of a certificate's DER encoding, lower-case hex.
    /// - Returns: `nil` if the certificate cannot be serialized.
    public static func sha256Fingerprint(of certificate: Certificate) -> String? {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return nil }
        return SHA256.hash(data: serializer.serializedBytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether a certificate is Apple Root CA - G3 (by fingerprint).
    public static func matches(_ certificate: Certificate) -> Bool {
        sha256Fingerprint(of: certificate) == sha256Fingerprint
    }
}

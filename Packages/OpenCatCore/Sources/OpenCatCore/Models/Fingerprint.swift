import Crypto
public import Foundation

/// SHA-256 fingerprints for identifiers that may be logged or used as keys without revealing their source: the
/// one SHA-256 hex helper (idempotency keys, token hashes, proof fingerprints).
public enum Fingerprint {
    /// The SHA-256 of the UTF-8 text, lower-case hex.
    public static func hex(of text: String) -> String { hex(of: Data(text.utf8)) }

    /// The SHA-256 of the bytes, lower-case hex.
    public static func hex(of data: Data) -> String { lowercaseHex(SHA256.hash(data: data)) }

    /// Bytes as lower-case hex (a digest, a MAC), two digits per byte: the one hex encoder.
    public static func lowercaseHex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

import Crypto
import Foundation

/// SHA-256 fingerprints for identifiers that may be logged or used as keys without revealing their source.
package enum Fingerprint {
    /// The SHA-256 of the UTF-8 text, lower-case hex.
    package static func hex(of text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

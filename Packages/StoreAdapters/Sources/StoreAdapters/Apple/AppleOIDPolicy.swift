import SwiftASN1
import X509

/// Apple's App Store signing-chain rule: exactly leaf → intermediate → root, the intermediate carries the Apple
/// WWDR intermediate marker (1.2.840.113635.100.6.2.1) and the leaf the App Store receipt-signing marker
/// (1.2.840.113635.100.6.11.1). Chaining to Apple's root alone proves little: the same root issues developer
/// certificates.
struct AppleOIDPolicy: VerifierPolicy, Sendable {
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// The markers are presence checks only; they are not claimed as understood critical extensions.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "AppleOIDPolicy: chain has \(chain.count) certificates, expected 3")
        }
        guard Self.hasIntermediateMarker(chain[1]) else {
            return .failsToMeetPolicy(reason: "AppleOIDPolicy: intermediate lacks 1.2.840.113635.100.6.2.1")
        }
        guard Self.hasLeafMarker(chain[0]) else {
            return .failsToMeetPolicy(reason: "AppleOIDPolicy: leaf lacks 1.2.840.113635.100.6.11.1")
        }
        guard Self.permitsSigning(chain[0]) else {
            return .failsToMeetPolicy(reason: "AppleOIDPolicy: leaf key usage does not include digitalSignature")
        }
        return .meetsPolicy
    }

    /// Whether the leaf may sign data: a Key Usage extension, when present, must include `digitalSignature`
    /// (RFC 5280 §4.2.1.3; without the extension the key's use is unrestricted). An unreadable extension fails.
    static func permitsSigning(_ certificate: Certificate) -> Bool {
        do {
            return try certificate.extensions.keyUsage?.digitalSignature ?? true
        } catch {
            return false
        }
    }

    static func hasIntermediateMarker(_ certificate: Certificate) -> Bool {
        certificate.extensions.contains { $0.oid == intermediateMarker }
    }

    static func hasLeafMarker(_ certificate: Certificate) -> Bool {
        certificate.extensions.contains { $0.oid == leafMarker }
    }
}

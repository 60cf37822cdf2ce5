public import Crypto
public import Foundation

/// Verifies signed licenses offline with the server's Ed25519 public keys, by `kid` (rotation: an app embeds every
/// key that may have signed a license it will meet).
///
/// A license is accepted when its signature verifies with the key its `kid` names, its payload is well formed, its
/// human key is valid and names the payload's plan, no revocation list revokes it, it has not expired (a
/// subscription's `expiresAt`; a license without one never expires), its offline window has not closed
/// (`offlineUntil`, renewed at every key sync) and it was not bought in the future. Time is
/// the later of the device clock and the last confirmed time (a trusted server time the app saw), so setting the
/// clock back cannot revive an expired license; a license bought after the device's own "now" but not after the
/// confirmed time is accepted with ``VerifiedLicense/clockRolledBack`` set.
public struct LicenseVerifier: Sendable {
    /// Public keys by `kid`.
    public let keys: [String: Curve25519.Signing.PublicKey]
    /// How far a `purchasedAt` may lie ahead of the reference time (clock skew between the server and the device).
    public var tolerance: TimeInterval
    /// The revocation list every verification checks (the newest accepted), if any.
    public private(set) var revocations: LicenseRevocationList?

    /// Creates a verifier.
    /// - Parameters:
    ///   - keys: the server's public keys by `kid`.
    ///   - tolerance: allowed clock skew (default 5 minutes).
    ///   - revocations: a revocation list to check every license against (already verified: see
    ///     ``LicenseRevocationList/init(_:keys:)``); ``accept(_:)`` replaces it with newer ones.
    public init(
        keys: [String: Curve25519.Signing.PublicKey],
        tolerance: TimeInterval = 300,
        revocations: LicenseRevocationList? = nil
    ) {
        self.keys = keys
        self.tolerance = tolerance
        self.revocations = revocations
    }

    /// Makes a newer revocation list the one every verification checks.
    ///
    /// A list with the serial of the one held and the same contents is accepted and changes nothing.
    /// - Throws: ``LicenseRevocationError`` `.rollback` when the list is older than the one held (a lower serial, or
    ///   the same serial with other contents), `.unknownKey` when this verifier has no key for its `kid`; the list
    ///   held stays then.
    public mutating func accept(_ list: LicenseRevocationList) throws(LicenseRevocationError) {
        guard keys[list.kid] != nil else {
            throw LicenseRevocationError(.unknownKey, "the revocation list is signed with an unknown key (kid)")
        }
        try list.checkCanReplace(revocations)
        revocations = list
    }

    /// Verifies a license string.
    /// - Parameter revocations: a revocation list to check besides the configured ``revocations``.
    /// - Throws: ``LicenseError`` with the reason it is not valid.
    public func verify(
        _ license: String,
        at now: Date,
        lastConfirmed: Date? = nil,
        revocations: LicenseRevocationList? = nil
    ) throws(LicenseError) -> VerifiedLicense {
        try verify(try SignedLicense(license), at: now, lastConfirmed: lastConfirmed, revocations: revocations)
    }

    /// Verifies a parsed license.
    /// - Parameters:
    ///   - now: the device's time.
    ///   - lastConfirmed: the latest trusted time the app has seen (a server's answer), if any.
    ///   - revocations: a revocation list to check besides the configured ``revocations``.
    /// - Throws: ``LicenseError`` with the reason it is not valid (`.revoked` when a list revokes it, `.expired` past
    ///   its `expiresAt` or its `offlineUntil`).
    public func verify(
        _ license: SignedLicense,
        at now: Date,
        lastConfirmed: Date? = nil,
        revocations: LicenseRevocationList? = nil
    ) throws(LicenseError) -> VerifiedLicense {
        // The kid is read before the signature is checked only to pick the key; nothing else is trusted yet.
        let payload = try license.unverifiedPayload()
        guard let key = keys[payload.kid] else { throw .unknownKey }
        guard key.isValidSignature(license.signature, for: license.signedBytes) else { throw .invalidSignature }
        guard payload.key.plan == payload.plan else { throw .planMismatch }
        if self.revocations?.revokes(payload.key) == true || revocations?.revokes(payload.key) == true {
            throw .revoked
        }
        let reference = max(now, lastConfirmed ?? now)
        if let expiresAt = payload.expiresAt, expiresAt <= reference { throw .expired }
        // Not synced within the offline window: the server may have revoked it since.
        if let offlineUntil = payload.offlineUntil, offlineUntil <= reference { throw .expired }
        guard payload.purchasedAt <= reference.addingTimeInterval(tolerance) else { throw .notYetValid }
        let rolledBack = payload.purchasedAt > now.addingTimeInterval(tolerance)
        return VerifiedLicense(license: license, payload: payload, clockRolledBack: rolledBack)
    }

    /// Parses a public key: PEM (`-----BEGIN PUBLIC KEY-----`, an Ed25519 SubjectPublicKeyInfo), or base64 / hex of
    /// the raw 32 bytes.
    /// - Throws: ``LicenseError`` `.malformed` for anything else.
    public static func publicKey(parsing text: String) throws(LicenseError) -> Curve25519.Signing.PublicKey {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var raw: Data?
        if trimmed.hasPrefix("-----BEGIN PUBLIC KEY-----") {
            let base64 = trimmed.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            if let der = Data(base64Encoded: base64), der.count == 44, der.prefix(12) == ed25519SPKIPrefix {
                raw = der.suffix(32)
            }
        } else if let bytes = Data(base64Encoded: trimmed), bytes.count == 32 {
            raw = bytes
        } else if trimmed.count == 64, let bytes = Data(hex: trimmed) {
            raw = bytes
        }
        guard let raw, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw .malformed("not an Ed25519 public key (PEM, or base64 of the raw 32 bytes)")
        }
        return key
    }

    /// The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112,
    /// BIT STRING of 33 bytes.
    static let ed25519SPKIPrefix = Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00])
}

/// A license that verified.
public struct VerifiedLicense: Sendable, Hashable {
    /// The license.
    public let license: SignedLicense
    /// What it states.
    public let payload: LicensePayload
    /// The license was bought after the device's clock says it is now, yet before a time the app confirmed: the
    /// clock was set back.
    public let clockRolledBack: Bool
}

/// Why a license is not valid.
public enum LicenseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a license (shape, encoding, payload); the detail says which part.
    case malformed(String)
    /// Signed with a key the app does not know (another issuer, or a `kid` it was not given).
    case unknownKey
    /// The signature does not verify: forged or tampered.
    case invalidSignature
    /// The payload's plan differs from its key's.
    case planMismatch
    /// Past its `expiresAt`, or its `offlineUntil` (not synced within the offline window).
    case expired
    /// A revocation list the app accepted withdraws it (a refunded purchase).
    case revoked
    /// Bought after the reference time (beyond the tolerance).
    case notYetValid

    /// A one-line reason (never the license itself).
    public var reason: String {
        switch self {
        case .malformed(let detail): detail
        case .unknownKey: "signed with an unknown key (kid)"
        case .invalidSignature: "the signature does not verify: the license is forged or was altered"
        case .planMismatch: "the payload's plan differs from its key's"
        case .expired: "the license has expired"
        case .revoked: "the license was revoked (its purchase was refunded or withdrawn)"
        case .notYetValid: "the license is not valid yet (bought in the future)"
        }
    }

    /// The same as ``reason``.
    public var description: String { reason }

    /// A decoding error's gist, without the input.
    package static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable JSON" }
        switch error {
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "unreadable JSON" : "bad \(path)"
        @unknown default: return "unreadable JSON"
        }
    }
}

extension Data {
    /// Bytes from hexadecimal text; nil when it is not.
    init?(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = Self.nibble(high), let l = Self.nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}

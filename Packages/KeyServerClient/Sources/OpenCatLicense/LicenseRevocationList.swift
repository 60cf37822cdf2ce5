public import Crypto
public import Foundation
import OpenCatCore

/// A signed list of the licenses the key server withdrew (a refunded or charged-back key pack), verified with the same
/// Ed25519 keys as licenses, by `kid`, so an app can refuse them offline.
///
/// ## Wire format
///
/// `rev/` + base64url(payload JSON) + `.` + base64url(Ed25519 signature over the ASCII bytes `rev/<payload part>`),
/// both parts canonical base64url without padding: the shape of a ``SignedLicense`` with another prefix, so a
/// license's signature never verifies as a list's. The payload (keys sorted, extra members ignored):
///
/// ```json
/// {"issuedAt":"2026-11-22T19:00:00.000Z","kid":"2026-a","revoked":["plfEm0qoydMrji6L3lr6zQ", …],"serial":7}
/// ```
///
/// - `kid`: the issuer key that signed the list.
/// - `serial`: an unsigned 64-bit number that grows with every list the server publishes. A list is cumulative (the
///   complete set of revoked licenses, not a delta): a newer one replaces an older one, and an app refuses a list
///   whose serial is lower than one it accepted (rollback), or equal to it with other contents.
/// - `issuedAt`: RFC 3339, when the list was made.
/// - `revoked`: one ``licenseID(of:)`` per revoked license, sorted.
///
/// ## How a license is identified
///
/// By its human key, which every license payload carries and which stays the same when a license is renewed (so a
/// revocation also covers a renewal of the same key). The list never carries the key itself (a key is treated as a
/// secret): it carries the key's ID, base64url without padding of the first 16 bytes of SHA-256 over the UTF-8 bytes
/// of the key's canonical spelling (`VUUW-XXXX-XXXX-XXXX-Ln`), 22 characters (`VUUW-0000-0000-0000-L2` →
/// `plfEm0qoydMrji6L3lr6zQ`). A revoked key is never valid again; a server that wants to restore a purchase mints a
/// new key.
///
/// A key-sync answer carries the list as the string member `revocations` (KeyServerAPI's
/// `VUUserKeySync.revocations`); encoded on its own the list is that string. It is not `Decodable`: reading it needs
/// the issuer keys, see ``init(_:keys:)``.
public struct LicenseRevocationList: Sendable, Hashable, Encodable {
    /// The prefix of every revocation list.
    public static let prefix = "rev/"
    /// The largest list accepted: 1 MiB, about 40,000 revoked licenses (a server may drop the IDs of licenses that
    /// have expired anyway).
    public static let maximumLength = 1 << 20

    /// The whole signed string.
    public let rawValue: String
    /// The issuer key that signed it.
    public let kid: String
    /// The list's number (higher is newer).
    public let serial: UInt64
    /// When the list was made.
    public let issuedAt: Date
    /// The revoked licenses, by ``licenseID(of:)``.
    public let revokedIDs: Set<String>

    /// Parses a signed list and checks its signature with the key its `kid` names.
    /// - Parameter keys: the issuer public keys by `kid` (``LicenseVerifier/keys``).
    /// - Throws: ``LicenseRevocationError`` `.malformed` (shape, encoding, payload, an ID that is not 16 bytes of
    ///   base64url), `.unknownKey`, `.invalidSignature`.
    public init(_ text: String, keys: [String: Curve25519.Signing.PublicKey]) throws(LicenseRevocationError) {
        let envelope: SignedEnvelope
        do { envelope = try SignedEnvelope(text, prefix: Self.prefix, maximumLength: Self.maximumLength) } catch {
            throw LicenseRevocationError(
                .malformed,
                error == .signatureLength
                    ? "the revocation list's signature is not 64 bytes"
                    : "not a revocation list: expected rev/<payload>.<signature> in base64url, at most 1 MiB"
            )
        }
        let payload: Payload
        do { payload = try LicensePayload.decoder.decode(Payload.self, from: envelope.payload) } catch {
            throw LicenseRevocationError(
                .malformed,
                "the revocation list's payload is not valid: \(LicenseError.summary(of: error))"
            )
        }
        // The kid is read before the signature is checked only to pick the key; nothing else is trusted yet.
        guard let key = keys[payload.kid] else {
            throw LicenseRevocationError(.unknownKey, "the revocation list is signed with an unknown key (kid)")
        }
        guard key.isValidSignature(envelope.signature, for: envelope.signedBytes) else {
            throw LicenseRevocationError(
                .invalidSignature,
                "the revocation list's signature does not verify: it is forged or was altered"
            )
        }
        for id in payload.revoked where !Self.isLicenseID(id) {
            throw LicenseRevocationError(
                .malformed,
                "the revocation list holds an ID that is not 16 bytes of base64url"
            )
        }
        self.init(
            rawValue: envelope.text,
            kid: payload.kid,
            serial: payload.serial,
            issuedAt: payload.issuedAt,
            revokedIDs: Set(payload.revoked)
        )
    }

    /// A list from parts already verified (the issuer's own, or the vault's sealed copy).
    package init(rawValue: String, kid: String, serial: UInt64, issuedAt: Date, revokedIDs: Set<String>) {
        self.rawValue = rawValue
        self.kid = kid
        self.serial = serial
        self.issuedAt = issuedAt
        self.revokedIDs = revokedIDs
    }

    /// The ID a list names a license by: base64url (no padding) of the first 16 bytes of SHA-256 over the key's
    /// canonical spelling.
    public static func licenseID(of key: HumanKey) -> String { licenseID(canonical: key.description) }

    /// The ID of a key already in its canonical spelling (the vault's storage slot).
    static func licenseID(canonical: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(canonical.utf8)).prefix(16)))
    }

    /// Whether the list revokes the license of a human key.
    public func revokes(_ key: HumanKey) -> Bool { revokedIDs.contains(Self.licenseID(of: key)) }

    /// Whether the list revokes a key given in its canonical spelling.
    package func revokes(canonical: String) -> Bool { revokedIDs.contains(Self.licenseID(canonical: canonical)) }

    /// Checks that this list may replace `current`: a higher serial, or the same serial with the same contents.
    /// - Throws: ``LicenseRevocationError`` `.rollback`.
    package func checkCanReplace(_ current: LicenseRevocationList?) throws(LicenseRevocationError) {
        guard let current else { return }
        if serial < current.serial {
            throw LicenseRevocationError(
                .rollback,
                "the revocation list (serial \(serial)) is older than the one already accepted (serial \(current.serial))"
            )
        }
        if serial == current.serial, revokedIDs != current.revokedIDs {
            throw LicenseRevocationError(
                .rollback,
                "a revocation list with serial \(serial) was already accepted with other contents"
            )
        }
    }

    /// A canonical unpadded base64url spelling of 16 bytes.
    static func isLicenseID(_ text: String) -> Bool {
        text.utf8.count == 22 && Array(text.utf8).withUnsafeBufferPointer(Base64URL.decode)?.count == 16
    }

    /// Encodes the list as its signed string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Two lists are equal when their signed strings are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the signed string, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The signed payload.
    struct Payload: Codable, Sendable {
        var kid: String
        var serial: UInt64
        var issuedAt: Date
        var revoked: [String]
    }
}

/// Why a revocation list was refused. Never carries a license or key.
public struct LicenseRevocationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`malformed`, `rollback`, …).
        public let rawValue: String
        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name (its ``rawValue``).
        public var description: String { rawValue }

        /// Not a revocation list (shape, encoding, payload, an ID).
        public static let malformed = Code(rawValue: "malformed")
        /// Signed with a key the app does not know (`kid`).
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// The signature does not verify: forged or tampered.
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        /// Older than the list already accepted (a lower serial, or the same serial with other contents).
        public static let rollback = Code(rawValue: "rollback")
    }

    /// What went wrong.
    public var code: Code
    /// A one-line reason.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `LicenseRevocationError.<code>: <message>`, for logs.
    public var description: String { "LicenseRevocationError.\(code): \(message)" }
}

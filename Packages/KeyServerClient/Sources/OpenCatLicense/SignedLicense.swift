import Crypto
public import Foundation
import OpenCatCore

/// A license as the key server signs it: `key/` + base64url(payload JSON) + `.` + base64url(Ed25519 signature over
/// the ASCII bytes `key/<payload part>`), both parts without padding.
///
/// Parsing checks only the shape; ``LicenseVerifier`` checks the signature and the dates, offline.
public struct SignedLicense: Sendable, Hashable, Codable {
    /// The prefix of every license.
    public static let prefix = "key/"
    /// The largest license accepted (a payload is a few hundred bytes).
    public static let maximumLength = 8 * 1024

    /// The whole license string.
    public let rawValue: String
    /// The signed bytes: `key/<payload part>`.
    let signedBytes: [UInt8]
    /// The payload JSON, exactly as signed (read it only after ``LicenseVerifier`` accepted the license).
    public let payloadJSON: Data
    /// The 64-byte Ed25519 signature.
    let signature: Data

    /// Parses a license string.
    /// - Throws: ``LicenseError`` `.malformed` when it is not `key/<payload>.<signature>` in canonical base64url.
    public init(_ text: String) throws(LicenseError) {
        let envelope: SignedEnvelope
        do { envelope = try SignedEnvelope(text, prefix: Self.prefix, maximumLength: Self.maximumLength) } catch {
            switch error {
            case .shape: throw .malformed("not a license: expected key/<payload>.<signature>")
            case .encoding: throw .malformed("not a license: expected key/<payload>.<signature> in base64url")
            case .signatureLength: throw .malformed("the signature is not 64 bytes")
            }
        }
        rawValue = envelope.text
        signedBytes = envelope.signedBytes
        payloadJSON = envelope.payload
        signature = envelope.signature
    }

    /// The payload as the license states it, not yet verified.
    /// - Throws: ``LicenseError`` `.malformed` when the payload is not the expected JSON.
    public func unverifiedPayload() throws(LicenseError) -> LicensePayload {
        do { return try LicensePayload.decoder.decode(LicensePayload.self, from: payloadJSON) } catch {
            throw .malformed("the license payload is not valid: \(LicenseError.summary(of: error))")
        }
    }

    /// Decodes a license from its string, parsed (shape only) as ``init(_:)`` does.
    /// - Throws: `DecodingError.dataCorrupted` with the ``LicenseError`` reason when it is malformed.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try SignedLicense(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.reason))
        }
    }

    /// Encodes the license as its string, ``rawValue``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The shape every signed string of the key server shares (licenses, revocation lists): `<prefix>` +
/// base64url(payload JSON) + `.` + base64url(64-byte Ed25519 signature over the ASCII bytes `<prefix><payload part>`),
/// both parts canonical base64url without padding. The prefix is part of what is signed, so a signature made for one
/// kind of string never verifies as another.
struct SignedEnvelope: Sendable {
    /// Why a string does not have the shape.
    enum Failure: Error {
        /// Too long, another prefix, or not exactly one dot.
        case shape
        /// A part that is not canonical base64url.
        case encoding
        /// A signature that is not 64 bytes.
        case signatureLength
    }

    /// The whole string, without surrounding whitespace.
    let text: String
    /// `<prefix><payload part>`.
    let signedBytes: [UInt8]
    /// The payload bytes.
    let payload: Data
    /// The 64-byte signature.
    let signature: Data

    /// Splits a signed string (surrounding whitespace, such as a trailing newline in a file, is ignored; nothing
    /// else is).
    init(_ text: String, prefix: String, maximumLength: Int) throws(Failure) {
        var trimmed = Substring(text)
        func isSpace(_ byte: UInt8?) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while isSpace(trimmed.utf8.first) { trimmed = trimmed.dropFirst() }
        while isSpace(trimmed.utf8.last) { trimmed = trimmed.dropLast() }
        guard trimmed.utf8.count <= maximumLength, trimmed.hasPrefix(prefix) else { throw .shape }
        let utf8 = trimmed.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
            !utf8[utf8.index(after: dot)...].contains(UInt8(ascii: "."))
        else { throw .shape }
        let payloadPart = utf8[utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)..<dot]
        let signaturePart = utf8[utf8.index(after: dot)...]
        guard let payload = Array(payloadPart).withUnsafeBufferPointer(Base64URL.decode),
            let signature = Array(signaturePart).withUnsafeBufferPointer(Base64URL.decode)
        else { throw .encoding }
        guard signature.count == 64 else { throw .signatureLength }
        self.text = String(trimmed)
        signedBytes = Array(utf8[..<dot])
        self.payload = Data(payload)
        self.signature = Data(signature)
    }

    /// Signs payload bytes: the whole signed string.
    static func sign(_ payload: Data, prefix: String, with key: Curve25519.Signing.PrivateKey) throws -> String {
        let signingInput = prefix + Base64URL.encode(payload)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// What a license states.
public struct LicensePayload: Sendable, Hashable, Codable {
    /// The human key.
    public var key: HumanKey
    /// The plan (`L1`…`L9`); it matches the key's.
    public var plan: PlanLevel
    /// Who it belongs to (an email or a Steam id).
    public var owner: String
    /// When it was bought.
    public var purchasedAt: Date
    /// When it stops being valid (nil: never).
    public var expiresAt: Date?
    /// Until when a device may trust it without syncing (nil: no limit): the server renews it at every key sync,
    /// so a device that never syncs again stops trusting a license after it (and cannot miss a revocation for good).
    public var offlineUntil: Date?
    /// Which server signing key signed it.
    public var kid: String

    /// Creates a payload.
    public init(
        key: HumanKey,
        plan: PlanLevel,
        owner: String,
        purchasedAt: Date,
        expiresAt: Date? = nil,
        offlineUntil: Date? = nil,
        kid: String
    ) {
        self.key = key
        self.plan = plan
        self.owner = owner
        self.purchasedAt = purchasedAt
        self.expiresAt = expiresAt
        self.offlineUntil = offlineUntil
        self.kid = kid
    }

    /// Decodes RFC 3339 dates, with or without fractional seconds.
    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = RFC3339.date(text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date")
                )
            }
            return date
        }
        return decoder
    }()

    /// Encodes dates as RFC 3339 with milliseconds, keys sorted.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(date))
        }
        return encoder
    }()
}

/// RFC 3339 timestamps: read by OpenCatCore's strict parser (`Z` or an offset, up to nine fraction digits), written
/// in UTC with milliseconds.
enum RFC3339 {
    static func date(_ text: String) -> Date? { RFC3339Timestamp.date(from: text) }

    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

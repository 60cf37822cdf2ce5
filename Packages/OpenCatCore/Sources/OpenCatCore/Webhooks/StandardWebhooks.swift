import Crypto
public import Foundation
public import HTTPTypes

/// A Standard Webhooks signing secret (<https://www.standardwebhooks.com>): random bytes, written `whsec_` followed by
/// their base64. The same secret signs (the sender) and verifies (the receiver); it is never printed.
public struct StandardWebhookSecret: Sendable {
    /// The key bytes.
    public let key: Secret<Data>

    /// The prefix a serialized secret carries.
    public static let prefix = "whsec_"

    /// Reads a secret as the specification writes it: `whsec_` and base64 (the prefix is optional, as in the
    /// reference libraries).
    /// - Throws: ``StandardWebhookError/Code/invalidSecret`` when the rest is not base64 of 1 to 1024 bytes.
    public init(_ text: String) throws(StandardWebhookError) {
        let encoded = text.hasPrefix(Self.prefix) ? String(text.dropFirst(Self.prefix.count)) : text
        guard let bytes = Data(base64Encoded: encoded), (1...1024).contains(bytes.count) else {
            throw StandardWebhookError(.invalidSecret, "a secret is whsec_ followed by base64")
        }
        key = Secret(bytes)
    }

    /// A secret made of `bytes` random bytes (the specification asks for 24 to 64).
    public init(randomBytes bytes: Int = 32) {
        var generator = SystemRandomNumberGenerator()
        key = Secret(
            Data((0..<max(24, min(bytes, 64))).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        )
    }

    /// The secret as it is handed to a receiver once: `whsec_<base64>`.
    public var serialized: Secret<String> { Secret(Self.prefix + key.revealed.base64EncodedString()) }
}

/// Why a delivery was not accepted as signed, typed.
public struct StandardWebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong; an open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The secret is not `whsec_` and base64.
        public static let invalidSecret = Code(rawValue: "invalidSecret")
        /// `webhook-id`, `webhook-timestamp` or `webhook-signature` is missing or empty.
        public static let missingHeader = Code(rawValue: "missingHeader")
        /// `webhook-timestamp` is not whole seconds since 1970.
        public static let invalidTimestamp = Code(rawValue: "invalidTimestamp")
        /// The timestamp is further from now than the tolerance (a replay, or a clock far off).
        public static let timestampOutOfTolerance = Code(rawValue: "timestampOutOfTolerance")
        /// No `v1` signature in the header matches the payload under any of the secrets.
        public static let noMatchingSignature = Code(rawValue: "noMatchingSignature")
    }

    /// What was wrong.
    public var code: Code
    /// Why, for a person (never a secret, a signature or the payload).
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "StandardWebhookError(\(code)): \(message)" }
}

/// Signs and verifies webhook deliveries the Standard Webhooks way: the headers `webhook-id`, `webhook-timestamp`
/// (seconds since 1970) and `webhook-signature` (space-separated `v1,<base64 HMAC-SHA256>` entries) over the signed
/// content `<id>.<timestamp>.<payload>`. A receiver can verify what this signs with any Standard Webhooks library,
/// and this verifies what they sign.
///
/// ```swift
/// let secret = try StandardWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
/// let delivery = try StandardWebhooks.verify(payload: body, headers: request.headerFields, secrets: [secret])
/// // delivery.id is the same on every retry of one event: process each id once.
/// ```
public enum StandardWebhooks {
    /// `webhook-id`: the event's id, the same on every attempt.
    public static let idHeader = HTTPField.Name("webhook-id")!
    /// `webhook-timestamp`: when this attempt was signed, in seconds since 1970.
    public static let timestampHeader = HTTPField.Name("webhook-timestamp")!
    /// `webhook-signature`: `v1,<base64>` entries, space-separated (one per secret while a secret is rotated).
    public static let signatureHeader = HTTPField.Name("webhook-signature")!
    /// How far a timestamp may be from now by default: five minutes, either way (the reference libraries' value).
    public static let defaultTolerance: TimeInterval = 5 * 60

    /// A verified delivery: its id and when it was signed.
    public struct Delivery: Sendable, Hashable {
        /// The `webhook-id`.
        public var id: String
        /// The `webhook-timestamp`.
        public var timestamp: Date
    }

    /// The `v1,<base64>` signature of one delivery under one secret.
    public static func signature(id: String, timestamp: Int64, payload: Data, secret: StandardWebhookSecret) -> String {
        var content = Data("\(id).\(timestamp).".utf8)
        content.append(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: secret.key.revealed))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The three headers of a delivery, signed with every secret given (old and new while one is rotated).
    public static func headers(id: String, timestamp: Date, payload: Data, secrets: [StandardWebhookSecret])
        -> HTTPFields
    {
        let seconds = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        var fields = HTTPFields()
        fields[idHeader] = id
        fields[timestampHeader] = String(seconds)
        fields[signatureHeader] = secrets.map { signature(id: id, timestamp: seconds, payload: payload, secret: $0) }
            .joined(separator: " ")
        return fields
    }

    /// Verifies a delivery: its headers are present, its timestamp within `tolerance` of `now`, and one of its `v1`
    /// signatures is the payload's under one of `secrets` (compared in constant time; other versions are ignored).
    /// - Parameter payload: the request body, byte for byte as received (never re-encoded JSON).
    public static func verify(
        payload: Data,
        headers: HTTPFields,
        secrets: [StandardWebhookSecret],
        now: Date = Date(),
        tolerance: TimeInterval = defaultTolerance
    ) throws(StandardWebhookError) -> Delivery {
        guard let id = headers[idHeader], !id.isEmpty, let stamp = headers[timestampHeader],
            let signatures = headers[signatureHeader], !signatures.isEmpty
        else { throw StandardWebhookError(.missingHeader, "a delivery carries webhook-id, -timestamp and -signature") }
        guard stamp.count <= 12, stamp.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(stamp) else {
            throw StandardWebhookError(.invalidTimestamp, "webhook-timestamp is whole seconds since 1970")
        }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        guard abs(signedAt.timeIntervalSince(now)) <= tolerance else {
            throw StandardWebhookError(.timestampOutOfTolerance, "the delivery was signed too long ago or ahead")
        }
        let presented = signatures.split(separator: " ").compactMap { entry -> Substring? in
            let parts = entry.split(separator: ",", maxSplits: 1)
            return parts.count == 2 && parts[0] == "v1" ? parts[1] : nil
        }
        for secret in secrets {
            let expected = signature(id: id, timestamp: seconds, payload: payload, secret: secret).dropFirst(3)
            if presented.contains(where: { ConstantTime.equals($0.utf8, expected.utf8) }) {
                return Delivery(id: id, timestamp: signedAt)
            }
        }
        throw StandardWebhookError(.noMatchingSignature, "no signature matches the payload")
    }
}

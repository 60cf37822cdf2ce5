/// Why a Stripe webhook delivery was rejected by ``StripeWebhookVerifier``.
///
/// Never contains the endpoint secret, the signatures or the payload.
public struct StripeWebhookError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason. Extensible: adding one is not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// No `Stripe-Signature` header (or an empty one).
        public static let missingHeader = Code(rawValue: "missingHeader")
        /// The header has no timestamp (`t=`), or one that is not an integer.
        public static let malformedHeader = Code(rawValue: "malformedHeader")
        /// The header has no `v1` signature (only `v0` or other schemes).
        public static let noSignatures = Code(rawValue: "noSignatures")
        /// No `v1` signature matches the payload under any configured secret.
        public static let signatureMismatch = Code(rawValue: "signatureMismatch")
        /// The signature is genuine but its timestamp is outside the tolerance (a replay, or a skewed clock).
        public static let timestampOutsideTolerance = Code(rawValue: "timestampOutsideTolerance")
        /// The signature is genuine but the payload is not a Stripe event.
        public static let malformedPayload = Code(rawValue: "malformedPayload")
    }

    /// The reason.
    public var code: Code
    /// What happened, in OpenCat's words.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `StripeWebhookError(code): message`.
    public var description: String { "StripeWebhookError(\(code)): \(message)" }
}

/// Why a PayPal webhook delivery was rejected by ``PayPalWebhookVerifier``.
///
/// Problems talking to PayPal (credentials, rate limits, outages) are ``StoreAdapterError``s instead. Never
/// contains credentials, tokens, the transmission signature or the payload.
public struct PayPalWebhookError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason. Extensible: adding one is not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A `PAYPAL-*` transmission header is missing.
        public static let missingHeader = Code(rawValue: "missingHeader")
        /// `PAYPAL-TRANSMISSION-TIME` is unreadable or outside the verifier's tolerance (an old delivery replayed,
        /// or a skewed clock).
        public static let staleTransmission = Code(rawValue: "staleTransmission")
        /// The replay hook reports that this `PAYPAL-TRANSMISSION-ID` was already accepted.
        public static let replayed = Code(rawValue: "replayed")
        /// No webhook id is configured (kept for compatibility: verifiers now refuse to be built without one).
        public static let missingWebhookId = Code(rawValue: "missingWebhookId")
        /// The body is not a PayPal event.
        public static let malformedPayload = Code(rawValue: "malformedPayload")
        /// PayPal answered `verification_status: FAILURE`: the delivery is not genuine (or not for this webhook).
        public static let verificationFailed = Code(rawValue: "verificationFailed")
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

    /// `PayPalWebhookError(code): message`.
    public var description: String { "PayPalWebhookError(\(code)): \(message)" }
}

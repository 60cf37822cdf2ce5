/// An LLM key failure, typed. Never carries a key.
public struct LLMKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No key for the provider (the user's tier has no system key for it, or the user stored none).
        public static let noKeyForProvider = Code(rawValue: "noKeyForProvider")
        /// A key that is not in the provider's format.
        public static let invalidKeyFormat = Code(rawValue: "invalidKeyFormat")
        /// A ciphertext that is not `v1:<keyId>:<…>` or is truncated.
        public static let malformedCiphertext = Code(rawValue: "malformedCiphertext")
        /// Sealed under a master key that is not configured.
        public static let unknownMasterKey = Code(rawValue: "unknownMasterKey")
        /// Does not open: a wrong master key, another user's row, altered bytes.
        public static let decryptionFailed = Code(rawValue: "decryptionFailed")
        /// Sealing failed.
        public static let crypto = Code(rawValue: "crypto")
        /// The store could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// Bad configuration (master keys, secrets).
        public static let misconfigured = Code(rawValue: "misconfigured")
    }

    public var code: Code
    public var message: String
    /// The provider concerned, if any.
    public var provider: LLMProvider?

    public init(_ code: Code, _ message: String, provider: LLMProvider? = nil) {
        self.code = code
        self.message = message
        self.provider = provider
    }

    public var description: String { "LLMKeyError.\(code): \(message)" }
}

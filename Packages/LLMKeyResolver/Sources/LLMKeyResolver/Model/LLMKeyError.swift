/// An LLM key failure, typed. Never carries a key.
public struct LLMKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; an open set (`Code(rawValue:)` makes others).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`noKeyForProvider`).
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
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

    /// What went wrong.
    public var code: Code
    /// What went wrong, in words; never a key or a ciphertext.
    public var message: String
    /// The provider concerned, if any.
    public var provider: LLMProvider?

    /// An error; the message must hold no key.
    public init(_ code: Code, _ message: String, provider: LLMProvider? = nil) {
        self.code = code
        self.message = message
        self.provider = provider
    }

    /// `LLMKeyError.<code>: <message>`.
    public var description: String { "LLMKeyError.\(code): \(message)" }
}

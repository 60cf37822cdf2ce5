/// A Starknet cryptography or encoding failure. The reason never contains key material.
public struct StarknetCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; an open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text (`invalid_number`).
        public let rawValue: String
        /// A code from its text; any text is a code, so codes added later still read.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// Not a number in the expected base, or more than 256 bits.
        public static let invalidNumber = Code(rawValue: "invalid_number")
        /// A value at or above the field prime P.
        public static let notAFieldElement = Code(rawValue: "not_a_field_element")
        /// A private key that is zero, at or above the curve order, or unreadable.
        public static let invalidPrivateKey = Code(rawValue: "invalid_private_key")
        /// A public key whose x coordinate is not on the curve.
        public static let invalidPublicKey = Code(rawValue: "invalid_public_key")
        /// A message hash of 2²⁵¹ or more, which Starknet's ECDSA cannot sign.
        public static let messageNotSignable = Code(rawValue: "message_not_signable")
        /// A Cairo short string longer than 31 characters or not ASCII.
        public static let invalidShortString = Code(rawValue: "invalid_short_string")
        /// SNIP-12 typed data that does not follow the specification.
        public static let invalidTypedData = Code(rawValue: "invalid_typed_data")
        /// A transaction that cannot be hashed (bad field, unknown chain id).
        public static let invalidTransaction = Code(rawValue: "invalid_transaction")
    }

    /// The failure's kind.
    public let code: Code
    /// A human-readable reason, free of secrets.
    public let reason: String

    /// An error with a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason` (no key material: the reason never holds any).
    public var description: String { "\(code): \(reason)" }
}

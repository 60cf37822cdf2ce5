/// The error thrown by the OpenCat SDK's public API.
///
/// A struct with an extensible ``Code`` (adding a code is not a breaking change), a message written by OpenCat
/// (never containing a secret), and the underlying error that caused it, kept for diagnosis.
public struct OpenCatError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A method was called before `configureStandalone` or `configureWithServer`.
        public static let notConfigured = Code(rawValue: "notConfigured")
        /// The user dismissed the purchase.
        public static let purchaseCancelled = Code(rawValue: "purchaseCancelled")
        /// The store or the verifier rejected the purchase.
        public static let purchaseFailed = Code(rawValue: "purchaseFailed")
        /// The OpenCat server could not be reached or answered with an error.
        public static let network = Code(rawValue: "network")
        /// The store (StoreKit, Play Billing, a payment API) failed.
        public static let store = Code(rawValue: "store")
        /// The local cache failed in a way that could not be recovered.
        public static let cache = Code(rawValue: "cache")
        /// An argument or a configuration value is invalid.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// Something the SDK needs is not available (for example offerings never fetched while offline).
        public static let unavailable = Code(rawValue: "unavailable")
        /// A server answered something that cannot be read (not transient: asking again gets the same answer).
        public static let invalidResponse = Code(rawValue: "invalidResponse")
    }

    /// What went wrong.
    public var code: Code
    /// A description written by OpenCat.
    public var message: String
    /// The error that caused this one.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `notConfigured`.
    public static let notConfigured = OpenCatError(
        .notConfigured,
        "OpenCat is not configured: call configureStandalone or configureWithServer first"
    )

    /// `purchaseCancelled`.
    public static func purchaseCancelled(productId: String) -> OpenCatError {
        OpenCatError(.purchaseCancelled, "the purchase of \(productId) was cancelled")
    }

    /// `purchaseFailed`, with the underlying reason.
    public static func purchaseFailed(_ message: String, underlying: (any Error)? = nil) -> OpenCatError {
        OpenCatError(.purchaseFailed, message, underlying: underlying)
    }

    /// `network`, with the underlying reason.
    public static func network(_ message: String, underlying: (any Error)? = nil) -> OpenCatError {
        OpenCatError(.network, message, underlying: underlying)
    }

    /// `store`, with the underlying reason.
    public static func store(_ message: String, underlying: (any Error)? = nil) -> OpenCatError {
        OpenCatError(.store, message, underlying: underlying)
    }

    public var description: String {
        guard let underlying else { return "OpenCatError(\(code)): \(message)" }
        return "OpenCatError(\(code)): \(message) [underlying: \(underlying)]"
    }
}

/// A payment platform. Open for values this version does not know: an unknown raw value survives decoding and
/// encoding unchanged.
public struct Store: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The platform's identifier as it appears on the wire (`"apple"`, `"google"`, …).
    public let rawValue: String

    /// Creates a store from its wire identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The Apple App Store (StoreKit 2).
    public static let apple = Store(rawValue: "apple")
    /// Google Play Billing.
    public static let google = Store(rawValue: "google")
    /// Stripe Payments.
    public static let stripe = Store(rawValue: "stripe")
    /// PayPal Checkout.
    public static let paypal = Store(rawValue: "paypal")
    /// Steam microtransactions.
    public static let steam = Store(rawValue: "steam")

    /// The five stores this version knows.
    public static let known: [Store] = [.apple, .google, .stripe, .paypal, .steam]

    /// Whether this version knows the store.
    public var isKnown: Bool { Self.known.contains(self) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

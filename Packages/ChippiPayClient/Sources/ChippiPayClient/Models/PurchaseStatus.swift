/// A purchase or transaction status as ChippiPay sends it. Sources disagree on the words (`pending`, `PROCESSING`,
/// `completed`, `SUCCESS`, `FAILED`, …), so the value is kept as sent and compared case-insensitively; an unknown
/// one is kept and treated as still in progress, never a crash.
public struct PurchaseStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Where a status stands.
    public enum Phase: String, Sendable, Hashable {
        /// Created, processing, or a word this client does not know yet.
        case inProgress
        /// Delivered: `SUCCESS` or `COMPLETED`.
        case succeeded
        /// Over without delivery: `FAILED`, `CANCELLED`, `REFUNDED`.
        case failed
    }

    /// The status exactly as received.
    public let rawValue: String

    /// A status from its text, kept exactly as given (any text is a status).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `PENDING`: created, not yet processed (in progress).
    public static let pending = PurchaseStatus(rawValue: "PENDING")
    /// `PROCESSING`: the provider is delivering (in progress).
    public static let processing = PurchaseStatus(rawValue: "PROCESSING")
    /// `SUCCESS`: delivered (succeeded).
    public static let success = PurchaseStatus(rawValue: "SUCCESS")
    /// `COMPLETED`: delivered, as some endpoints word it (succeeded).
    public static let completed = PurchaseStatus(rawValue: "COMPLETED")
    /// `FAILED`: over without delivery.
    public static let failed = PurchaseStatus(rawValue: "FAILED")
    /// `CANCELLED`: over without delivery.
    public static let cancelled = PurchaseStatus(rawValue: "CANCELLED")
    /// `REFUNDED`: over without delivery, the payment returned.
    public static let refunded = PurchaseStatus(rawValue: "REFUNDED")

    /// The phase, case-insensitively.
    public var phase: Phase {
        switch rawValue.uppercased() {
        case "SUCCESS", "COMPLETED", "SUCCEEDED", "DELIVERED": .succeeded
        case "FAILED", "CANCELLED", "CANCELED", "REFUNDED", "REJECTED", "EXPIRED": .failed
        default: .inProgress
        }
    }

    /// Whether polling can stop.
    public var isTerminal: Bool { phase != .inProgress }

    /// The status exactly as received.
    public var description: String { rawValue }

    /// Reads a JSON string, whatever its words; only a non-string is an error.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the status as the JSON string it was received as.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

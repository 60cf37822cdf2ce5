/// An ISteamMicroTxn order or item status (Appendix A), kept as its raw text so unknown values survive.
///
/// See <https://partner.steamgames.com/doc/features/microtransactions/implementation#status_values>.
struct SteamTransactionStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    var rawValue: String

    /// Created, not authorized by the user yet.
    static let initialized = SteamTransactionStatus(rawValue: "Init")
    /// Approved by the user; `FinalizeTxn` captures the funds.
    static let approved = SteamTransactionStatus(rawValue: "Approved")
    /// Processed successfully.
    static let succeeded = SteamTransactionStatus(rawValue: "Succeeded")
    /// Failed or denied.
    static let failed = SteamTransactionStatus(rawValue: "Failed")
    /// Refunded; the product should be revoked.
    static let refunded = SteamTransactionStatus(rawValue: "Refunded")
    /// One or more items refunded (see each item's `itemstatus`).
    static let partialRefund = SteamTransactionStatus(rawValue: "PartialRefund")
    /// Fraudulent or disputed; the product should be revoked.
    static let chargedback = SteamTransactionStatus(rawValue: "Chargedback")
    /// Refunded by Valve on suspicion of fraud.
    static let refundedSuspectedFraud = SteamTransactionStatus(rawValue: "RefundedSuspectedFraud")
    /// Refunded by Valve as friendly fraud.
    static let refundedFriendlyFraud = SteamTransactionStatus(rawValue: "RefundedFriendlyFraud")

    /// The statuses after which the product should be clawed back.
    static let reversals: Set<SteamTransactionStatus> = [
        .refunded, .partialRefund, .chargedback, .refundedSuspectedFraud, .refundedFriendlyFraud,
    ]

    init(rawValue: String) { self.rawValue = rawValue }

    init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    var description: String { rawValue }
}

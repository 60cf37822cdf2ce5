import Foundation

/// The params of `ISteamMicroTxn/AdjustAgreement/v1`'s answer: the agreement and the day its next recurring payment
/// is now initiated (`YYYYMMDD`).
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#AdjustAgreement>.
struct AdjustAgreementParams: Decodable, Sendable {
    /// The 64-bit billing agreement id.
    var agreementid: SteamFlexibleID?
    /// The day the next recurring payment is initiated, `YYYYMMDD`.
    var nextprocessdate: String?
}

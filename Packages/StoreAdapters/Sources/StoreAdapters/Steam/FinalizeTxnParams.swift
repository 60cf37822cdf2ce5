/// The `params` of `ISteamMicroTxn/FinalizeTxn/v2`.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#FinalizeTxn>.
struct FinalizeTxnParams: Decodable, Sendable {
    /// The partner's 64-bit order id.
    var orderid: SteamFlexibleID?
    /// Steam's 64-bit transaction id.
    var transid: SteamFlexibleID?
}

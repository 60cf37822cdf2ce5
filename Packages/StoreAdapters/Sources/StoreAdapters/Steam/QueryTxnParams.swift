/// The `params` of `ISteamMicroTxn/QueryTxn/v3`.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#QueryTxn>.
struct QueryTxnParams: Decodable, Sendable {
    /// The partner's 64-bit order id.
    var orderid: SteamFlexibleID?
    /// Steam's 64-bit transaction id.
    var transid: SteamFlexibleID?
    /// The buyer's 64-bit Steam id.
    var steamid: SteamFlexibleID?
    /// The order's status (Appendix A).
    var status: SteamTransactionStatus?
    /// ISO 4217 currency of the amounts.
    var currency: String?
    /// When the transaction happened (RFC 3339 UTC, `2010-01-01T00:00:00Z`).
    var time: String?
    /// ISO 3166-1 alpha-2 country.
    var country: String?
    /// US state, or the state, province or territory in some countries.
    var usstate: String?
    /// The order's items.
    var items: [QueryTxnItem]?
}

/// One order of an `ISteamMicroTxn/GetReport/v5` answer: like a `QueryTxn` order, with its creation time, its
/// latest update time and, for recurring billing, its agreement.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#GetReport>.
struct GetReportOrder: Decodable, Sendable {
    /// The partner's 64-bit order id (`0` for a recurring subscription started from the Steam store: use
    /// `transid`).
    var orderid: SteamFlexibleID?
    /// Steam's 64-bit transaction id.
    var transid: SteamFlexibleID?
    /// The buyer's 64-bit Steam id.
    var steamid: SteamFlexibleID?
    /// The order's status (Appendix A): `Succeeded`, `Refunded`, `PartialRefund`, `Chargedback`, ….
    var status: SteamTransactionStatus?
    /// ISO 4217 currency of the amounts.
    var currency: String?
    /// The most recent update of the transaction (RFC 3339 UTC): the report's paging key.
    var time: String?
    /// When the transaction was created (RFC 3339 UTC).
    var timecreated: String?
    /// ISO 3166-1 alpha-2 country.
    var country: String?
    /// US state, or the state, province or territory in some countries.
    var usstate: String?
    /// The billing agreement, for a recurring subscription's payment.
    var agreementid: SteamFlexibleID?
    /// The order's items, each with its own `itemstatus` (which items a `PartialRefund` reversed).
    var items: [QueryTxnItem]?
}

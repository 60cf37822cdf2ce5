/// One item of a `QueryTxn` or `GetReport` order.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#QueryTxn> and
/// <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#GetReport>.
struct QueryTxnItem: Decodable, Sendable {
    /// The game's id for the item (the partner's product id).
    var itemid: SteamFlexibleID?
    /// Quantity.
    var qty: FlexibleInt64?
    /// Total cost to the user minus VAT, in cents (199 = 1.99).
    var amount: FlexibleInt64?
    /// Total VAT or tax, in cents.
    var vat: FlexibleInt64?
    /// The item's own status (Appendix A); tells which items a `PartialRefund` refunded.
    var itemstatus: SteamTransactionStatus?
}

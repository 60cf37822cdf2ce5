/// The `params` of `ISteamMicroTxn/GetReport/v5`: `{"count": 4, "orders": [GetReportOrder, …]}`.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn#GetReport>.
struct GetReportParams: Decodable, Sendable {
    /// How many orders the batch lists.
    var count: FlexibleInt64?
    /// The orders updated at or after the requested `time`, oldest update first.
    var orders: [GetReportOrder]?
}

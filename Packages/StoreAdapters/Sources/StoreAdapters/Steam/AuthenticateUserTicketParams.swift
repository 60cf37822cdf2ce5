/// The `params` of `ISteamUserAuth/AuthenticateUserTicket/v1`:
/// `{"result": "OK", "steamid": "…", "ownersteamid": "…", "vacbanned": false, "publisherbanned": false}`.
///
/// Unlike ISteamMicroTxn, the `result` sits inside `params`; a refused ticket has no `params`, only
/// `response.error` (`{"errorcode": 101, "errordesc": "Invalid ticket"}`).
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamUserAuth#AuthenticateUserTicket>.
struct AuthenticateUserTicketParams: Decodable, Sendable {
    /// `OK` when the ticket is valid.
    var result: String?
    /// The 64-bit Steam id of the user who created the ticket (the player).
    var steamid: SteamFlexibleID?
    /// The 64-bit Steam id of the account that owns the app's license: differs from `steamid` when the game is
    /// borrowed through Steam Family Sharing.
    var ownersteamid: SteamFlexibleID?
    /// Whether the user has a VAC ban on record for this app.
    var vacbanned: Bool?
    /// Whether the publisher has banned the user from this app (a ban set through the Web API, not VAC).
    var publisherbanned: Bool?
}

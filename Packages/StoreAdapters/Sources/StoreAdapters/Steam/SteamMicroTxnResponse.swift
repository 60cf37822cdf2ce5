/// The envelope of every ISteamMicroTxn answer:
/// `{"response": {"result": "OK" | "Failure", "params": {…}, "error": {"errorcode": N, "errordesc": "…"}}}`,
/// and of `ISteamUserAuth/AuthenticateUserTicket` (whose `result` is inside `params`).
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn> and
/// <https://partner.steamgames.com/doc/webapi_overview/responses>.
struct SteamMicroTxnResponse<Params: Decodable & Sendable>: Decodable, Sendable {
    /// The `response` object.
    struct Body: Decodable, Sendable {
        /// `OK` or `Failure`.
        var result: String?
        /// The method's output.
        var params: Params?
        /// Present only when `result` is `Failure`.
        var error: SteamMicroTxnError?
    }

    /// The `response` object.
    var response: Body
}

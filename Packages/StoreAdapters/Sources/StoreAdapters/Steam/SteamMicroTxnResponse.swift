/// The envelope of every ISteamMicroTxn answer:
/// `{"response": {"result": "OK" | "Failure", "params": {…}, "error": {"errorcode": N, "errordesc": "…"}}}`.
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn>.
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

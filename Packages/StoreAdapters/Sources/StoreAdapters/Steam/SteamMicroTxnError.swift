/// The `error` object of a failed ISteamMicroTxn call: `{"errorcode": 3, "errordesc": "Invalid parameter"}`.
///
/// See <https://partner.steamgames.com/doc/features/microtransactions/implementation#error_codes> (Appendix B).
struct SteamMicroTxnError: Decodable, Sendable {
    /// The error or event code (Appendix B), as a number or a string.
    var errorcode: FlexibleInt64?
    /// Steam's message (kept out of OpenCat's messages: it may quote request values).
    var errordesc: String?
}

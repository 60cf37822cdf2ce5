/// A Steam 64-bit id (`orderid`, `transid`, `steamid`, `itemid`), which the Web API writes as a JSON string
/// ("64 bit numbers are returned as a string") but older versions and some fields write as numbers. Decodes
/// both and keeps the decimal text; encodes the string form.
///
/// See <https://partner.steamgames.com/doc/webapi_overview/responses>.
struct SteamFlexibleID: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The id as decimal text.
    var text: String

    init(_ text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt64.self) {
            text = String(number)
        } else if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    var description: String { text }
}

/// Who a Steam session ticket belongs to, as `ISteamUserAuth/AuthenticateUserTicket` vouches for it: the answer of
/// ``SteamAdapter/authenticateUserTicket(_:identity:)``.
///
/// ``steamId`` is the player: the account that created the ticket, the one ISteamMicroTxn reports as an order's
/// `steamid`, and the id to bind purchases and entitlements to. ``ownerSteamId`` is the account that owns the
/// app's license; the two differ when the game is borrowed through Steam Family Sharing (the borrower plays, the
/// lender owns). Bans are reported, not refused: the caller decides what a VAC or publisher ban means for it.
public struct SteamAuthenticatedUser: Sendable, Hashable, Codable {
    /// The player's SteamID64 (decimal): Steam's `steamid`.
    public var steamId: String
    /// The SteamID64 of the license owner (Steam's `ownersteamid`), when Steam reports one.
    public var ownerSteamId: String?
    /// Whether the player has a VAC ban on record for this app (`vacbanned`).
    public var vacBanned: Bool
    /// Whether the publisher has banned the player from this app (`publisherbanned`).
    public var publisherBanned: Bool

    /// Creates a result.
    public init(steamId: String, ownerSteamId: String? = nil, vacBanned: Bool = false, publisherBanned: Bool = false) {
        self.steamId = steamId
        self.ownerSteamId = ownerSteamId
        self.vacBanned = vacBanned
        self.publisherBanned = publisherBanned
    }

    /// Whether the player plays on someone else's license (Family Sharing): the owner differs from the player.
    public var isBorrowed: Bool { ownerSteamId.map { $0 != steamId } ?? false }
}

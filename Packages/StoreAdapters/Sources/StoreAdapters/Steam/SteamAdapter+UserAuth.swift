import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

extension SteamAdapter {
    /// The longest ticket accepted, in hex characters (a `GetAuthTicketForWebApi` ticket is a few hundred bytes).
    static let maximumTicketLength = 8_192
    /// The longest identity accepted, in characters.
    static let maximumIdentityLength = 256

    /// Proves who a player is: checks a session ticket with `ISteamUserAuth/AuthenticateUserTicket/v1` and returns
    /// the Steam account it vouches for.
    ///
    /// The game calls `ISteamUser::GetAuthTicketForWebApi(identity)` and sends the ticket, hex-encoded, to its
    /// server; the server calls this with the adapter's app id and publisher key (sent only as the
    /// `x-webapi-key` header, on the configured base URL; `ISteamUserAuth` has no sandbox interface, so
    /// ``Configuration/sandbox`` does not change the path).
    ///
    /// The returned ``SteamAuthenticatedUser/steamId`` is Steam's `steamid`: the player who created the ticket,
    /// the same account ISteamMicroTxn reports as an order's `steamid`. Bind purchases to it (for example as
    /// `PurchaseProof/expectedPurchaser`). ``SteamAuthenticatedUser/ownerSteamId`` (`ownersteamid`) is the license
    /// owner, which differs under Family Sharing; it is reported, never returned as the player. VAC and publisher
    /// bans are reported, not refused.
    ///
    /// - Parameters:
    ///   - ticket: the ticket as a hexadecimal string (never logged, never in an error).
    ///   - identity: the identity string the game passed to `GetAuthTicketForWebApi`; when given, Steam accepts
    ///     only tickets created with it (recommended: it stops a ticket minted for another service being replayed
    ///     here).
    /// - Returns: the authenticated player.
    /// - Throws: ``StoreAdapterError``: `invalidProof` for a ticket that is not hex or that Steam refuses (expired,
    ///   cancelled, already used, wrong identity: Steam's `errorcode` in ``StoreAdapterError/storeReason``),
    ///   `wrongApplication` for a ticket issued for another app (Steam error 102), `unauthorized` for a refused
    ///   publisher key, `malformedResponse` for an answer without a valid `steamid`, and the shared transport
    ///   codes. Cancellation is rethrown as `CancellationError`.
    public func authenticateUserTicket(
        _ ticket: Secret<String>,
        identity: String? = nil
    ) async throws -> SteamAuthenticatedUser {
        let hex = ticket.revealed
        guard !hex.isEmpty, hex.utf8.count <= Self.maximumTicketLength, hex.utf8.count.isMultiple(of: 2),
            hex.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
            })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "the Steam ticket is not a hexadecimal string of at most \(Self.maximumTicketLength) characters"
            )
        }
        var query = "appid=\(configuration.appId)&ticket=\(hex)"
        if let identity {
            guard !identity.isEmpty, identity.count <= Self.maximumIdentityLength else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .steam,
                    "the ticket identity must be 1 to \(Self.maximumIdentityLength) characters"
                )
            }
            query += "&identity=\(GoogleAccessTokenProvider.formEncoded(identity))"
        }
        let request = makeRequest(
            .get,
            method: "AuthenticateUserTicket/v1/",
            query: query,
            interface: "ISteamUserAuth"
        )
        let (body, _) = try await call(
            request,
            body: nil,
            method: .authenticateUserTicket,
            as: AuthenticateUserTicketParams.self
        )
        let user = try Self.authenticatedUser(body)
        logger.debug(
            "steam ticket authenticated",
            metadata: [
                "borrowed": "\(user.isBorrowed)", "vacBanned": "\(user.vacBanned)",
                "publisherBanned": "\(user.publisherBanned)",
            ]
        )
        return user
    }

    /// The player an `AuthenticateUserTicket` answer vouches for, or the error it stands for.
    static func authenticatedUser(
        _ body: SteamMicroTxnResponse<AuthenticateUserTicketParams>.Body
    ) throws(StoreAdapterError) -> SteamAuthenticatedUser {
        if let error = body.error {
            guard let code = error.errorcode?.value else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .steam,
                    "Steam did not accept the authentication ticket"
                )
            }
            let mapped = SteamErrorCode.map(code, method: .authenticateUserTicket)
            throw StoreAdapterError(mapped.code, store: .steam, mapped.message, storeReason: "errorcode \(code)")
        }
        guard let params = body.params else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "AuthenticateUserTicket answered without params")
        }
        guard params.result?.caseInsensitiveCompare("OK") == .orderedSame else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "Steam did not accept the authentication ticket",
                storeReason: params.result.map { String($0.prefix(64)) }
            )
        }
        guard let steamId = params.steamid?.text, isUInt64(steamId), steamId != "0" else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .steam,
                "AuthenticateUserTicket answered OK without a valid steamid"
            )
        }
        var owner = params.ownersteamid?.text
        if let text = owner, !isUInt64(text) || text == "0" { owner = nil }
        return SteamAuthenticatedUser(
            steamId: steamId,
            ownerSteamId: owner,
            vacBanned: params.vacbanned ?? false,
            publisherBanned: params.publisherbanned ?? false
        )
    }
}

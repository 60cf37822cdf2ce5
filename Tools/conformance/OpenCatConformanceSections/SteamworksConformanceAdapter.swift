import Foundation
import MockStores
public import OpenCatConformance
public import OpenCatCore
public import StoreAdapters

/// Runs the Steam Web API section (`Fixtures/steamworks/`): the two Steam calls that are not purchase verifications,
/// through ``SteamAdapter`` configured as the stores' matrix configures it (`config`: `appId`, `publisherKey`,
/// `sandbox`). Each result is reported as a ``VerifiedPurchase``:
/// - `refundReport` (`GetReport/v5`; `input.token` the RFC 3339 time to read from, `context.maxResults` and
///   `context.type`): `storeStatus` `<orderid>=<status>:<amount taken back>` per reversed order, joined by commas,
///   then `;next=<cursor>`; `quantity` the reversed orders;
/// - `authenticateUserTicket` (`AuthenticateUserTicket/v1`; `input.token` the hex ticket, `context.identity`):
///   `purchaser` the player's steamid, `storeStatus` `owner=<ownersteamid> borrowed=<bool> vacBanned=<bool>
///   publisherBanned=<bool>`.
public struct SteamworksConformanceAdapter: StoreAdapter {
    /// `steam`.
    public var store: Store { .steam }
    let steam: SteamAdapter
    let clock: any WallClock

    /// The Steam adapter the matrix's factory builds from the cassette's `config`.
    public init(environment: ConformanceEnvironment) throws {
        guard let steam = try ConformanceAdapterFactory.steam.make(environment) as? SteamAdapter else {
            throw ConformanceError("config: the Steam factory built no SteamAdapter")
        }
        self.steam = steam
        clock = environment.httpClient.clock
    }

    /// Makes the call `proof.kind` names and reports its result (see the type's documentation).
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = proof.token.revealed
        switch proof.kind.rawValue {
        case "refundReport":
            guard let since = try? Date(token, strategy: .iso8601) else {
                throw ConformanceError("input.token: '\(token)' is not an RFC 3339 time")
            }
            let type = proof.context["type"].map(SteamAdapter.ReportType.init(rawValue:)) ?? .gameSales
            let maxResults = try proof.context["maxResults"].map {
                guard let value = Int($0) else { throw ConformanceError("input.context.maxResults: '\($0)'") }
                return value
            }
            let report = try await steam.refundReport(since: since, maxResults: maxResults ?? 1000, type: type)
            let orders = report.orders.map { "\($0.orderId)=\($0.status):\($0.refundedAmount?.description ?? "?")" }
            let status = orders.joined(separator: ",") + ";next=" + report.cursor.formatted(.iso8601)
            return result(proof, status: status, quantity: report.orders.count, purchaser: nil)
        case "authenticateUserTicket":
            let user = try await steam.authenticateUserTicket(proof.token, identity: proof.context["identity"])
            let status =
                "owner=\(user.ownerSteamId ?? "?") borrowed=\(user.isBorrowed) vacBanned=\(user.vacBanned) "
                + "publisherBanned=\(user.publisherBanned)"
            return result(proof, status: status, quantity: 1, purchaser: user.steamId)
        default:
            throw StoreAdapterError(.invalidProof, store: .steam, "unknown Steam Web API call \(proof.kind)")
        }
    }

    /// The ticket is a secret: the call's name stands in as the transaction id.
    private func result(_ proof: PurchaseProof, status: String, quantity: Int, purchaser: String?) -> VerifiedPurchase {
        .sectionAnswer(
            proof,
            transactionId: proof.kind.rawValue,
            status: status,
            quantity: quantity,
            purchaser: purchaser,
            at: clock.currentDate
        )
    }
}

extension ConformanceAdapterFactory {
    /// Steam's GetReport and AuthenticateUserTicket (`config` as the matrix's Steam cassettes): the `steamworks`
    /// section.
    public static let steamworks = ConformanceAdapterFactory(store: .steam) { environment in
        try SteamworksConformanceAdapter(environment: environment)
    }
}

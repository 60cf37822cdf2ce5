import Foundation
import Logging
import OpenCatCore

/// Where purchases are checked and where truth lives: a verifier on the device, or the OpenCat server. One of the
/// two and nothing else, so no state can name server mode without a server.
enum Backend: Sendable {
    /// Standalone: proofs are verified on the device; state lives in the local cache.
    case verifier(any PurchaseVerifier, entitlements: EntitlementMap, offerings: OfferingsLayout)
    /// Server mode: proofs are posted to the OpenCat server, the source of truth.
    case server(ServerConnector)

    /// The backend for a configured mode.
    static func make(_ mode: OpenCat.Mode, http: @autoclosure () -> HTTPClient, logger: Logger) -> Backend {
        switch mode {
        case .standalone(let verifier, let entitlements, let offerings):
            return .verifier(verifier, entitlements: entitlements, offerings: offerings)
        case .server(let url, let apiKey):
            return .server(ServerConnector(baseURL: url, apiKey: apiKey, http: http(), logger: logger))
        }
    }

    /// `standalone` or `server`, for logs.
    var name: String {
        switch self {
        case .verifier: "standalone"
        case .server: "server"
        }
    }

    /// The product → entitlement map of standalone mode (server mode takes the server's).
    var entitlementMap: EntitlementMap? {
        if case .verifier(_, let map, _) = self { return map }
        return nil
    }
}

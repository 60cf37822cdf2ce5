public import Foundation
public import OpenCatCore

extension SteamAdapter {
    /// What a ``SteamAdapter`` needs: the app id, the publisher Web API key, the interface (live or sandbox), the
    /// base URL and the HTTP client.
    public struct Configuration: Sendable {
        /// The Steamworks partner Web API's base URL.
        public static let defaultBaseURL = URL(string: "https://partner.steam-api.com")!

        /// The game's Steam App ID; every query and finalization names it.
        public var appId: UInt32
        /// The publisher Web API key with the Microtransactions permission. Sent only as the `x-webapi-key`
        /// header, never in a URL, a log line or an error.
        public var publisherKey: Secret<String>
        /// Whether to use `ISteamMicroTxnSandbox` (test transactions) instead of `ISteamMicroTxn`.
        public var sandbox: Bool
        /// The Web API base URL (override it to talk to a MockStores server on loopback).
        public var baseURL: URL
        /// Whether to call `FinalizeTxn` for an order the user approved, so that the verification completes the
        /// payment. When off, an approved order verifies as `pending`.
        public var finalizeApproved: Bool
        /// Sends requests (timeouts, retries, clock).
        public var httpClient: HTTPClient

        /// Creates a configuration.
        /// - Parameters:
        ///   - appId: the game's App ID.
        ///   - publisherKey: the publisher Web API key.
        ///   - sandbox: use `ISteamMicroTxnSandbox` (default `false`).
        ///   - baseURL: the Web API base URL (default ``defaultBaseURL``).
        ///   - finalizeApproved: finalize approved orders (default `true`).
        ///   - httpClient: the HTTP client.
        public init(
            appId: UInt32,
            publisherKey: Secret<String>,
            sandbox: Bool = false,
            baseURL: URL = Configuration.defaultBaseURL,
            finalizeApproved: Bool = true,
            httpClient: HTTPClient = HTTPClient()
        ) {
            self.appId = appId
            self.publisherKey = publisherKey
            self.sandbox = sandbox
            self.baseURL = baseURL
            self.finalizeApproved = finalizeApproved
            self.httpClient = httpClient
        }

        /// `ISteamMicroTxnSandbox` or `ISteamMicroTxn`.
        public var interface: String { sandbox ? "ISteamMicroTxnSandbox" : "ISteamMicroTxn" }
    }
}

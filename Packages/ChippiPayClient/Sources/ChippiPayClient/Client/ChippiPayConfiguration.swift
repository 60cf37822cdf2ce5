public import Foundation
public import Logging
public import OpenCatCore

/// Where and how the client reaches ChippiPay.
public struct ChippiPayConfiguration: Sendable {
    /// The API base, `https://api.chipipay.com/v1` by default (a MockStores URL in tests).
    public var baseURL: URL
    /// The public API key, `pk_…`, sent as `x-api-key`.
    public var apiKey: Secret<String>
    /// The bearer: the secret key `sk_…` on a server, or the user's JWT on a device.
    public var bearerToken: Secret<String>
    /// The `__chipi_api_version` sent on every call.
    public var apiVersion: String
    /// Where request summaries go (never keys, tokens or bodies).
    public var logger: Logger

    /// ChippiPay's production API.
    public static let productionURL = URL(string: "https://api.chipipay.com/v1")!

    /// A configuration.
    public init(
        baseURL: URL = ChippiPayConfiguration.productionURL,
        apiKey: Secret<String>,
        bearerToken: Secret<String>,
        apiVersion: String = "2025-12-30",
        logger: Logger = Logger(label: "dev.opencat.chippipay", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.bearerToken = bearerToken
        self.apiVersion = apiVersion
        self.logger = logger
    }
}

public import Foundation
public import OpenCatCore

extension GooglePlayAdapter {
    /// What a ``GooglePlayAdapter`` needs: the app's package name, service-account credentials (through a
    /// ``GoogleAccessTokenProvider``), the API base URL and the HTTP client.
    public struct Configuration: Sendable {
        /// The Google Play Developer API's production base URL.
        public static let defaultBaseURL = URL(string: "https://androidpublisher.googleapis.com")!

        /// The app's package name (`com.example.app`); every purchase is looked up under it.
        public var packageName: String
        /// Supplies (and caches) the OAuth access token.
        public var tokenProvider: GoogleAccessTokenProvider
        /// The API base URL (override it to talk to a MockStores server on loopback).
        public var baseURL: URL
        /// Sends API requests (timeouts, retries, clock).
        public var httpClient: HTTPClient
        /// Whether to acknowledge paid, unacknowledged purchases (Google refunds them after three days otherwise).
        public var acknowledge: Bool
        /// Whether a verification also asks the Voided Purchases API (Play reports refunds, chargebacks and
        /// revocations there, not on the purchase): a voided token is `refunded`. Off by default (one more call,
        /// under its own quota); a sync job can use ``GooglePlayAdapter/allVoidedPurchases(since:endTime:pageLimit:)``.
        public var consultVoidedPurchases: Bool = false
        /// The most pages of voided purchases one verification reads.
        public var voidedPurchasesPageLimit: Int = 10

        /// Creates a configuration around an existing token provider (share one provider between adapters that
        /// use the same service account).
        /// - Parameters:
        ///   - packageName: the app's package name.
        ///   - tokenProvider: the access-token provider.
        ///   - baseURL: the API base URL (default ``defaultBaseURL``).
        ///   - httpClient: the HTTP client for API calls.
        ///   - acknowledge: whether to acknowledge purchases that need it (default `true`).
        public init(
            packageName: String,
            tokenProvider: GoogleAccessTokenProvider,
            baseURL: URL = Configuration.defaultBaseURL,
            httpClient: HTTPClient = HTTPClient(),
            acknowledge: Bool = true
        ) {
            self.packageName = packageName
            self.tokenProvider = tokenProvider
            self.baseURL = baseURL
            self.httpClient = httpClient
            self.acknowledge = acknowledge
        }

        /// Creates a configuration from a service account; the token provider uses the same HTTP client.
        /// - Parameters:
        ///   - packageName: the app's package name.
        ///   - serviceAccount: the service account with access to the app in the Play Console.
        ///   - baseURL: the API base URL (default ``defaultBaseURL``).
        ///   - tokenURL: overrides the key file's `token_uri`.
        ///   - httpClient: the HTTP client for token and API calls.
        ///   - acknowledge: whether to acknowledge purchases that need it (default `true`).
        /// - Throws: ``StoreAdapterError`` `unauthorized` when the private key cannot be read; `misconfigured` when the
        ///   token URL is not https (http only to a loopback host).
        public init(
            packageName: String,
            serviceAccount: GoogleServiceAccount,
            baseURL: URL = Configuration.defaultBaseURL,
            tokenURL: URL? = nil,
            httpClient: HTTPClient = HTTPClient(),
            acknowledge: Bool = true
        ) throws {
            self.init(
                packageName: packageName,
                tokenProvider: try GoogleAccessTokenProvider(
                    serviceAccount: serviceAccount,
                    tokenURL: tokenURL,
                    httpClient: httpClient
                ),
                baseURL: baseURL,
                httpClient: httpClient,
                acknowledge: acknowledge
            )
        }
    }
}

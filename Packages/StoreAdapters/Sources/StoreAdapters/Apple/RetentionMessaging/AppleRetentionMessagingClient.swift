public import Foundation
import HTTPTypes
public import OpenCatCore

/// Apple's Retention Messaging API: the images and messages the App Store may show a customer who is about to
/// cancel a subscription, the default message of each product and locale, the URL of your Get Retention Message
/// endpoint, and its performance test (<https://developer.apple.com/documentation/retentionmessaging>).
///
/// It calls the App Store Server API's host with the same signed bearer token as ``AppleStoreAdapter`` (the
/// configuration's ``AppleStoreAdapter/APICredentials`` and bundle id), and maps Apple's errors the same way: Apple's
/// numeric code is the error's `storeReason` (4040014 image not found → `notFound`, 4090000 image already exists →
/// `alreadyDone`, 4030017 message not approved → `invalidProof`, …). Uploads and deletions name what they act on by
/// the caller's UUID, so repeating one is harmless and a failed attempt is retried; starting a performance test is
/// not repeated.
public struct AppleRetentionMessagingClient: Sendable {
    /// Where and as whom to call.
    public struct Configuration: Sendable {
        /// The app's bundle id (the token's `bid`).
        public var bundleId: String
        /// The App Store Connect API key that signs each request.
        public var apiCredentials: AppleStoreAdapter.APICredentials
        /// The App Store Server API host: production by default (the sandbox's for the performance test's
        /// sandbox purchases is ``AppleStoreAdapter/Configuration/defaultSandboxBaseURL``).
        public var baseURL: URL
        /// Sends the requests (timeouts, retries, clock).
        public var httpClient: HTTPClient

        /// A configuration.
        public init(
            bundleId: String,
            apiCredentials: AppleStoreAdapter.APICredentials,
            baseURL: URL = AppleStoreAdapter.Configuration.defaultProductionBaseURL,
            httpClient: HTTPClient = HTTPClient()
        ) {
            self.bundleId = bundleId
            self.apiCredentials = apiCredentials
            self.baseURL = baseURL
            self.httpClient = httpClient
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let api: AppStoreServerAPI

    /// A client.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.api = AppStoreServerAPI(
            http: StoreHTTP(client: configuration.httpClient, store: .apple),
            credentials: configuration.apiCredentials,
            bundleId: configuration.bundleId
        )
    }

    // MARK: - Images

    /// Uploads a PNG image under the caller's identifier (Upload Image, `PUT /inApps/v1/messaging/image/{id}`,
    /// `Content-Type: image/png`, `imageSize` when given).
    public func uploadImage(_ png: Data, identifier: UUID, size: AppStore.ImageSize? = nil) async throws {
        try await expectNoBody(
            api.upload(
                .put,
                Self.path("image", identifier),
                query: size.map { [("imageSize", $0.rawValue)] } ?? [],
                data: png,
                contentType: "image/png",
                baseURL: configuration.baseURL
            )
        )
    }

    /// Deletes an uploaded image (Delete Image, `DELETE /inApps/v1/messaging/image/{id}`).
    public func deleteImage(identifier: UUID) async throws {
        try await expectNoBody(api.call(.delete, Self.path("image", identifier), baseURL: configuration.baseURL))
    }

    /// Every uploaded image and its state (Get Image List, `GET /inApps/v1/messaging/image/list`).
    public func images() async throws -> AppStore.GetImageListResponse {
        try await read(AppStore.GetImageListResponse.self, "/inApps/v1/messaging/image/list")
    }

    // MARK: - Messages

    /// Uploads a message under the caller's identifier (Upload Message, `PUT /inApps/v1/messaging/message/{id}`).
    public func uploadMessage(_ message: AppStore.UploadMessageRequestBody, identifier: UUID) async throws {
        try message.validate()
        try await expectNoBody(
            api.call(
                .put,
                Self.path("message", identifier),
                body: message,
                idempotent: true,
                baseURL: configuration.baseURL
            )
        )
    }

    /// Deletes an uploaded message (Delete Message, `DELETE /inApps/v1/messaging/message/{id}`).
    public func deleteMessage(identifier: UUID) async throws {
        try await expectNoBody(api.call(.delete, Self.path("message", identifier), baseURL: configuration.baseURL))
    }

    /// Every uploaded message and its state (Get Message List, `GET /inApps/v1/messaging/message/list`).
    public func messages() async throws -> AppStore.GetMessageListResponse {
        try await read(AppStore.GetMessageListResponse.self, "/inApps/v1/messaging/message/list")
    }

    // MARK: - Default messages

    /// Makes an approved message the default for a product and locale (Configure Default Message,
    /// `PUT /inApps/v1/messaging/default/{productId}/{locale}`).
    public func configureDefaultMessage(productId: String, locale: String, messageIdentifier: UUID) async throws {
        let body = AppStore.DefaultConfigurationRequest(messageIdentifier: messageIdentifier)
        try await expectNoBody(
            api.call(
                .put,
                try Self.defaultPath(productId, locale),
                body: body,
                idempotent: true,
                baseURL: configuration.baseURL
            )
        )
    }

    /// Removes a product and locale's default message (Delete Default Message).
    public func deleteDefaultMessage(productId: String, locale: String) async throws {
        try await expectNoBody(
            api.call(.delete, try Self.defaultPath(productId, locale), baseURL: configuration.baseURL)
        )
    }

    /// A product and locale's default message (Get Default Message).
    public func defaultMessage(productId: String, locale: String) async throws -> AppStore.DefaultConfigurationResponse
    {
        try await read(AppStore.DefaultConfigurationResponse.self, try Self.defaultPath(productId, locale))
    }

    // MARK: - Real-time URL

    /// Sets the URL of your Get Retention Message endpoint (Configure Realtime URL,
    /// `PUT /inApps/v1/messaging/realtime/url`): an `https` URL of at most 256 characters.
    public func configureRealtimeURL(_ url: String) async throws {
        let body = try AppStore.RealtimeUrlRequest(realtimeURL: url)
        try await expectNoBody(
            api.call(
                .put,
                "/inApps/v1/messaging/realtime/url",
                body: body,
                idempotent: true,
                baseURL: configuration.baseURL
            )
        )
    }

    /// Removes the Get Retention Message endpoint's URL (Delete Realtime URL).
    public func deleteRealtimeURL() async throws {
        try await expectNoBody(api.call(.delete, "/inApps/v1/messaging/realtime/url", baseURL: configuration.baseURL))
    }

    /// The Get Retention Message endpoint's URL (Get Realtime URL).
    public func realtimeURL() async throws -> AppStore.RealtimeUrlResponse {
        try await read(AppStore.RealtimeUrlResponse.self, "/inApps/v1/messaging/realtime/url")
    }

    // MARK: - Performance test

    /// Starts a performance test of your Get Retention Message endpoint with a sandbox purchase (Initiate
    /// Performance Test, `POST /inApps/v1/messaging/performanceTest`). Not repeated on failure: a second run while
    /// one is going is refused (4000213).
    public func initiatePerformanceTest(originalTransactionId: String) async throws -> AppStore.PerformanceTestResponse
    {
        let id = try AppleStoreAdapter.checkedTransactionId(originalTransactionId)
        let response = try await api.call(
            .post,
            "/inApps/v1/messaging/performanceTest",
            body: AppStore.PerformanceTestRequest(originalTransactionId: id),
            idempotent: false,
            baseURL: configuration.baseURL
        )
        guard response.status.code == 200 else { throw api.error(for: response) }
        return try api.http.decode(AppStore.PerformanceTestResponse.self, from: response.body)
    }

    /// A performance test's results (Get Performance Test Results,
    /// `GET /inApps/v1/messaging/performanceTest/result/{requestId}`).
    public func performanceTestResult(requestId: String) async throws -> AppStore.PerformanceTestResultResponse {
        guard UUID(uuidString: requestId) != nil else {
            throw StoreAdapterError(.invalidProof, store: .apple, "a performance test request id is a UUID")
        }
        return try await read(
            AppStore.PerformanceTestResultResponse.self,
            "/inApps/v1/messaging/performanceTest/result/" + requestId
        )
    }

    // MARK: - Plumbing

    private func read<Body: Decodable>(_ type: Body.Type, _ path: String) async throws -> Body {
        let response = try await api.call(.get, path, baseURL: configuration.baseURL)
        guard response.status.code == 200 else { throw api.error(for: response) }
        return try api.http.decode(Body.self, from: response.body)
    }

    private func expectNoBody(_ response: HTTPTransportResponse) throws {
        guard (200..<300).contains(response.status.code) else { throw api.error(for: response) }
    }

    /// `/inApps/v1/messaging/{kind}/{identifier}`, the UUID written as Apple's library writes it (`uuidString`).
    static func path(_ kind: String, _ identifier: UUID) -> String {
        "/inApps/v1/messaging/\(kind)/" + identifier.uuidString
    }

    /// `/inApps/v1/messaging/default/{productId}/{locale}`, each segment percent-encoded.
    static func defaultPath(_ productId: String, _ locale: String) throws -> String {
        guard !productId.isEmpty, !locale.isEmpty,
            let product = productId.addingPercentEncoding(withAllowedCharacters: .urlPathSegmentAllowed),
            let language = locale.addingPercentEncoding(withAllowedCharacters: .urlPathSegmentAllowed)
        else {
            throw StoreAdapterError(.invalidProof, store: .apple, "a default message names a product and a locale")
        }
        return "/inApps/v1/messaging/default/\(product)/\(language)"
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: what a path segment keeps unescaped here.
    fileprivate static let urlPathSegmentAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
}

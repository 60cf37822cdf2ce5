import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat store retention apple <call>`: Apple's Retention Messaging API.
struct StoreRetention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Manage the App Store's retention messages (Retention Messaging API).",
        subcommands: [StoreRetentionApple.self]
    )
}

/// One call of ``AppleRetentionMessagingClient`` per run, printed as Apple's answer in JSON (`{"accepted": true}` for
/// an upload, a configuration or a deletion).
struct StoreRetentionApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Call Apple's Retention Messaging API: images, messages, default messages, the realtime URL, tests.",
        discussion: """
            CALL is one of: images, upload-image (--id UUID --png FILE [--image-size full-size|bullet-point]), \
            delete-image (--id), messages, upload-message (--id UUID --message FILE: Apple's UploadMessageRequestBody \
            as JSON), delete-message (--id), default-message, configure-default-message (--id MESSAGE), \
            delete-default-message (each with --product-id and --locale), realtime-url, configure-realtime-url \
            (--url https://…), delete-realtime-url, performance-test (--id ORIGINAL_TRANSACTION_ID; Apple runs it on \
            the sandbox host: --base-url https://api.storekit-sandbox.itunes.apple.com), performance-test-result \
            (--id REQUEST_ID). Apple's limits (header 66, body 144, alt text 150 characters) are checked before \
            anything is sent.
            """
    )

    /// The calls, by the name the command takes.
    enum Call: String, CaseIterable, ExpressibleByArgument {
        case images, uploadImage = "upload-image", deleteImage = "delete-image"
        case messages, uploadMessage = "upload-message", deleteMessage = "delete-message"
        case defaultMessage = "default-message", configureDefaultMessage = "configure-default-message"
        case deleteDefaultMessage = "delete-default-message"
        case realtimeURL = "realtime-url", configureRealtimeURL = "configure-realtime-url"
        case deleteRealtimeURL = "delete-realtime-url"
        case performanceTest = "performance-test", performanceTestResult = "performance-test-result"
    }

    /// What a call that answers nothing prints.
    struct Accepted: Encodable { var accepted = true }

    @Argument(help: "The call (see below).")
    var call: Call

    @OptionGroup var key: AppStoreConnectKeyOptions

    @Option(name: .customLong("base-url"), help: "API base URL (default: the App Store Server API's production host).")
    var baseURL: String?

    @Option(name: .customLong("id"), help: "The image or message UUID, transaction id or request id the call names.")
    var id: String?

    @Option(name: .customLong("png"), help: "The PNG file to upload.")
    var png: String?

    @Option(name: .customLong("image-size"), help: "full-size or bullet-point.")
    var imageSize: String?

    @Option(name: .customLong("message"), help: "A JSON file holding Apple's UploadMessageRequestBody.")
    var message: String?

    @Option(name: .customLong("product-id"), help: "The product of a default message.")
    var productId: String?

    @Option(name: .customLong("locale"), help: "The locale of a default message (en-US).")
    var locale: String?

    @Option(name: .customLong("url"), help: "The https URL of your Get Retention Message endpoint.")
    var url: String?

    func run() async throws {
        let client = try makeClient()
        switch call {
        case .images: try await VerifyOutput.run { try await client.images() }
        case .messages: try await VerifyOutput.run { try await client.messages() }
        case .realtimeURL: try await VerifyOutput.run { try await client.realtimeURL() }
        case .defaultMessage:
            let (product, locale) = try productAndLocale()
            try await VerifyOutput.run { try await client.defaultMessage(productId: product, locale: locale) }
        case .performanceTest:
            let transaction = try required(id, "--id ORIGINAL_TRANSACTION_ID")
            try await VerifyOutput.run { try await client.initiatePerformanceTest(originalTransactionId: transaction) }
        case .performanceTestResult:
            let request = try required(id, "--id REQUEST_ID")
            try await VerifyOutput.run { try await client.performanceTestResult(requestId: request) }
        default:
            try await VerifyOutput.run { () async throws -> Accepted in
                try await write(client)
                return Accepted()
            }
        }
    }

    /// The calls that answer nothing.
    private func write(_ client: AppleRetentionMessagingClient) async throws {
        switch call {
        case .uploadImage:
            let data = try file(png, "--png FILE")
            let size = try imageSize.map { name -> AppStore.ImageSize in
                guard let size = ["full-size": AppStore.ImageSize.fullSize, "bullet-point": .bulletPoint][name] else {
                    throw ValidationError("--image-size: full-size or bullet-point")
                }
                return size
            }
            try await client.uploadImage(data, identifier: try uuid(), size: size)
        case .deleteImage: try await client.deleteImage(identifier: try uuid())
        case .uploadMessage:
            let body: AppStore.UploadMessageRequestBody
            do {
                body = try JSONDecoder().decode(
                    AppStore.UploadMessageRequestBody.self,
                    from: try file(message, "--message FILE")
                )
            } catch let error as ValidationError { throw error } catch {
                throw ValidationError("--message: not Apple's UploadMessageRequestBody (\(error))")
            }
            try await client.uploadMessage(body, identifier: try uuid())
        case .deleteMessage: try await client.deleteMessage(identifier: try uuid())
        case .configureDefaultMessage:
            let (product, locale) = try productAndLocale()
            try await client.configureDefaultMessage(productId: product, locale: locale, messageIdentifier: try uuid())
        case .deleteDefaultMessage:
            let (product, locale) = try productAndLocale()
            try await client.deleteDefaultMessage(productId: product, locale: locale)
        case .configureRealtimeURL: try await client.configureRealtimeURL(try required(url, "--url https://…"))
        case .deleteRealtimeURL: try await client.deleteRealtimeURL()
        default: break
        }
    }

    private func makeClient() throws -> AppleRetentionMessagingClient {
        let base = try baseURL.map { text in
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw ValidationError("--base-url: an http(s) URL")
            }
            return url
        }
        let credentials: AppleStoreAdapter.APICredentials
        do {
            credentials = try .init(
                issuerId: key.issuerId,
                keyId: key.keyId,
                privateKeyPEM: try VerifyOutput.readSecret(key.keyFile, what: "App Store Connect key")
            )
        } catch let error as StoreAdapterError { throw ValidationError("--key-file: \(error.message)") }
        return AppleRetentionMessagingClient(
            configuration: .init(
                bundleId: key.bundleId,
                apiCredentials: credentials,
                baseURL: base ?? AppleStoreAdapter.Configuration.defaultProductionBaseURL,
                httpClient: try VerifyOutput.httpClient()
            )
        )
    }

    private func uuid() throws -> UUID {
        guard let text = id, let uuid = UUID(uuidString: text) else { throw ValidationError("give --id UUID") }
        return uuid
    }

    private func productAndLocale() throws -> (String, String) {
        (try required(productId, "--product-id"), try required(locale, "--locale"))
    }

    private func required(_ value: String?, _ flag: String) throws -> String {
        guard let value, !value.isEmpty else { throw ValidationError("\(call.rawValue) needs \(flag)") }
        return value
    }

    private func file(_ path: String?, _ flag: String) throws -> Data {
        let path = try required(path, flag)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path)")
        }
        return data
    }
}

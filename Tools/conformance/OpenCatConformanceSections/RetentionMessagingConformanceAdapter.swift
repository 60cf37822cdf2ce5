import Foundation
import MockStores
public import OpenCatConformance
public import OpenCatCore
public import StoreAdapters

/// Runs the Apple Retention Messaging section (`Fixtures/retention/`) through the same runner: each cassette names
/// one call of ``AppleRetentionMessagingClient`` in `input.kind` (the client's method name) and its result is
/// reported as a ``VerifiedPurchase``:
/// - a write (upload, configure, delete): `storeStatus` `accepted`, `transactionId` the input token;
/// - a list: `storeStatus` `<identifier>=<state>[/<size>]` per item, joined by commas, `quantity` the count;
/// - the default message or the realtime URL: `storeStatus` the message identifier or the URL, `quantity` 1;
/// - a performance test started: `storeStatus` its request id, `quantity` the requests it will send;
/// - its results: `storeStatus` `<result> successRate=<n> p50=<ms> p90=<ms> p99=<ms>`, `quantity` the requests
///   still pending.
///
/// `input.token` is the image or message identifier, the product id (default messages), the original transaction id
/// (a performance test) or its request id (results); `input.context` holds `imageSize` and `pngBase64` (an image),
/// `header`, `body`, `imageIdentifier`, `altText`, `headerPosition` (a message), `productId` and `locale` (default
/// messages), `url` (the realtime URL). `config`: `bundleId`, `issuerId`, `keyId`, `privateKey` (PEM) and `basePath`
/// (`/production`, or `/sandbox` for the performance test, which Apple runs on the sandbox host only).
public struct RetentionMessagingConformanceAdapter: StoreAdapter {
    /// `apple`: the cassettes are the App Store Server API's.
    public var store: Store { .apple }
    let client: AppleRetentionMessagingClient
    let environment: VerifiedPurchase.Environment
    let clock: any WallClock

    /// A client of the mock server at `config.basePath`, signing with the cassette's key.
    public init(environment: ConformanceEnvironment) throws {
        let basePath = environment.optionalString("basePath") ?? "/production"
        client = AppleRetentionMessagingClient(
            configuration: .init(
                bundleId: try environment.string("bundleId"),
                apiCredentials: try .init(
                    issuerId: try environment.string("issuerId"),
                    keyId: try environment.string("keyId"),
                    privateKeyPEM: Secret(try environment.string("privateKey"))
                ),
                baseURL: environment.url(path: basePath),
                httpClient: environment.httpClient
            )
        )
        self.environment = basePath == "/sandbox" ? .sandbox : .production
        clock = environment.httpClient.clock
    }

    /// Makes the call `proof.kind` names and reports its result (see the type's documentation).
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = proof.token.revealed
        let context = proof.context
        switch proof.kind.rawValue {
        case "uploadImage":
            guard let png = context["pngBase64"].flatMap({ Data(base64Encoded: $0) }) else {
                throw invalid("context.pngBase64: the image's bytes in base64")
            }
            let size = try context["imageSize"].map { try Self.value(AppStore.ImageSize.self, $0, "imageSize") }
            try await client.uploadImage(png, identifier: try Self.uuid(token), size: size)
        case "deleteImage": try await client.deleteImage(identifier: try Self.uuid(token))
        case "images":
            let items = try await client.images().imageIdentifiers ?? []
            let listed = items.map { item in
                "\(item.imageIdentifier?.uuidString ?? "?")=\(item.rawImageState ?? "?")/\(item.rawImageSize ?? "?")"
            }
            return result(proof, listed.joined(separator: ","), items.count)
        case "uploadMessage":
            try await client.uploadMessage(try Self.message(context), identifier: try Self.uuid(token))
        case "deleteMessage": try await client.deleteMessage(identifier: try Self.uuid(token))
        case "messages":
            let items = try await client.messages().messageIdentifiers ?? []
            let listed = items.map { "\($0.messageIdentifier?.uuidString ?? "?")=\($0.rawMessageState ?? "?")" }
            return result(proof, listed.joined(separator: ","), items.count)
        default: return try await verifyConfiguration(proof)
        }
        return result(proof, "accepted", 1)
    }

    /// Default messages, the realtime URL and the performance test.
    private func verifyConfiguration(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let token = proof.token.revealed
        let context = proof.context
        switch proof.kind.rawValue {
        case "configureDefaultMessage":
            try await client.configureDefaultMessage(
                productId: try Self.required(context, "productId"),
                locale: try Self.required(context, "locale"),
                messageIdentifier: try Self.uuid(token)
            )
        case "deleteDefaultMessage":
            try await client.deleteDefaultMessage(productId: token, locale: try Self.required(context, "locale"))
        case "defaultMessage":
            let answer = try await client.defaultMessage(productId: token, locale: try Self.required(context, "locale"))
            return result(proof, answer.messageIdentifier?.uuidString ?? "none", 1)
        case "configureRealtimeURL": try await client.configureRealtimeURL(try Self.required(context, "url"))
        case "deleteRealtimeURL": try await client.deleteRealtimeURL()
        case "realtimeURL": return result(proof, try await client.realtimeURL().realtimeURL ?? "none", 1)
        case "initiatePerformanceTest":
            let answer = try await client.initiatePerformanceTest(originalTransactionId: token)
            return result(proof, answer.requestId ?? "none", Int(answer.config?.totalRequests ?? 0))
        case "performanceTestResult":
            let answer = try await client.performanceTestResult(requestId: token)
            let times = answer.responseTimes
            let status =
                "\(answer.rawResult ?? "?") successRate=\(answer.successRate.map(String.init) ?? "?") "
                + "p50=\(times?.p50.map(String.init) ?? "?") p90=\(times?.p90.map(String.init) ?? "?") "
                + "p99=\(times?.p99.map(String.init) ?? "?")"
            return result(proof, status, Int(answer.numPending ?? 0))
        default:
            throw invalid("unknown Retention Messaging call \(proof.kind)")
        }
        return result(proof, "accepted", 1)
    }

    /// A message from the cassette's context.
    static func message(_ context: [String: String]) throws -> AppStore.UploadMessageRequestBody {
        let image = try context["imageIdentifier"].map {
            AppStore.UploadMessageImage(imageIdentifier: try uuid($0), altText: context["altText"] ?? "")
        }
        return AppStore.UploadMessageRequestBody(
            header: try required(context, "header"),
            body: try required(context, "body"),
            image: image,
            headerPosition: try context["headerPosition"].map {
                try value(AppStore.HeaderPosition.self, $0, "headerPosition")
            }
        )
    }

    static func uuid(_ text: String) throws -> UUID {
        guard let uuid = UUID(uuidString: text) else { throw ConformanceError("input.token: '\(text)' is not a UUID") }
        return uuid
    }

    static func required(_ context: [String: String], _ key: String) throws -> String {
        guard let value = context[key], !value.isEmpty else { throw ConformanceError("input.context.\(key): missing") }
        return value
    }

    static func value<Value: RawRepresentable>(_ type: Value.Type, _ text: String, _ key: String) throws -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: text) else { throw ConformanceError("input.context.\(key): '\(text)'") }
        return value
    }

    private func invalid(_ message: String) -> StoreAdapterError {
        StoreAdapterError(.invalidProof, store: .apple, message)
    }

    private func result(_ proof: PurchaseProof, _ status: String, _ quantity: Int) -> VerifiedPurchase {
        .sectionAnswer(proof, status: status, quantity: quantity, environment: environment, at: clock.currentDate)
    }
}

extension ConformanceAdapterFactory {
    /// Apple's Retention Messaging API (`config`: `bundleId`, `issuerId`, `keyId`, `privateKey`, `basePath`): the
    /// `retention` section.
    public static let retentionMessaging = ConformanceAdapterFactory(store: .apple) { environment in
        try RetentionMessagingConformanceAdapter(environment: environment)
    }
}

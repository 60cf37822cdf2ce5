import Crypto
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

/// The Retention Messaging client sends what Apple's own server library sends (method, path, query, body, content
/// type, a signed bearer token), refuses what Apple's limits refuse before sending, and maps Apple's errors.
struct AppleRetentionMessagingTests {
    static let image = UUID(uuidString: "A1B2C3D4-E5F6-7890-A1B2-C3D4E5F67890")!
    let transport = ScriptedTransport()

    private func client(maxAttempts: Int = 3) -> AppleRetentionMessagingClient {
        AppleRetentionMessagingClient(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                apiCredentials: .init(
                    issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                    keyId: "2X9R4HXF34",
                    privateKey: Secret(P256.Signing.PrivateKey())
                ),
                baseURL: URL(string: "https://prod.apple.test/prod")!,
                httpClient: .scripted(transport, maxAttempts: maxAttempts)
            )
        )
    }

    private func sent() throws -> ScriptedTransport.Recorded { try #require(transport.requests.last) }

    @Test func anImageIsUploadedAsPNGUnderItsIdentifierWithItsSize() async throws {
        transport.on(.put, "/prod/inApps/v1/messaging/image/", json: "")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        try await client().uploadImage(png, identifier: Self.image, size: .fullSize)
        let request = try sent()
        #expect(
            request.path == "/prod/inApps/v1/messaging/image/A1B2C3D4-E5F6-7890-A1B2-C3D4E5F67890?imageSize=FULL_SIZE"
        )
        #expect(request.request.headerFields[.contentType] == "image/png" && request.body == png)
        #expect(request.request.headerFields[.authorization]?.hasPrefix("Bearer ey") == true)
    }

    @Test func aMessageIsUploadedAsJSONAndApplesLimitsAreCheckedFirst() async throws {
        transport.on(.put, "/prod/inApps/v1/messaging/message/", json: "")
        let message = AppStore.UploadMessageRequestBody(
            header: "Before you go",
            body: "Keep your streak: a month at half price.",
            image: .init(imageIdentifier: Self.image, altText: "A flame"),
            headerPosition: .aboveImage
        )
        try await client().uploadMessage(message, identifier: Self.image)
        let body = try JSONSerialization.jsonObject(with: try #require(try sent().body)) as? [String: Any]
        #expect(body?["header"] as? String == "Before you go" && body?["headerPosition"] as? String == "ABOVE_IMAGE")
        #expect((body?["image"] as? [String: Any])?["imageIdentifier"] as? String == Self.image.uuidString)
        let tooLong = AppStore.UploadMessageRequestBody(header: String(repeating: "a", count: 67), body: "b")
        let error = try await #require(throws: StoreAdapterError.self) {
            try await client().uploadMessage(tooLong, identifier: Self.image)
        }
        #expect(error.code == .invalidProof && error.storeReason == "headerTooLong")
        #expect(transport.requests.count == 1)
    }

    @Test func listsDecodeWithTheirStates() async throws {
        transport.on(
            .get,
            "/prod/inApps/v1/messaging/image/list",
            json:
                #"{"imageIdentifiers":[{"imageIdentifier":"\#(Self.image.uuidString)","imageState":"APPROVED","imageSize":"FULL_SIZE"}]}"#
        )
        transport.on(
            .get,
            "/prod/inApps/v1/messaging/message/list",
            json:
                #"{"messageIdentifiers":[{"messageIdentifier":"\#(Self.image.uuidString)","messageState":"SOMETHING_NEW"}]}"#
        )
        let images = try await client().images().imageIdentifiers ?? []
        #expect(images.first?.imageState == .approved && images.first?.imageSize == .fullSize)
        let messages = try await client().messages().messageIdentifiers ?? []
        #expect(messages.first?.messageState == nil && messages.first?.rawMessageState == "SOMETHING_NEW")
    }

    @Test func defaultMessagesAndTheRealtimeURL() async throws {
        transport.on(.put, "/prod/inApps/v1/messaging/default/dev.opencat.pro.monthly/en-US", exact: true, json: "")
        transport.on(
            .get,
            "/prod/inApps/v1/messaging/default/dev.opencat.pro.monthly/fr-FR",
            status: 404,
            json: #"{"errorCode":4040020,"errorMessage":"Default message not found."}"#
        )
        transport.on(.put, "/prod/inApps/v1/messaging/realtime/url", json: "")
        try await client().configureDefaultMessage(
            productId: "dev.opencat.pro.monthly",
            locale: "en-US",
            messageIdentifier: Self.image
        )
        #expect(try sent().bodyText == #"{"messageIdentifier":"\#(Self.image.uuidString)"}"#)
        let missing = try await #require(throws: StoreAdapterError.self) {
            try await client().defaultMessage(productId: "dev.opencat.pro.monthly", locale: "fr-FR")
        }
        #expect(missing.code == .notFound && missing.storeReason == "4040020")
        try await client().configureRealtimeURL("https://opencat.example/retention")
        #expect(try sent().bodyText == #"{"realtimeURL":"https:\/\/opencat.example\/retention"}"#)
        let plain = try await #require(throws: StoreAdapterError.self) {
            try await client().configureRealtimeURL("http://opencat.example/retention")
        }
        #expect(plain.storeReason == "realtimeURLNotHTTPS" && transport.requests.count == 3)
    }

    @Test func aPerformanceTestIsStartedOnceAndItsResultsRead() async throws {
        transport.on(
            .post,
            "/prod/inApps/v1/messaging/performanceTest",
            exact: true,
            times: 1,
            status: 500,
            json: #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#
        )
        transport.on(
            .post,
            "/prod/inApps/v1/messaging/performanceTest",
            exact: true,
            json:
                #"{"config":{"maxConcurrentRequests":10,"totalRequests":100,"totalDuration":60000,"responseTimeThreshold":500,"successRateThreshold":95},"requestId":"c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"}"#
        )
        let failed = try await #require(throws: StoreAdapterError.self) {
            try await client().initiatePerformanceTest(originalTransactionId: "2000000000000001")
        }
        #expect(failed.code == .storeUnavailable && transport.requests.count == 1)
        let started = try await client().initiatePerformanceTest(originalTransactionId: "2000000000000001")
        #expect(try sent().bodyText == #"{"originalTransactionId":"2000000000000001"}"#)
        #expect(started.requestId == "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d" && started.config?.totalRequests == 100)
        transport.on(
            .get,
            "/prod/inApps/v1/messaging/performanceTest/result/c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d",
            json:
                #"{"config":{"totalRequests":100},"target":"https://opencat.example/retention","result":"PASS","successRate":98,"numPending":0,"responseTimes":{"average":120,"p50":100,"p90":200,"p95":250,"p99":400},"failures":{"TIMED_OUT":1,"NO_RESPONSE":1}}"#
        )
        let result = try await client().performanceTestResult(requestId: "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")
        #expect(result.result == .pass && result.responseTimes?.p99 == 400 && result.failures?["TIMED_OUT"] == 1)
    }

    @Test func anImageUploadedTwiceIsAlreadyDone() async throws {
        transport.on(
            .put,
            "/prod/inApps/v1/messaging/image/",
            status: 409,
            json: #"{"errorCode":4090000,"errorMessage":"An image with this identifier already exists."}"#
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await client().uploadImage(Data([1]), identifier: Self.image)
        }
        #expect(error.code == .alreadyDone && error.storeReason == "4090000")
    }
}

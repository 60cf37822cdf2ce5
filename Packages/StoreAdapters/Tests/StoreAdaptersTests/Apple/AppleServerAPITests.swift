import Crypto
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

struct AppleServerAPITests {
    static let chain = try! TestAppleChain()
    static let productionPath = "/prod/inApps/v1/transactions/2000000123456789"
    static let sandboxPath = "/sandbox/inApps/v1/transactions/2000000123456789"

    let apiKey = P256.Signing.PrivateKey()
    let transport = ScriptedTransport()
    let clock = ManualClock(
        start: AppleTestValues.signedDate.addingTimeInterval(60),
        autoAdvance: true,
        holdsDuringExternalWork: true
    )

    private func adapter(environment: VerifiedPurchase.Environment? = nil, credentials: Bool = true)
        -> AppleStoreAdapter
    {
        AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                environment: environment,
                apiCredentials: credentials
                    ? .init(
                        issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                        keyId: "2X9R4HXF34",
                        privateKey: Secret(apiKey)
                    )
                    : nil,
                productionBaseURL: URL(string: "https://prod.apple.test/prod")!,
                sandboxBaseURL: URL(string: "https://sandbox.apple.test/sandbox/")!,
                httpClient: .scripted(transport, clock: clock)
            )
        )
    }

    /// The JSON object in a base64url JWT segment.
    static func jsonObject(_ segment: some StringProtocol) throws -> [String: Any] {
        let data = try #require(TestAppleChain.base64URLDecode(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func transactionProof(_ id: String = "2000000123456789", productId: String? = nil) -> PurchaseProof {
        PurchaseProof(store: .apple, kind: .appleTransactionId, token: Secret(id), productId: productId)
    }

    private func signedTransactionBody(environment: String = "Production", bundleId: String = AppleTestValues.bundleId)
        throws -> String
    {
        let jws = try Self.chain.sign(AppleTestValues.transaction(bundleId: bundleId, environment: environment))
        return #"{"signedTransactionInfo":"\#(jws)"}"#
    }

    @Test func aLookUpSendsAnES256TokenWithApplesClaims() async throws {
        transport.on(.get, Self.productionPath, json: try signedTransactionBody())
        let purchase = try await adapter().verify(transactionProof())
        #expect(purchase.transactionId == "2000000123456789")
        #expect(purchase.environment == .production)

        let request = try #require(transport.requests.first).request
        #expect(request.method == .get)
        #expect(request.scheme == "https")
        #expect(request.authority == "prod.apple.test")
        #expect(request.path == Self.productionPath)
        let authorization = try #require(request.headerFields[.authorization])
        #expect(authorization.hasPrefix("Bearer "))
        let token = String(authorization.dropFirst("Bearer ".count))
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)

        let signature = try P256.Signing.ECDSASignature(
            rawRepresentation: try #require(TestAppleChain.base64URLDecode(parts[2]))
        )
        #expect(apiKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))

        let header = try Self.jsonObject(parts[0])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(header["typ"] as? String == "JWT")
        let claims = try Self.jsonObject(parts[1])
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == AppleTestValues.bundleId)
        let issuedAt = try #require((claims["iat"] as? NSNumber)?.int64Value)
        let expiresAt = try #require((claims["exp"] as? NSNumber)?.int64Value)
        #expect(issuedAt == Int64(clock.currentDate.timeIntervalSince1970))
        #expect(expiresAt - issuedAt == 300)
        #expect(expiresAt - issuedAt <= 3_600)
    }

    @Test func aTokenLifetimeBeyondAnHourIsCapped() async throws {
        transport.on(.get, Self.productionPath, json: try signedTransactionBody())
        let adapter = AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                apiCredentials: .init(
                    issuerId: "i",
                    keyId: "k",
                    privateKey: Secret(apiKey),
                    tokenLifetime: .seconds(7_200)
                ),
                productionBaseURL: URL(string: "https://prod.apple.test/prod")!,
                httpClient: .scripted(transport, clock: clock)
            )
        )
        _ = try await adapter.verify(transactionProof())
        let token = try #require(transport.requests.first?.request.headerFields[.authorization]).split(separator: ".")
        let claims = try Self.jsonObject(token[1])
        #expect(
            ((claims["exp"] as? NSNumber)?.int64Value ?? 0) - ((claims["iat"] as? NSNumber)?.int64Value ?? 0) == 3_600
        )
    }

    @Test func aPEMKeyFileMakesCredentials() async throws {
        let credentials = try AppleStoreAdapter.APICredentials(
            issuerId: "i",
            keyId: "k",
            privateKeyPEM: Secret(apiKey.pemRepresentation)
        )
        #expect(credentials.privateKey.revealed.publicKey.rawRepresentation == apiKey.publicKey.rawRepresentation)
        let error = await appleStoreError {
            try AppleStoreAdapter.APICredentials(issuerId: "i", keyId: "k", privateKeyPEM: "not a key")
        }
        #expect(error?.code == .unauthorized)
        #expect(!String(describing: credentials).contains(apiKey.pemRepresentation))
    }

    @Test func aTransactionUnknownInProductionIsLookedUpInTheSandbox() async throws {
        transport.on(
            .get,
            Self.productionPath,
            status: 404,
            json: #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#
        )
        transport.on(.get, Self.sandboxPath, json: try signedTransactionBody(environment: "Sandbox"))

        let purchase = try await adapter().verify(transactionProof())

        #expect(purchase.environment == .sandbox)
        #expect(transport.requests.map(\.request.authority) == ["prod.apple.test", "sandbox.apple.test"])
        #expect(transport.requests.map(\.path) == [Self.productionPath, Self.sandboxPath])
    }

    @Test func aTransactionUnknownEverywhereIsNotFound() async throws {
        let notFound = #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#
        transport.on(.get, Self.productionPath, status: 404, json: notFound)
        transport.on(.get, Self.sandboxPath, status: 404, json: notFound)
        let error = await appleStoreError { try await adapter().verify(transactionProof()) }
        #expect(error?.code == .notFound)
        #expect(error?.storeReason == "4040010")
        #expect(error?.httpStatus == 404)
        #expect(transport.requests.count == 2)
    }

    @Test func aProductionOnlyAdapterDoesNotFallBackToTheSandbox() async throws {
        transport.on(
            .get,
            Self.productionPath,
            status: 404,
            json: #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#
        )
        let error = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(error?.code == .notFound)
        #expect(transport.requests.count == 1)
    }

    @Test func aSandboxOnlyAdapterAsksOnlyTheSandbox() async throws {
        transport.on(.get, Self.sandboxPath, json: try signedTransactionBody(environment: "Sandbox"))
        let purchase = try await adapter(environment: .sandbox).verify(transactionProof())
        #expect(purchase.environment == .sandbox)
        #expect(transport.requests.map(\.path) == [Self.sandboxPath])
    }

    @Test(
        arguments: [
            (
                400, #"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#,
                StoreAdapterError.Code.invalidProof, "4000006"
            ),
            (429, #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#, .rateLimited, "4290000"),
            (500, #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#, .storeUnavailable, "5000000"),
            (
                503, #"{"errorCode":5000001,"errorMessage":"An unknown error occurred. Please try again."}"#,
                .storeUnavailable, "5000001"
            ),
            (401, "", .unauthorized, nil),
            (403, "", .unauthorized, nil),
            (404, "", .notFound, nil),
            (400, #"{"errorCode":9990000,"errorMessage":"Testing error."}"#, .invalidProof, "9990000"),
            (502, "<html>bad gateway</html>", .storeUnavailable, nil),
        ] as [(Int, String, StoreAdapterError.Code, String?)]
    )
    func appleErrorAnswersMapToTheSharedCodes(status: Int, body: String, code: StoreAdapterError.Code, reason: String?)
        async throws
    {
        transport.on(
            .get,
            Self.productionPath,
            status: status,
            headers: status == 429 ? ["Retry-After": "7"] : [:],
            json: body
        )
        let error = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(error?.code == code)
        #expect(error?.storeReason == reason)
        #expect(error?.httpStatus == status)
        if code == .rateLimited { #expect(error?.retryAfter == .seconds(7)) }
        let description = error.map { String(describing: $0) } ?? ""
        #expect(!description.contains("2000000123456789"))
    }

    @Test func retryableAnswersAreRetriedBeforeGivingUp() async throws {
        transport.on(
            .get,
            Self.productionPath,
            status: 500,
            json: #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#
        )
        _ = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(transport.requests.count == 3)
    }

    @Test func aHangingStoreTimesOut() async throws {
        transport.on(.get, Self.productionPath, reply: .hang)
        let error = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(error?.code == .timeout)
    }

    @Test func anUnreachableStoreIsANetworkError() async throws {
        transport.on(.get, Self.productionPath, reply: .transportError(.connectionFailed))
        let error = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(error?.code == .network)
    }

    @Test(arguments: ["not json", #"{"somethingElse":1}"#, #"{"signedTransactionInfo":""}"#])
    func anUnreadableAnswerIsMalformed(_ body: String) async throws {
        transport.on(.get, Self.productionPath, json: body)
        let error = await appleStoreError { try await adapter(environment: .production).verify(transactionProof()) }
        #expect(error?.code == .malformedResponse)
    }

    @Test func aLookedUpTransactionIsStillVerifiedAndChecked() async throws {
        transport.on(.get, Self.productionPath, json: try signedTransactionBody(bundleId: "com.example.other"))
        let wrongApp = await appleStoreError { try await adapter().verify(transactionProof()) }
        #expect(wrongApp?.code == .wrongApplication)

        let impostor = try TestAppleChain()
        let forged = try impostor.sign(AppleTestValues.transaction(), x5c: try Self.chain.x5c())
        let other = ScriptedTransport()
        other.on(.get, Self.productionPath, json: #"{"signedTransactionInfo":"\#(forged)"}"#)
        let otherAdapter = AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                apiCredentials: .init(issuerId: "i", keyId: "k", privateKey: Secret(apiKey)),
                productionBaseURL: URL(string: "https://prod.apple.test/prod")!,
                httpClient: .scripted(other, clock: clock)
            )
        )
        let forgedError = await appleStoreError { try await otherAdapter.verify(transactionProof()) }
        #expect(forgedError?.code == .invalidProof)
        #expect(forgedError?.storeReason == "invalidSignature")
    }

    @Test func aLookedUpTransactionForAnotherProductIsProductMismatch() async throws {
        transport.on(.get, Self.productionPath, json: try signedTransactionBody())
        let error = await appleStoreError {
            try await adapter().verify(transactionProof(productId: "dev.opencat.lifetime"))
        }
        #expect(error?.code == .productMismatch)
    }

    @Test(arguments: ["", "12a4", "../../v1/notifications", "1 2", String(repeating: "9", count: 65)])
    func aTransactionIdThatIsNotDigitsIsRejectedWithoutARequest(_ id: String) async throws {
        let error = await appleStoreError { try await adapter().verify(transactionProof(id)) }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "invalidTransactionId")
        #expect(transport.requests.isEmpty)
    }

    @Test func aLookUpWithoutCredentialsIsUnauthorized() async throws {
        let error = await appleStoreError { try await adapter(credentials: false).verify(transactionProof()) }
        #expect(error?.code == .unauthorized)
        #expect(error?.storeReason == "notConfigured")
        #expect(transport.requests.isEmpty)
    }

    @Test func noSecretAppearsInErrorsOrLogs() async throws {
        let handler = AppleRecordingLogHandler()
        let notFound = #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#
        transport.on(.get, Self.productionPath, status: 404, json: notFound)
        transport.on(.get, Self.sandboxPath, status: 404, json: notFound)
        let adapter = AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                apiCredentials: .init(issuerId: "issuer", keyId: "key", privateKey: Secret(apiKey)),
                productionBaseURL: URL(string: "https://prod.apple.test/prod")!,
                sandboxBaseURL: URL(string: "https://sandbox.apple.test/sandbox")!,
                httpClient: .scripted(transport, clock: clock)
            ),
            logger: handler.logger()
        )
        let lookUpError = await appleStoreError { try await adapter.verify(transactionProof()) }

        let jws = try Self.chain.sign(AppleTestValues.transaction(bundleId: "com.example.other"))
        let proof = PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws))
        let offlineError = await appleStoreError { try await adapter.verify(proof) }

        let token = try #require(transport.requests.first?.request.headerFields[.authorization])
        let secrets = [
            "2000000123456789", jws, String(jws.split(separator: ".")[2]), apiKey.pemRepresentation,
            apiKey.rawRepresentation.base64EncodedString(), String(token.dropFirst("Bearer ".count)),
        ]
        let texts =
            [lookUpError, offlineError].compactMap { $0 }.flatMap {
                [$0.description, $0.message, $0.storeReason ?? ""]
            }
            + handler.recorded.flatMap { [$0.message, $0.metadata] }
            + ["\(proof)", "\(String(describing: adapter.configuration.apiCredentials))"]
        #expect(!handler.recorded.isEmpty)
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "a secret leaked into: \(text.prefix(80))") }
        }
    }
}

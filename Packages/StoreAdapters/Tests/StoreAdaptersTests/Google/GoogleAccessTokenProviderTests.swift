import Crypto
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing
import _CryptoExtras

@testable import StoreAdapters

struct GoogleAccessTokenProviderTests {
    typealias Support = GoogleTestSupport

    @Test func theAssertionIsAnRS256JWTVerifiableWithTheServiceAccountsPublicKey() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())

        let token = try await harness.provider.accessToken()
        #expect(token.revealed == Support.accessToken)

        let request = try #require(harness.transport.requests(matching: Support.tokenPath).first)
        #expect(request.request.method == .post)
        #expect(request.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        let form = Support.form(request.bodyText)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        #expect(
            request.bodyText.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=")
        )
        let assertion = try #require(form["assertion"])

        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Support.base64URLDecode(parts[2])))
        let publicKey = Support.signingKey.publicKey
        #expect(publicKey.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: Data("\(parts[0]).e30".utf8), padding: .insecurePKCS1v1_5))
        let otherKey = try _RSA.Signing.PublicKey(
            pemRepresentation: _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
        )
        #expect(!otherKey.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5))

        let header = try JSONDecoder().decode(
            GoogleJWTAssertion.Header.self,
            from: try #require(Support.base64URLDecode(parts[0]))
        )
        #expect(header == GoogleJWTAssertion.Header(alg: "RS256", typ: "JWT", kid: Support.keyID))

        let claims = try JSONDecoder().decode(
            GoogleJWTAssertion.Claims.self,
            from: try #require(Support.base64URLDecode(parts[1]))
        )
        let now = Int64(harness.clock.currentDate.timeIntervalSince1970)
        #expect(claims.iss == Support.clientEmail)
        #expect(claims.scope == "https://www.googleapis.com/auth/androidpublisher")
        #expect(claims.aud == Support.tokenURI.absoluteString)
        #expect(claims.iat == now)
        #expect(claims.exp == now + 3600)
    }

    @Test func theAssertionLifetimeIsCappedAtOneHour() async throws {
        let provider = try GoogleAccessTokenProvider(
            serviceAccount: Support.serviceAccount,
            httpClient: .scripted(ScriptedTransport()),
            assertionLifetime: .seconds(7200)
        )
        let assertion = try await provider.assertion(issuedAt: Date(timeIntervalSince1970: 1_000))
        let claims = try JSONDecoder().decode(
            GoogleJWTAssertion.Claims.self,
            from: try #require(Support.base64URLDecode(assertion.split(separator: ".")[1]))
        )
        #expect(claims.exp - claims.iat == 3600)
    }

    @Test func theTokenIsReusedUntilShortlyBeforeItExpires() async throws {
        let harness = try Support.harness()
        harness.transport.on(
            .post,
            Support.tokenPath,
            times: 1,
            json: Support.tokenResponse("first-token", expiresIn: 3600)
        )
        harness.transport.on(
            .post,
            Support.tokenPath,
            times: 1,
            json: Support.tokenResponse("second-token", expiresIn: 3600)
        )

        #expect(try await harness.provider.accessToken().revealed == "first-token")
        harness.clock.advance(by: .seconds(3000))
        #expect(try await harness.provider.accessToken().revealed == "first-token")
        harness.clock.advance(by: .seconds(539))  // 3539 s: 61 s left, still outside the 60 s margin
        #expect(try await harness.provider.accessToken().revealed == "first-token")
        #expect(harness.transport.requests(matching: Support.tokenPath).count == 1)

        harness.clock.advance(by: .seconds(2))  // 59 s left: refreshed
        #expect(try await harness.provider.accessToken().revealed == "second-token")
        #expect(try await harness.provider.accessToken().revealed == "second-token")
        #expect(harness.transport.requests(matching: Support.tokenPath).count == 2)
    }

    @Test func tenConcurrentVerificationsShareOneTokenRequest() async throws {
        let scripted = ScriptedTransport()
        let gated = GoogleGatedTransport(inner: scripted, gatedPath: Support.tokenPath)
        let harness = try Support.harness(transport: scripted, wrapping: gated)
        scripted.on(.post, Support.tokenPath, json: Support.tokenResponse())
        scripted.on(.get, Support.productPath("coins_100"), json: Support.productPurchase())

        try await withThrowingTaskGroup(of: VerifiedPurchase.self) { group in
            for _ in 0..<10 {
                group.addTask { try await harness.adapter.verify(Support.productProof()) }
            }
            // Every caller waits behind the one refresh before the token endpoint answers.
            try await waitUntil("ten callers behind one held refresh") {
                await harness.provider.refreshWaiterCount >= 10 && gated.heldCount >= 1
            }
            #expect(await harness.provider.refreshWaiterCount == 10)
            #expect(gated.heldCount == 1)
            gated.open()
            var results: [VerifiedPurchase] = []
            for try await purchase in group { results.append(purchase) }
            #expect(results.count == 10)
            #expect(results.allSatisfy { $0.state == .active })
        }
        #expect(scripted.requests(matching: Support.tokenPath).count == 1)
        #expect(scripted.requests(matching: "/purchases/products/").count == 10)
        let authorizations = Set(
            scripted.requests(matching: "/purchases/").compactMap { $0.request.headerFields[.authorization] }
        )
        #expect(authorizations == ["Bearer \(Support.accessToken)"])
    }

    @Test func aFailedRefreshIsNotCachedAndTheNextCallTriesAgain() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, times: 1, status: 503, json: "{}")
        harness.transport.on(.post, Support.tokenPath, times: 1, json: Support.tokenResponse())

        await #expect(throws: StoreAdapterError.self) { try await harness.provider.accessToken() }
        #expect(try await harness.provider.accessToken().revealed == Support.accessToken)
    }

    @Test(arguments: [
        (400, "invalid_grant", StoreAdapterError.Code.unauthorized),
        (401, "invalid_client", .unauthorized),
        (403, "unauthorized_client", .unauthorized),
        (429, "rate_limit_exceeded", .rateLimited),
        (500, "internal_failure", .storeUnavailable),
    ])
    func tokenEndpointErrorsMapToSharedCodes(status: Int, reason: String, expected: StoreAdapterError.Code) async throws
    {
        let harness = try Support.harness()
        harness.transport.on(
            .post,
            Support.tokenPath,
            status: status,
            json: #"{"error":"\#(reason)","error_description":"Invalid JWT Signature."}"#
        )

        let error = await #expect(throws: StoreAdapterError.self) { try await harness.provider.accessToken() }
        #expect(error?.code == expected)
        #expect(error?.storeReason == reason)
        #expect(error?.httpStatus == status)
        #expect(error?.store == .google)
    }

    @Test func anUnauthorizedAPIAnswerRefreshesTheTokenOnceAndRetries() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, times: 1, json: Support.tokenResponse("stale-token"))
        harness.transport.on(.post, Support.tokenPath, times: 1, json: Support.tokenResponse("fresh-token"))
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            times: 1,
            status: 401,
            json: Support.errorEnvelope(code: 401, reason: "authError", status: "UNAUTHENTICATED")
        )
        harness.transport.on(.get, Support.productPath("coins_100"), json: Support.productPurchase())

        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(purchase.state == .active)
        let apiCalls = harness.transport.requests(matching: "/purchases/products/")
        #expect(
            apiCalls.map { $0.request.headerFields[.authorization] } == ["Bearer stale-token", "Bearer fresh-token"]
        )
        #expect(harness.transport.requests(matching: Support.tokenPath).count == 2)
    }

    @Test func aPersistentUnauthorizedAnswerIsRetriedOnlyOnce() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            status: 401,
            json: Support.errorEnvelope(
                code: 401,
                reason: "permissionDenied",
                message: "The current user has insufficient permissions to perform the requested operation."
            )
        )

        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .unauthorized)
        #expect(error?.storeReason == "permissionDenied")
        #expect(harness.transport.requests(matching: "/purchases/products/").count == 2)
        #expect(harness.transport.requests(matching: Support.tokenPath).count == 2)
    }

    @Test func aKeyFileIsReadAndItsPrivateKeyIsNeverPrinted() throws {
        let account = try GoogleServiceAccount(jsonData: Support.keyFileJSON())
        #expect(account.clientEmail == Support.clientEmail)
        #expect(account.privateKeyId == Support.keyID)
        #expect(account.projectId == "opencat-test")
        #expect(account.tokenURI == Support.tokenURI)
        #expect(account.privateKey.revealed == Support.signingKey.pkcs8PEMRepresentation)
        for text in [account.description, String(describing: account), String(reflecting: account), "\(account)"] {
            #expect(!text.contains(Support.privateKeyFragment))
            #expect(!text.contains("PRIVATE KEY"))
        }
        var dumped = ""
        dump(account, to: &dumped)
        #expect(!dumped.contains(Support.privateKeyFragment))
    }

    @Test func aKeyFileWithoutTokenURIUsesGooglesEndpoint() throws {
        let json =
            #"{"type":"service_account","private_key_id":"k","private_key":"pem","client_email":"a@b.iam.gserviceaccount.com"}"#
        let account = try GoogleServiceAccount(jsonData: Data(json.utf8))
        #expect(account.tokenURI.absoluteString == "https://oauth2.googleapis.com/token")
    }

    @Test(arguments: [
        #"{"type":"authorized_user","client_id":"x","client_secret":"not-a-service-account","refresh_token":"r"}"#,
        #"{"type":"service_account","private_key_id":"k","client_email":"a@b"}"#,
        "not json",
    ])
    func somethingElseThanAServiceAccountKeyIsRejected(json: String) throws {
        let error = #expect(throws: StoreAdapterError.self) { try GoogleServiceAccount(jsonData: Data(json.utf8)) }
        #expect(error?.code == .unauthorized)
        #expect(error.map { !String(describing: $0).contains("not-a-service-account") } == true)
    }

    @Test func anUnreadablePrivateKeyIsRejectedWithoutQuotingIt() throws {
        let account = GoogleServiceAccount(
            privateKeyId: "k",
            privateKey: "-----BEGIN PRIVATE KEY-----\nZ2FyYmFnZS1rZXktbWF0ZXJpYWw=\n-----END PRIVATE KEY-----\n",
            clientEmail: Support.clientEmail
        )
        let error = #expect(throws: StoreAdapterError.self) { try GoogleAccessTokenProvider(serviceAccount: account) }
        #expect(error?.code == .unauthorized)
        #expect(error.map { !$0.description.contains("Z2FyYmFnZS1rZXktbWF0ZXJpYWw") } == true)
    }

    /// Security issue item 17: the signed assertion never travels over plain http, except to loopback (MockStores).
    @Test(arguments: [
        "http://oauth2.googleapis.com/token", "http://10.0.0.7/token", "ftp://oauth2.googleapis.com/token",
        "http://127.0.0.2/token", "https:///token",
    ])
    func nonHTTPSTokenURLIsMisconfigured(url: String) throws {
        var account = GoogleTestSupport.serviceAccount
        account.tokenURI = try #require(URL(string: url))
        let fromKeyFile = #expect(throws: StoreAdapterError.self) {
            try GoogleAccessTokenProvider(serviceAccount: account)
        }
        #expect(fromKeyFile?.code == .misconfigured)
        let overridden = #expect(throws: StoreAdapterError.self) {
            try GoogleAccessTokenProvider(serviceAccount: GoogleTestSupport.serviceAccount, tokenURL: URL(string: url))
        }
        #expect(overridden?.code == .misconfigured)
    }

    @Test(arguments: [
        "https://oauth2.googleapis.com/token", "http://127.0.0.1:8080/token", "http://[::1]:8080/token",
        "http://localhost:9000/google/token",
    ])
    func httpsOrLoopbackTokenURLIsAccepted(url: String) throws {
        let tokenURL = try #require(URL(string: url))
        #expect(GoogleAccessTokenProvider.isAcceptableTokenURL(tokenURL))
        _ = try GoogleAccessTokenProvider(serviceAccount: GoogleTestSupport.serviceAccount, tokenURL: tokenURL)
    }
}

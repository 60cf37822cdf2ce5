import Crypto
import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing
import _CryptoExtras

struct MockStoreServerAuthTests {
    static func run(
        _ store: Store,
        _ interactions: [Cassette.Interaction],
        clock: any WallClock = SystemClock(),
        _ body: (MockStoreServer) async throws -> Void
    ) async throws {
        try await MockStoreServer.withRunningServer(
            cassettes: [.script(store, interactions)],
            credentials: TestKeys.credentials,
            clock: clock,
            body
        )
    }

    // MARK: Stripe

    @Test func stripeAcceptsTheSecretKeyAsBearerOrBasic() async throws {
        try await Self.run(.stripe, [.get("/v1/payment_intents/pi_1", times: 2)]) { server in
            let bearer = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/pi_1",
                headers: ["Authorization": "Bearer \(TestKeys.stripeKey)"]
            )
            #expect(bearer.status.code == 200)
            let basic = Data("\(TestKeys.stripeKey):".utf8).base64EncodedString()
            let viaBasic = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/pi_1",
                headers: ["Authorization": "Basic \(basic)"]
            )
            #expect(viaBasic.status.code == 200)
        }
    }

    @Test func stripeRejectsAWrongKeyWithItsOwn401ShapeAndKeepsTheInteraction() async throws {
        try await Self.run(.stripe, [.get("/v1/payment_intents/pi_1")]) { server in
            let wrong = try await Loopback.send(
                .get,
                server,
                "/v1/payment_intents/pi_1",
                headers: ["Authorization": "Bearer sk_test_wrongkey12345678"]
            )
            #expect(wrong.status.code == 401)
            #expect(wrong.json?["error"]?["type"] == "invalid_request_error")
            #expect(wrong.json?["error"]?["message"] == "Invalid API Key provided: sk_test_************5678")
            let missing = try await Loopback.send(.get, server, "/v1/payment_intents/pi_1")
            #expect(missing.status.code == 401)
            #expect(
                missing.json?["error"]?["message"]?.stringValue?.hasPrefix("You did not provide an API key.") == true
            )
            #expect(server.unusedInteractions.count == 1)
            #expect(server.exchanges.map(\.handling) == [.rejectedByAuth(.stripe), .rejectedByAuth(.stripe)])
            #expect(server.unmatchedRequests.isEmpty)
        }
    }

    // MARK: PayPal

    @Test func paypalIssuesATokenForBasicClientCredentialsAndAcceptsItAfterwards() async throws {
        try await Self.run(.paypal, [.get("/v2/checkout/orders/5O190127TN364715T")]) { server in
            let basic = Data("mock-client-id:mock-client-secret".utf8).base64EncodedString()
            let token = try await Loopback.send(
                .post,
                server,
                "/v1/oauth2/token",
                headers: ["Authorization": "Basic \(basic)", "Content-Type": "application/x-www-form-urlencoded"],
                body: "grant_type=client_credentials"
            )
            #expect(token.status.code == 200)
            let accessToken = try #require(token.json?["access_token"]?.stringValue)
            #expect(token.json?["token_type"] == "Bearer")
            #expect(server.exchanges.first?.handling == .builtIn(.paypal))

            let order = try await Loopback.send(
                .get,
                server,
                "/v2/checkout/orders/5O190127TN364715T",
                headers: ["Authorization": "Bearer \(accessToken)"]
            )
            #expect(order.status.code == 200)
            try server.verify()
        }
    }

    @Test func paypalRejectsWrongClientCredentialsAndUnknownTokens() async throws {
        try await Self.run(.paypal, [.get("/v2/checkout/orders/O1")]) { server in
            let basic = Data("mock-client-id:wrong".utf8).base64EncodedString()
            let token = try await Loopback.send(
                .post,
                server,
                "/v1/oauth2/token",
                headers: ["Authorization": "Basic \(basic)"],
                body: "grant_type=client_credentials"
            )
            #expect(token.status.code == 401)
            #expect(token.json == ["error": "invalid_client", "error_description": "Client Authentication failed"])

            let order = try await Loopback.send(
                .get,
                server,
                "/v2/checkout/orders/O1",
                headers: ["Authorization": "Bearer opencat-mock-paypal-access-token"]
            )
            #expect(order.status.code == 401)
            #expect(order.json?["name"] == "AUTHENTICATION_FAILURE")
        }
    }

    @Test func paypalAcceptsATokenIssuedByAScriptedTokenEndpoint() async throws {
        let tokenInteraction = Cassette.Interaction(
            request: .init(
                method: "POST",
                path: "/v1/oauth2/token",
                form: .init(single: ["grant_type": "client_credentials"])
            ),
            response: .init(
                status: 200,
                json: ["access_token": "scripted-token", "token_type": "Bearer", "expires_in": 32400]
            )
        )
        try await Self.run(.paypal, [tokenInteraction, .get("/v2/checkout/orders/O1")]) { server in
            let basic = Data("mock-client-id:mock-client-secret".utf8).base64EncodedString()
            let token = try await Loopback.send(
                .post,
                server,
                "/v1/oauth2/token",
                headers: ["Authorization": "Basic \(basic)"],
                body: "grant_type=client_credentials"
            )
            #expect(token.json?["access_token"] == "scripted-token")
            let order = try await Loopback.send(
                .get,
                server,
                "/v2/checkout/orders/O1",
                headers: ["Authorization": "Bearer scripted-token"]
            )
            #expect(order.status.code == 200)
            try server.verify()
        }
    }

    // MARK: Google

    static func assertion(
        server: MockStoreServer,
        key: _RSA.Signing.PrivateKey = TestKeys.google,
        iss: String = TestKeys.googleEmail,
        aud: String? = nil,
        lifetime: Int64 = 3600
    ) throws -> String {
        let iat: Int64 = 1_700_000_000
        return try TestJWT.rs256(
            [
                "iss": .string(iss), "scope": "https://www.googleapis.com/auth/androidpublisher",
                "aud": .string(aud ?? "\(server.baseURL.absoluteString)/token"), "iat": .integer(iat),
                "exp": .integer(iat + lifetime),
            ],
            key: key
        )
    }

    static func tokenRequest(_ server: MockStoreServer, assertion: String) async throws -> HTTPTransportResponse {
        try await Loopback.send(
            .post,
            server,
            "/token",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        )
    }

    @Test func googleExchangesAValidServiceAccountAssertionForATokenThatOpensAndroidPublisher() async throws {
        let path = "/androidpublisher/v3/applications/dev.opencat.demo/purchases/products/gems/tokens/tok"
        try await Self.run(.google, [.get(path)]) { server in
            let token = try await Self.tokenRequest(server, assertion: try Self.assertion(server: server))
            #expect(token.status.code == 200)
            #expect(token.json?["expires_in"] == 3599)
            #expect(token.json?["token_type"] == "Bearer")
            let accessToken = try #require(token.json?["access_token"]?.stringValue)

            let denied = try await Loopback.send(.get, server, path, headers: ["Authorization": "Bearer not-issued"])
            #expect(denied.status.code == 401)
            #expect(denied.json?["error"]?["status"] == "UNAUTHENTICATED")
            #expect(denied.json?["error"]?["code"] == 401)

            let purchase = try await Loopback.send(
                .get,
                server,
                path,
                headers: ["Authorization": "Bearer \(accessToken)"]
            )
            #expect(purchase.status.code == 200)
            try server.verify()
        }
    }

    @Test func googleRefusesAssertionsThatAreForgedMisaddressedOrTooLong() async throws {
        try await Self.run(.google, []) { server in
            let forged = try await Self.tokenRequest(
                server,
                assertion: try Self.assertion(server: server, key: TestKeys.otherRSA)
            )
            #expect(forged.status.code == 400)
            #expect(forged.json == ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])

            let wrongAudience = try await Self.tokenRequest(
                server,
                assertion: try Self.assertion(server: server, aud: "https://oauth2.googleapis.com/token")
            )
            #expect(wrongAudience.json?["error_description"] == "Invalid JWT: Failed audience check.")

            let wrongIssuer = try await Self.tokenRequest(
                server,
                assertion: try Self.assertion(server: server, iss: "x@y.z")
            )
            #expect(wrongIssuer.status.code == 401)
            #expect(wrongIssuer.json?["error"] == "invalid_client")

            let tooLong = try await Self.tokenRequest(
                server,
                assertion: try Self.assertion(server: server, lifetime: 7200)
            )
            #expect(tooLong.status.code == 400)
            #expect(tooLong.json?["error"] == "invalid_grant")
        }
    }

    // MARK: Steam

    @Test func steamAcceptsThePublisherKeyHeaderAndRefusesOthersWith403() async throws {
        let path = "/ISteamMicroTxn/QueryTxn/v3"
        try await Self.run(.steam, [.get(path, query: ["appid": ["480"], "orderid": ["1"]])]) { server in
            let denied = try await Loopback.send(
                .get,
                server,
                "\(path)?appid=480&orderid=1",
                headers: ["x-webapi-key": "nope"]
            )
            #expect(denied.status.code == 403)
            #expect(denied.text.contains("Forbidden"))
            let ok = try await Loopback.send(
                .get,
                server,
                "\(path)?appid=480&orderid=1",
                headers: ["x-webapi-key": TestKeys.steamKey]
            )
            #expect(ok.status.code == 200)
            try server.verify()
        }
    }

    // MARK: Apple

    static func appleToken(
        key: P256.Signing.PrivateKey = TestKeys.apple,
        kid: String = "MOCKKEY123",
        bid: String = "dev.opencat.demo",
        exp: Int64 = 1_700_000_600
    ) throws -> String {
        try TestJWT.es256(
            [
                "iss": "57246542-96fe-1a63-e053-0824d011072a", "iat": 1_700_000_000, "exp": .integer(exp),
                "aud": "appstoreconnect-v1", "bid": .string(bid),
            ],
            kid: kid,
            key: key
        )
    }

    @Test func appleAcceptsAValidES256TokenAndRefusesEveryBrokenOneWithAnEmpty401() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let path = "/inApps/v1/transactions/2000000000000001"
        try await Self.run(.apple, [.get(path)], clock: clock) { server in
            let broken: [String] = [
                try Self.appleToken(key: TestKeys.otherP256),
                try Self.appleToken(kid: "OTHERKEY"),
                try Self.appleToken(bid: "com.other.app"),
                try Self.appleToken(exp: 1_699_999_999),
                "not-a-jwt",
            ]
            for token in broken {
                let response = try await Loopback.send(
                    .get,
                    server,
                    path,
                    headers: ["Authorization": "Bearer \(token)"]
                )
                #expect(response.status.code == 401)
                #expect(response.body.isEmpty)
            }
            let ok = try await Loopback.send(
                .get,
                server,
                path,
                headers: ["Authorization": "Bearer \(try Self.appleToken())"]
            )
            #expect(ok.status.code == 200)

            clock.advance(by: .seconds(600))
            server.load(.script(.apple, [.get(path)]))
            let expired = try await Loopback.send(
                .get,
                server,
                path,
                headers: ["Authorization": "Bearer \(try Self.appleToken())"]
            )
            #expect(expired.status.code == 401)
        }
    }

    // MARK: OpenCat server API

    @Test func theOpenCatServerAPIChecksItsBearerKey() async throws {
        try await Self.run(MockCredentials.openCatStore, [.get("/v1/subscribers/u1")]) { server in
            let denied = try await Loopback.send(
                .get,
                server,
                "/v1/subscribers/u1",
                headers: ["Authorization": "Bearer nope"]
            )
            #expect(denied.status.code == 401)
            #expect(denied.json?["error"]?["code"] == "unauthorized")
            let ok = try await Loopback.send(
                .get,
                server,
                "/v1/subscribers/u1",
                headers: ["Authorization": "Bearer \(TestKeys.openCatKey)"]
            )
            #expect(ok.status.code == 200)
        }
    }

    @Test func aStoreWithoutCredentialsIsNotChecked() async throws {
        try await MockStoreServer.withRunningServer(cassettes: [.script(.stripe, [.get("/v1/x")])]) { server in
            let response = try await Loopback.send(.get, server, "/v1/x")
            #expect(response.status.code == 200)
        }
    }
}

struct MockCredentialsTests {
    @Test func googleCredentialsReadPEMAndDERPublicKeys() throws {
        let pem = try MockCredentials.Google(
            clientEmail: "a@b.c",
            publicKeyPEM: TestKeys.google.publicKey.pemRepresentation
        )
        let der = try MockCredentials.Google(
            clientEmail: "a@b.c",
            publicKeyDER: TestKeys.google.publicKey.derRepresentation
        )
        #expect(pem.publicKey.derRepresentation == TestKeys.google.publicKey.derRepresentation)
        #expect(der.publicKey.derRepresentation == TestKeys.google.publicKey.derRepresentation)
        #expect(pem.tokenPath == "/token")
        #expect(throws: (any Error).self) { try MockCredentials.Google(clientEmail: "a@b.c", publicKeyPEM: "nope") }
    }

    @Test func secretsInCredentialsAreRedacted() {
        let description = "\(TestKeys.credentials.stripeSecretKey!) \(TestKeys.credentials.payPal!.clientSecret)"
        #expect(!description.contains(TestKeys.stripeKey))
        #expect(!description.contains("mock-client-secret"))
    }
}

import Crypto
import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing
import _CryptoExtras

/// `MockRecorder` + `SecretScrubber`: a `MockStoreServer` serving a cassette stands in for the real API; a client
/// with real-looking secrets talks to it through the recorder; the cassette written has none of them, names each
/// kind replaced, decodes, passes `fixtures lint`'s secret check, and replays the same bodies from MockStoreServer.
@Suite struct MockRecorderTests {
    // Real-looking secrets (made up for this test).
    static let stripeKey = "sk_live_51OpenCatRecorderTestKey7dQmZx4"
    static let email = "ada.lovelace@analytical-engine.org"
    static let customer = "cus_QrEcOrDeR0042"
    static let clientSecret = "pi_3RecorderPay001_secret_Zk3LmN0pQr"
    static let purchaseToken =
        "bgmjmhcpkdhnpmclmgmbfmfe.AO-J1OxqK0f9QG4YzE8kq3Yb7nVbP4mF2xGmLwTq9sR1uD5eH6iJ0kZ3aB8cN7dM4pS2tU1vW9xY5zA"
    static let googleAccessToken = "ya29.a0AfB_byRecorderTestAccessToken0123456789"
    static let obfuscatedAccount = "player-42-account-7f3a"

    // MARK: Stripe: a live key, an e-mail, a customer id, a client secret

    @Test func stripeRecordingHasNoSecretAndReplaysTheSameBodies() async throws {
        let paymentIntent: JSONValue = [
            "id": "pi_3RecorderPay001", "object": "payment_intent", "amount": 500, "currency": "usd",
            "status": "succeeded", "customer": .string(Self.customer), "receipt_email": .string(Self.email),
            "client_secret": .string(Self.clientSecret), "metadata": ["product_id": "gems_500"],
        ]
        let created: JSONValue = ["id": .string(Self.customer), "object": "customer", "email": .string(Self.email)]
        let upstreamCassette = Cassette.script(
            .stripe,
            [
                .init(
                    request: .init(
                        method: "GET",
                        path: "/v1/payment_intents/pi_3RecorderPay001",
                        query: .init(single: ["expand[]": "latest_charge"])
                    ),
                    response: .init(status: 200, json: paymentIntent)
                ),
                .init(
                    request: .init(method: "POST", path: "/v1/customers", form: .init(single: ["email": Self.email])),
                    response: .init(status: 200, json: created)
                ),
            ]
        )
        let credentials = MockCredentials(stripeSecretKey: Secret(Self.stripeKey))
        let headers = ["Authorization": "Bearer \(Self.stripeKey)", "Stripe-Version": "2024-06-20"]
        let form = "email=" + Self.email.replacingOccurrences(of: "@", with: "%40")
        let (exchanges, originals) = try await MockStoreServer.withRunningServer(
            cassettes: [upstreamCassette],
            credentials: credentials
        ) { upstream in
            let result = try await MockRecorder.withRunningRecorder(upstream: upstream.baseURL) { recorder in
                let first = try await Self.send(
                    .get,
                    recorder.port,
                    "/v1/payment_intents/pi_3RecorderPay001?expand%5B%5D=latest_charge",
                    headers: headers
                )
                var formHeaders = headers
                formHeaders["Content-Type"] = "application/x-www-form-urlencoded"
                let second = try await Self.send(
                    .post,
                    recorder.port,
                    "/v1/customers",
                    headers: formHeaders,
                    body: form
                )
                return (recorder.exchanges, [first, second])
            }
            try upstream.verify()
            return result
        }
        #expect(originals.map(\.status.code) == [200, 200])
        #expect(exchanges.count == 2)

        let recording = SecretScrubber(store: .stripe).recording(
            of: exchanges,
            scenario: "one-time-paid",
            input: .init(kind: .stripePaymentIntent, token: "pi_3RecorderPay001", productId: "gems_500"),
            expect: .verified("active")
        )
        let (data, text) = try Self.written(recording, store: "stripe")
        for secret in [Self.stripeKey, Self.email, Self.customer, Self.clientSecret] {
            #expect(!text.contains(secret))
            #expect(!recording.report.contains(secret))
        }
        #expect(recording.kinds.isSuperset(of: [.stripeSecretKey, .email, .accountId, .clientSecret]))
        #expect(recording.report.contains("{{stripe.secretKey}} replaced a Stripe secret key"))
        #expect(recording.report.contains("interactions[0].request.headers.Authorization"))
        #expect(recording.report.contains("an e-mail address"))
        #expect(recording.cassette.config["secretKey"] == "{{stripe.secretKey}}")
        #expect(recording.cassette.interactions[0].request.headers == ["Stripe-Version": "2024-06-20"])

        // Lint's checks: no live-looking text, and the file decodes and validates with the harness's values.
        #expect(SecretScrubber.liveCredentials(in: text).isEmpty)
        let cassette = try Cassette.decode(data, file: "stripe/one-time-paid.json", variables: Self.variables)

        // Replay: the same requests, the stand-ins where the secrets were, answer the same bodies.
        let standIns = Self.standIns(recording, [Self.email, Self.customer, Self.clientSecret])
        let replayForm = "email=" + Self.apply(standIns, to: Self.email).replacingOccurrences(of: "@", with: "%40")
        try await MockStoreServer.withRunningServer(cassettes: [cassette], credentials: credentials) { server in
            let first = try await Self.send(
                .get,
                server.port,
                "/v1/payment_intents/pi_3RecorderPay001?expand%5B%5D=latest_charge",
                headers: headers
            )
            var formHeaders = headers
            formHeaders["Content-Type"] = "application/x-www-form-urlencoded"
            let second = try await Self.send(
                .post,
                server.port,
                "/v1/customers",
                headers: formHeaders,
                body: replayForm
            )
            for (replayed, original) in zip([first, second], originals) {
                #expect(replayed.status == original.status)
                #expect(try Self.json(replayed) == Self.json(original, standIns))
            }
            try server.verify()
        }
    }

    // MARK: Google: a service account assertion, an access token, a purchase token in the path and the bodies

    @Test func googleRecordingHasNoTokenOrAssertionAndReplaysTheSameBodies() async throws {
        let base = "/androidpublisher/v3/applications/dev.opencat.demo/purchases/products/gems_500/tokens/"
        let purchase: JSONValue = [
            "kind": "androidpublisher#productPurchase", "purchaseState": 0, "acknowledgementState": 0,
            "orderId": "GPA.3312-5511-0246-81234", "purchaseToken": .string(Self.purchaseToken),
            "obfuscatedExternalAccountId": .string(Self.obfuscatedAccount), "purchaseTimeMillis": "1763800000000",
        ]
        let upstreamCassette = Cassette.script(
            .google,
            [
                .init(
                    request: .init(method: "POST", path: "/token"),
                    response: .init(
                        status: 200,
                        json: [
                            "access_token": .string(Self.googleAccessToken), "expires_in": 3599,
                            "token_type": "Bearer",
                        ]
                    )
                ),
                .init(
                    request: .init(method: "GET", path: base + Self.purchaseToken),
                    response: .init(status: 200, json: purchase)
                ),
                .init(
                    request: .init(
                        method: "POST",
                        path: base + Self.purchaseToken + ":acknowledge",
                        json: ["purchaseToken": .string(Self.purchaseToken), "developerPayload": "ack"]
                    ),
                    response: .init(status: 200, json: [:])
                ),
            ]
        )
        let credentials = MockCredentials(
            google: .init(clientEmail: TestKeys.googleEmail, publicKey: TestKeys.google.publicKey)
        )
        var assertion = ""
        let (exchanges, originals) = try await MockStoreServer.withRunningServer(
            cassettes: [upstreamCassette],
            credentials: credentials
        ) { upstream in
            assertion = try Self.googleAssertion(audience: "\(upstream.baseURL.absoluteString)/token")
            let result = try await MockRecorder.withRunningRecorder(upstream: upstream.baseURL) { recorder in
                let responses = try await Self.googleSession(
                    port: recorder.port,
                    assertion: assertion,
                    purchaseToken: Self.purchaseToken,
                    base: base
                )
                return (recorder.exchanges, responses)
            }
            try upstream.verify()
            return result
        }
        #expect(originals.map(\.status.code) == [200, 200, 200])

        let recording = SecretScrubber(store: .google).recording(
            of: exchanges,
            scenario: "one-time-paid",
            input: .init(
                kind: .googleProductPurchaseToken,
                token: Self.purchaseToken,
                productId: "gems_500",
                context: ["packageName": "dev.opencat.demo"]
            ),
            expect: .verified("active")
        )
        let (data, text) = try Self.written(recording, store: "google")
        for secret in [
            Self.purchaseToken, Self.googleAccessToken, assertion, Self.obfuscatedAccount, TestKeys.googleEmail,
        ] {
            #expect(!text.contains(secret))
            #expect(!recording.report.contains(secret))
        }
        #expect(recording.kinds.isSuperset(of: [.purchaseToken, .accessToken, .jwt, .accountId]))
        #expect(recording.report.contains("a purchase token at input.token, interactions[1].request.path"))
        #expect(recording.report.contains("interactions[2].request.json.purchaseToken"))
        #expect(recording.report.contains("interactions[0].request.form.assertion (not recorded"))
        #expect(
            recording.cassette.interactions[0].request.form
                == Cassette.NameValues(single: ["grant_type": Self.jwtBearer])
        )
        #expect(SecretScrubber.liveCredentials(in: text).isEmpty)
        let cassette = try Cassette.decode(data, file: "google/one-time-paid.json", variables: Self.variables)

        let standIns = Self.standIns(recording, [Self.purchaseToken, Self.googleAccessToken, Self.obfuscatedAccount])
        try await MockStoreServer.withRunningServer(cassettes: [cassette], credentials: credentials) { server in
            let replayed = try await Self.googleSession(
                port: server.port,
                assertion: try Self.googleAssertion(audience: "\(server.baseURL.absoluteString)/token"),
                purchaseToken: Self.apply(standIns, to: Self.purchaseToken),
                base: base
            )
            for (replayed, original) in zip(replayed, originals) {
                #expect(replayed.status == original.status)
                #expect(try Self.json(replayed) == Self.json(original, standIns))
            }
            try server.verify()
        }
    }

    // MARK: Apple: a bearer JWT, App Store signed data

    @Test func appleRecordingDropsTheBearerJWTAndResignsTheSignedData() async throws {
        let path = "/inApps/v1/transactions/2000000123456789"
        let appAccountToken = "5f0c8a52-3c1e-4b43-9d7e-2b0f6a1c9e11"
        let payload: JSONValue = [
            "transactionId": "2000000123456789", "originalTransactionId": "2000000123456789",
            "bundleId": "dev.opencat.demo", "productId": "gems_500", "type": "Consumable",
            "appAccountToken": .string(appAccountToken), "environment": "Production", "price": 4990,
            "currency": "USD",
        ]
        let signed = TestKeys.appleCA.signJWS(payload)
        let upstreamCassette = Cassette.script(
            .apple,
            [
                .init(
                    request: .init(method: "GET", path: path),
                    response: .init(status: 200, json: ["signedTransactionInfo": .string(signed)])
                )
            ]
        )
        let credentials = TestKeys.credentials
        let bearer = try Self.appleToken()
        let (exchanges, original) = try await MockStoreServer.withRunningServer(
            cassettes: [upstreamCassette],
            credentials: credentials
        ) { upstream in
            let result = try await MockRecorder.withRunningRecorder(upstream: upstream.baseURL) { recorder in
                let response = try await Self.send(
                    .get,
                    recorder.port,
                    path,
                    headers: ["Authorization": "Bearer \(bearer)"]
                )
                return (recorder.exchanges, response)
            }
            try upstream.verify()
            return result
        }
        #expect(original.status.code == 200)

        let recording = SecretScrubber(store: .apple).recording(
            of: exchanges,
            scenario: "one-time-paid",
            input: .init(kind: .appleTransactionId, token: "2000000123456789", productId: "gems_500"),
            config: ["bundleId": "dev.opencat.demo"],
            expect: .verified("active")
        )
        let (data, text) = try Self.written(recording, store: "apple")
        for secret in [bearer, signed, appAccountToken, "57246542-96fe-1a63-e053-0824d011072a", "MOCKKEY123"] {
            #expect(!text.contains(secret))
            #expect(!recording.report.contains(secret))
        }
        #expect(recording.kinds.isSuperset(of: [.jwt, .appleSignedData, .accountId]))
        #expect(recording.report.contains("interactions[0].request.headers.Authorization (not recorded"))
        #expect(
            recording.report.contains(
                "{{apple.signed.transaction}} replaced App Store signed data (JWS) at "
                    + "interactions[0].response.json.signedTransactionInfo"
            )
        )
        #expect(recording.cassette.config["privateKey"] == "{{apple.privateKey}}")
        #expect(SecretScrubber.liveCredentials(in: text).isEmpty)

        // The loader signs config.signedPayloads.transaction with the run's MockAppleCA.
        let loader = FixtureLoader(appleCA: TestKeys.appleCA, variables: Self.variables)
        let cassette = try loader.decode(data, file: "apple/one-time-paid.json")
        let standIn = try #require(recording.replacements.first { $0.kind == .accountId }?.replacement)
        try await MockStoreServer.withRunningServer(cassettes: [cassette], credentials: credentials) { server in
            let replayed = try await Self.send(
                .get,
                server.port,
                path,
                headers: ["Authorization": "Bearer \(try Self.appleToken())"]
            )
            #expect(replayed.status.code == 200)
            let jws = try #require(try Self.json(replayed)["signedTransactionInfo"]?.stringValue)
            let parts = jws.split(separator: ".")
            let replayedPayload = try JSONValue(parsing: try #require(Base64URL.decode(parts[1])))
            #expect(
                replayedPayload
                    == (try JSONValue(
                        parsing: Data(
                            payload.canonicalText.replacingOccurrences(of: appAccountToken, with: standIn).utf8
                        )
                    ))
            )
            try server.verify()
        }
    }

    // MARK: Stopping

    // The limit catches a recorder that never stops; it is generous because the pinned CI run (one core, every suite
    // at once) can keep this test waiting for the pool well over a minute without anything being wrong.
    @Test(.timeLimit(.minutes(3))) func recorderStopsByItselfAfterItsCount() async throws {
        let upstreamCassette = Cassette.script(.stripe, [.get("/v1/balance", times: 2)])
        try await MockStoreServer.withRunningServer(cassettes: [upstreamCassette]) { upstream in
            let recorder = MockRecorder(upstream: upstream.baseURL, maximumExchanges: 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await recorder.run() }
                let url = try await recorder.listening()
                // The connection closes with the answer, so the recorder's shutdown waits on no idle keep-alive.
                let response = try await Self.send(.get, url.port ?? 0, "/v1/balance", headers: ["Connection": "close"])
                #expect(response.status.code == 200)
                try await group.waitForAll()  // returns only because the recorder stopped after one exchange
            }
            #expect(recorder.exchanges.count == 1)
            #expect(upstream.receivedRequests.count == 1)
        }
    }

    @Test func recorderAnswers502WhenTheUpstreamIsUnreachableAndRecordsNothing() async throws {
        // A port nothing listens on: a server that stopped.
        let stopped = MockStoreServer()
        let url = try await stopped.start()
        await stopped.stop()
        try await MockRecorder.withRunningRecorder(upstream: url) { recorder in
            let response = try await Self.send(.get, recorder.port, "/v1/balance")
            #expect(response.status.code == 502)
            #expect(recorder.exchanges.isEmpty)
            #expect(recorder.upstreamFailures == 1)
        }
    }

    @Test func scrubberRefusesToWriteACassetteStillHoldingALiveLookingKey() throws {
        let exchange = RecordedExchange(
            request: MockRequest(method: "GET", path: "/v1/balance"),
            response: MockResponse(status: 200, body: Data("{\"ok\":true}".utf8))
        )
        var recording = SecretScrubber(store: .stripe).recording(
            of: [exchange],
            scenario: "one-time-paid",
            input: .init(kind: .stripePaymentIntent, token: "pi_1"),
            expect: .verified("active")
        )
        recording.cassette.description = "pasted by hand: " + Self.stripeKey
        #expect(throws: RecordingError.self) { try recording.encoded() }
    }

    // MARK: Helpers

    static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The harness's placeholder values for the replays.
    static var variables: [String: String] {
        [
            "stripe.secretKey": stripeKey, "google.clientEmail": TestKeys.googleEmail,
            "apple.issuerId": "57246542-96fe-1a63-e053-0824d011072a", "apple.keyId": "MOCKKEY123",
            "apple.privateKey": TestKeys.apple.pemRepresentation,
        ]
    }

    /// Writes the recording (atomically) to a scratch folder and reads the raw bytes back.
    static func written(_ recording: ScrubbedRecording, store: String) throws -> (Data, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-recorder-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("\(store)/one-time-paid.json")
        try recording.write(to: file)
        let data = try Data(contentsOf: file)
        return (data, String(decoding: data, as: UTF8.self))
    }

    /// Each secret → the stand-in the recording put in its place.
    static func standIns(_ recording: ScrubbedRecording, _ secrets: [String]) -> [(String, String)] {
        let kinds: [String: SecretKind] = [
            email: .email, customer: .accountId, clientSecret: .clientSecret, purchaseToken: .purchaseToken,
            googleAccessToken: .accessToken, obfuscatedAccount: .accountId,
        ]
        return secrets.compactMap { secret in
            let matching = recording.replacements.filter { $0.kind == kinds[secret] }
            // Two account ids: the customer is `cus_`-shaped, the obfuscated one is not.
            let replacement =
                matching.count > 1
                ? matching.first(where: { $0.replacement.hasPrefix("cus_") == secret.hasPrefix("cus_") })
                : matching.first
            return replacement.map { (secret, $0.replacement) }
        }
    }

    static func apply(_ standIns: [(String, String)], to text: String) -> String {
        standIns.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    static func json(_ response: HTTPTransportResponse, _ standIns: [(String, String)] = []) throws -> JSONValue {
        let text = apply(standIns, to: String(decoding: response.body, as: UTF8.self))
        return try JSONValue(parsing: Data(text.utf8))
    }

    static func send(
        _ method: HTTPRequest.Method,
        _ port: Int,
        _ target: String,
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> HTTPTransportResponse {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(port)", path: target)
        for (name, value) in headers { request.headerFields[HTTPField.Name(name)!] = value }
        return try await Loopback.client.send(request, body: body.map { Data($0.utf8) })
    }

    static func googleAssertion(audience: String) throws -> String {
        let iat = Int64(Date().timeIntervalSince1970)
        return try TestJWT.rs256(
            [
                "iss": .string(TestKeys.googleEmail), "scope": "https://www.googleapis.com/auth/androidpublisher",
                "aud": .string(audience), "iat": .integer(iat), "exp": .integer(iat + 3600),
            ],
            key: TestKeys.google
        )
    }

    /// Token, purchase lookup, acknowledgement: what Google Play's adapter sends.
    static func googleSession(
        port: Int,
        assertion: String,
        purchaseToken: String,
        base: String
    ) async throws -> [HTTPTransportResponse] {
        let token = try await send(
            .post,
            port,
            "/token",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        )
        let accessToken = try json(token)["access_token"]?.stringValue ?? ""
        let bearer = ["Authorization": "Bearer \(accessToken)"]
        let lookup = try await send(.get, port, base + purchaseToken, headers: bearer)
        var jsonHeaders = bearer
        jsonHeaders["Content-Type"] = "application/json"
        let body = JSONValue.object(["purchaseToken": .string(purchaseToken), "developerPayload": "ack"]).canonicalText
        let acknowledge = try await send(
            .post,
            port,
            base + purchaseToken + ":acknowledge",
            headers: jsonHeaders,
            body: body
        )
        return [token, lookup, acknowledge]
    }

    static func appleToken() throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return try TestJWT.es256(
            [
                "iss": "57246542-96fe-1a63-e053-0824d011072a", "iat": .integer(now), "exp": .integer(now + 600),
                "aud": "appstoreconnect-v1", "bid": "dev.opencat.demo",
            ],
            kid: "MOCKKEY123",
            key: TestKeys.apple
        )
    }
}

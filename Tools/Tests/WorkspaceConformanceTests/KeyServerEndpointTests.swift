import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatCore
import OpenCatStorage
import OpenCatTesting
import Testing
import ToolsTestSupport

/// Every key-server endpoint, over loopback against MockStoresServer with the key server's bearer-token check: the
/// client sends what Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml describes and reads what it answers. The error paths (401, 429,
/// 5xx, timeout, malformed) run in the key-server section of the conformance matrix.
struct KeyServerEndpointTests {
    static let token = "kst_test_endpoints_0123"
    static let email = "ada@example.com"
    static let steamId = "76561197960287930"
    let issuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "endpoints")
    let clock = ManualClock(start: ConformanceSuite.clockStart, autoAdvance: true, holdsDuringExternalWork: true)

    func license(_ seed: Int) throws -> String {
        let plan = PlanLevel(level: 3)!
        let key = HumanKey(dataValues: (0..<11).map { UInt8((seed + $0 * 5) % 32) }, plan: plan)
        return try issuer.sign(
            LicensePayload(key: key, plan: plan, owner: Self.email, purchasedAt: ConformanceSuite.clockStart, kid: "")
        ).rawValue
    }

    func keyJSON(_ seed: Int) throws -> String {
        let payload = try SignedLicense(try license(seed)).unverifiedPayload()
        return
            #"{"keyValue":"\#(payload.key)","planType":"L3","purchaseDate":"2026-11-22T12:00:00Z","license":"\#(try license(seed))","serverMetadata":{"pack":"starter","bonus":1,"tags":["a"],"gift":null}}"#
    }

    static func interaction(_ method: String, _ path: String, request: String? = nil, _ body: String) -> String {
        """
        {"request": {"method": "\(method)", "path": "\(path)"\(request.map { ", \"json\": \($0)" } ?? "")},
         "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "json": \(body)}}
        """
    }

    @Test func everyEndpointRoundTripsOverLoopbackWithTheBearerToken() async throws {
        let purchase =
            #"{"keysAdded":2,"bonusKeys":1,"communityDonated":1,"transactionId":"kp_1","licenses":[\#(try keyJSON(1))]}"#
        let wallet =
            #"{"userId":"u1","balance":12,"unlockedFeatures":{"voiceuwu":["echo"]},"updatedAt":"2026-11-22T12:00:00Z"}"#
        let interactions = [
            Self.interaction(
                "POST",
                "/api/v1/keys/purchase/apple",
                request: #"{"transaction":"jws-apple","userEmail":"ada@example.com"}"#,
                purchase
            ),
            Self.interaction(
                "POST",
                "/api/v1/keys/purchase/google",
                request: #"{"productId":"keypack_10","purchaseToken":"tok-google","userEmail":"ada@example.com"}"#,
                purchase
            ),
            Self.interaction(
                "POST",
                "/api/v1/keys/purchase/paypal",
                request: #"{"paymentId":"ORD-1","userEmail":"ada@example.com"}"#,
                purchase
            ),
            Self.interaction(
                "POST",
                "/api/v1/keys/purchase/stripe",
                request: #"{"paymentIntentId":"pi_1","userEmail":"ada@example.com"}"#,
                purchase
            ),
            Self.interaction(
                "POST",
                "/api/v1/keys/purchase/steam",
                request: #"{"steamId":"76561197960287930","transactionId":"938473"}"#,
                purchase
            ),
            Self.interaction("GET", "/api/v1/wallet/u1", wallet),
            Self.interaction(
                "POST",
                "/api/v1/wallet/spend",
                request: #"{"amount":2,"feature":"echo","app":"voiceuwu","userId":"u1"}"#,
                #"{"remainingBalance":10,"featureUnlocked":true,"transactionId":"sp_1"}"#
            ),
            Self.interaction("POST", "/api/v1/wallet/sync", request: #"{"userId":"u1"}"#, wallet),
            Self.interaction(
                "GET",
                "/api/v1/wallet/history/u1",
                #"{"transactions":[{"kind":"purchase","id":"kp_1","amount":3,"date":"2026-11-22T12:00:00Z"},{"kind":"spend","id":"sp_1","amount":-2,"feature":"echo","app":"voiceuwu","date":"2026-11-22T12:01:00Z"}]}"#
            ),
            Self.interaction(
                "GET",
                "/api/v1/apps/voiceuwu/features",
                #"{"features":[{"id":"echo","appId":"voiceuwu","name":"Echo","cost":2}]}"#
            ),
            Self.interaction(
                "POST",
                "/api/v1/apps/voiceuwu/unlock",
                request: #"{"featureId":"echo","userId":"u1"}"#,
                #"{"featureId":"echo","unlocked":true,"remainingBalance":8,"transactionId":"ul_1"}"#
            ),
            Self.interaction("GET", "/api/v1/apps/voiceuwu/unlocked/u1", #"{"features":["echo"]}"#),
            Self.interaction(
                "POST",
                "/api/v1/community/donate",
                request: #"{"amount":1,"userId":"u1"}"#,
                #"{"donated":1,"remainingBalance":7,"poolTotal":41}"#
            ),
            Self.interaction(
                "POST",
                "/api/v1/community/share",
                request: #"{"amount":1,"recipientEmail":"bo@example.com","userId":"u1"}"#,
                #"{"shared":1,"recipientEmail":"bo@example.com","remainingBalance":6,"transactionId":"sh_1"}"#
            ),
            Self.interaction(
                "GET",
                "/api/v1/community/pool",
                #"{"totalKeys":41,"contributors":9,"updatedAt":"2026-11-22T12:00:00Z"}"#
            ),
            Self.interaction(
                "GET",
                "/api/v1/keys/email/ada%40example.com",
                #"{"userEmail":"ada@example.com","syncTimestamp":"2026-11-22T12:00:00Z","availableKeys":[\#(try keyJSON(2))]}"#
            ),
            Self.interaction(
                "GET",
                "/api/v1/keys/steam/76561197960287930",
                #"{"userEmail":"","syncTimestamp":"2026-11-22T12:00:00Z","availableKeys":[]}"#
            ),
        ]
        let cassette = try Cassette.decode(
            Data(
                """
                {"format": "opencat-cassette/1", "store": "keyserver", "scenario": "endpoints",
                 "input": {"kind": "keySync", "token": "unused"},
                 "interactions": [\(interactions.joined(separator: ","))],
                 "expect": {"outcome": "verified", "state": "active"}}
                """.utf8
            ),
            file: "endpoints.json"
        )
        let credentials = MockCredentials(keyServerToken: Secret(Self.token))
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: credentials,
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let client = KeyServerClient(
                configuration: KeyServerConfiguration(
                    baseURL: server.baseURL,
                    token: Secret(Self.token),
                    clock: clock
                )
            )
            for proof in [
                PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: "jws-apple"),
                PurchaseProof(
                    store: .google,
                    kind: .googleProductPurchaseToken,
                    token: "tok-google",
                    productId: "keypack_10"
                ),
                PurchaseProof(store: .paypal, kind: .paypalOrder, token: "ORD-1"),
            ] {
                #expect(try await client.purchaseKeyPack(proof, email: Self.email).licenses.count == 1)
            }
            let bought = try await client.purchaseKeyPack(
                PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: "pi_1"),
                email: Self.email
            )
            #expect(bought.keysAdded == 2 && bought.bonusKeys == 1 && bought.transactionId == "kp_1")
            #expect(bought.licenses.first?.serverMetadata?["tags"] == .array([.string("a")]))
            #expect(bought.licenses.first?.serverMetadata?["bonus"] == .integer(1))
            let steam = try await client.purchaseKeyPack(
                PurchaseProof(store: .steam, kind: .steamTransaction, token: "938473"),
                steamId: Self.steamId
            )
            #expect(steam.licenses.count == 1)
            #expect(try await client.walletBalance(userId: "u1").balance == 12)
            let spent = try await client.spendKeys(
                amount: 2,
                feature: "echo",
                app: "voiceuwu",
                userId: "u1",
                idempotencyKey: "spend-1"
            )
            #expect(spent.remainingBalance == 10 && spent.featureUnlocked)
            #expect(try await client.syncWallet(userId: "u1").unlockedFeatures["voiceuwu"] == ["echo"])
            #expect(try await client.walletHistory(userId: "u1").map(\.amount) == [3, -2])
            #expect(try await client.appFeatures(appId: "voiceuwu").first?.cost == 2)
            let unlocked = try await client.unlockFeature(
                featureId: "echo",
                appId: "voiceuwu",
                userId: "u1",
                idempotencyKey: "unlock-1"
            )
            #expect(unlocked.unlocked && unlocked.remainingBalance == 8)
            #expect(try await client.unlockedFeatures(appId: "voiceuwu", userId: "u1") == ["echo"])
            #expect(try await client.donateKeys(amount: 1, userId: "u1", idempotencyKey: "donate-1").poolTotal == 41)
            #expect(
                try await client.shareKeys(
                    amount: 1,
                    recipientEmail: "bo@example.com",
                    userId: "u1",
                    idempotencyKey: "share-1"
                ).remainingBalance == 6
            )
            #expect(try await client.communityPool().contributors == 9)
            #expect(try await client.keys(email: Self.email).availableKeys.count == 1)
            #expect(try await client.keys(steamId: Self.steamId).availableKeys.isEmpty)
            try server.verify()
            // Every request carried the bearer token; purchases and spends an idempotency key, hashed.
            for exchange in server.exchanges {
                #expect(exchange.request.headers[.authorization] == "Bearer \(Self.token)")
            }
            // The client and the mock agree with Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml: every operation it lists was called,
            // and every call is one it lists.
            let operations = try Self.openAPIOperations()
            var called: Set<String> = []
            for exchange in server.exchanges {
                let match = operations.first { operation in
                    operation.method == exchange.request.method
                        && exchange.request.path.wholeMatch(of: operation.pattern) != nil
                }
                #expect(
                    match != nil,
                    "\(exchange.request.method) \(exchange.request.path) is not in the OpenAPI document"
                )
                if let match { called.insert(match.name) }
            }
            #expect(called == Set(operations.map(\.name)))
            #expect(operations.count == 17)
            let keyed = server.exchanges.filter { $0.request.method == "POST" }
            #expect(keyed.allSatisfy { ($0.request.headers[HTTPField.Name("Idempotency-Key")!]?.count ?? 0) == 64 })
        }
    }

    @Test func badInputIsRefusedBeforeAnyRequest() async throws {
        let transport = ScriptedTransport()
        let client = KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: URL(string: "https://keys.example.test")!,
                token: "t",
                transport: transport,
                clock: clock
            )
        )
        for email in ["", "ada", "ada@", "@example.com", "a b@example.com", "ada@example"] {
            await #expect(throws: KeyServerError.self) { try await client.keys(email: email) }
        }
        await #expect(throws: KeyServerError.self) { try await client.keys(steamId: "7656x") }
        await #expect(throws: KeyServerError.self) {
            try await client.purchaseKeyPack(PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: "pi"))
        }
        await #expect(throws: KeyServerError.self) {
            try await client.spendKeys(amount: 0, feature: "f", app: "a", userId: "u", idempotencyKey: "k")
        }
        #expect(transport.requests.isEmpty)
    }

    /// The operations of Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml: method, path template, and the template as a pattern.
    static func openAPIOperations() throws -> [(method: String, name: String, pattern: Regex<Substring>)] {
        let root = TestEnvironment.repositoryRoot
        let text = try String(
            contentsOf: root.appendingPathComponent("Tools/server/OpenCatServer/Resources/keyserver.openapi.yaml"),
            encoding: .utf8
        )
        var operations: [(String, String, Regex<Substring>)] = []
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let current = path, let method = ["get", "post"].first(where: { line == "    \($0):" }) {
                let template = current.replacing(#/\{[^}]+\}/#, with: "[^/]+")
                operations.append((method.uppercased(), "\(method.uppercased()) \(current)", try Regex(template)))
            } else if !line.hasPrefix(" ") {
                path = nil
            }
        }
        return operations
    }
}

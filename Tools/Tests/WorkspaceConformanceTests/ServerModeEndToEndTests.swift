import Crypto
import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCat
import OpenCatConformance
import OpenCatCore
import OpenCatTesting
import Testing

/// OpenCatCore in server mode against the OpenCat server API served by MockStores over real loopback HTTP, with
/// purchases made through MockStores' in-process store.
struct ServerModeEndToEndTests {
    static let apiKey = "ocat_test_e2e_\(UUID().uuidString.prefix(8))"
    static let product = "dev.opencat.auralogic.pro.yearly"
    static let user = "player-42"

    static func subscriber(transactions: String = "") -> String {
        """
        {"requestDate": "2026-11-22T12:00:00.000Z", "subscriber": {"appUserId": "\(user)",
         "firstSeenAt": "2026-11-01T00:00:00.000Z", "transactions": [\(transactions)],
         "entitlementMap": {"\(product)": ["pro"]}}}
        """
    }

    static let purchased = """
        {"transactionId": "2000000000777001", "productId": "\(product)", "store": "apple",
         "purchaseDate": "2026-11-22T12:00:00.000Z", "expirationDate": "2027-11-22T12:00:00.000Z",
         "status": "active", "willRenew": true}
        """

    static func cassette(_ interactions: String) throws -> Cassette {
        let json = """
            {"format": "opencat-cassette/1", "store": "opencat", "scenario": "server-mode",
             "input": {"kind": "appleTransactionId", "token": "unused"},
             "interactions": [\(interactions)], "expect": {"outcome": "verified", "state": "active"}}
            """
        return try Cassette.decode(Data(json.utf8), file: "server-mode.json")
    }

    static func interaction(_ method: String, _ path: String, body: String, times: Int = 1, fault: String? = nil)
        -> String
    {
        """
        {"request": {"method": "\(method)", "path": "\(path)"}, "times": \(times),
         "response": {"status": 200, "json": \(body)}\(fault.map { ", \"fault\": \($0)" } ?? "")}
        """
    }

    struct Harness {
        let clock = ManualClock(start: ConformanceSuite.clockStart, autoAdvance: true, holdsDuringExternalWork: true)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-e2e-\(UUID().uuidString)"
        )
        let key = StaticKeyProvider(key: SymmetricKey(size: .bits256))
        let store: MockStoreClient

        init() {
            store = MockStoreClient(
                store: .apple,
                products: [
                    Product(
                        id: ServerModeEndToEndTests.product,
                        store: .apple,
                        type: .autoRenewable,
                        displayName: "Pro Yearly",
                        price: Money(minorUnits: 2999, currency: "USD"),
                        subscriptionPeriod: "P1Y"
                    )
                ],
                clock: clock
            )
        }

        func sdk(_ server: MockStoreServer) throws -> OpenCat {
            try OpenCat(
                mode: .server(serverURL: server.baseURL, apiKey: Secret(ServerModeEndToEndTests.apiKey)),
                appUserId: ServerModeEndToEndTests.user,
                storeClient: store,
                options: .init(
                    cacheDirectory: directory,
                    keyProvider: key,
                    clock: clock,
                    retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                    requestTimeout: .seconds(10)
                )
            )
        }
    }

    static var credentials: MockCredentials {
        var credentials = MockCredentials()
        credentials.openCatAPIKey = Secret(apiKey)
        return credentials
    }

    @Test func aPurchasePostsItsProofAndFlipsTheEntitlement() async throws {
        let harness = Harness()
        let cassette = try Self.cassette(
            [
                Self.interaction("POST", "/v1/receipts", body: Self.subscriber(transactions: Self.purchased)),
                Self.interaction(
                    "GET",
                    "/v1/subscribers/\(Self.user)",
                    body: Self.subscriber(transactions: Self.purchased),
                    times: 3
                ),
            ].joined(separator: ",")
        )
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: Self.credentials,
            clock: harness.clock,
            remoteTime: .sharedClock { harness.clock.advance(by: $0) }
        ) { server in
            let sdk = try harness.sdk(server)
            var updates = sdk.customerInfoUpdates.makeAsyncIterator()
            #expect(await updates.next()?.isEntitled("pro") == false)
            let result = try await sdk.purchase(productID: Self.product)
            #expect(result.status == .completed)
            #expect(sdk.isEntitled("pro"))
            #expect(await updates.next()?.isEntitled("pro") == true)
            let post = try #require(server.receivedRequests.first { $0.method == "POST" })
            let body = String(decoding: post.body, as: UTF8.self)
            #expect(body.contains("mock_apple_"))
            #expect(post.headers[values: .init("Idempotency-Key")!].count == 1)
            #expect(harness.store.finishedTransactions.count == 1)
            #expect(server.unmatchedRequests.isEmpty)
            await sdk.shutdown()
        }
    }

    @Test func anOfflinePurchaseIsPostedOnceOnReconnectAfterARestart() async throws {
        let harness = Harness()
        let cassette = try Self.cassette(
            [
                Self.interaction("POST", "/v1/receipts", body: "{}", times: 2, fault: #"{"kind": "reset"}"#),
                Self.interaction("POST", "/v1/receipts", body: Self.subscriber(transactions: Self.purchased)),
                Self.interaction(
                    "GET",
                    "/v1/subscribers/\(Self.user)",
                    body: Self.subscriber(transactions: Self.purchased),
                    times: 5
                ),
            ].joined(separator: ",")
        )
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: Self.credentials,
            clock: harness.clock,
            remoteTime: .sharedClock { harness.clock.advance(by: $0) }
        ) { server in
            do {
                let sdk = try harness.sdk(server)
                #expect(try await sdk.purchase(productID: Self.product).status == .awaitingSync)
                #expect(!sdk.isEntitled("pro"))
                #expect(harness.store.finishedTransactions.isEmpty)
                await sdk.shutdown()
            }
            let restarted = try harness.sdk(server)
            #expect(await restarted.syncPendingPurchases().delivered == 1)
            #expect(restarted.isEntitled("pro"))
            #expect(await restarted.syncPendingPurchases().delivered == 0)
            _ = await restarted.customerInfo()
            #expect(server.receivedRequests.filter { $0.method == "POST" }.count == 3)  // 2 resets + 1 delivered
            #expect(server.unmatchedRequests.isEmpty, "\(server.unmatchedRequests)")
            #expect(harness.store.finishedTransactions.count == 1)
            await restarted.shutdown()
        }
    }

    @Test func serverErrorsKeepCachedEntitlementsWorking() async throws {
        let harness = Harness()
        let cassette = try Self.cassette(
            [
                Self.interaction("POST", "/v1/receipts", body: Self.subscriber(transactions: Self.purchased)),
                Self.interaction(
                    "GET",
                    "/v1/subscribers/\(Self.user)",
                    body: "{}",
                    times: 2,
                    fault: #"{"kind": "serverError", "status": 503}"#
                ),
            ].joined(separator: ",")
        )
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            credentials: Self.credentials,
            clock: harness.clock,
            remoteTime: .sharedClock { harness.clock.advance(by: $0) }
        ) { server in
            let sdk = try harness.sdk(server)
            _ = try await sdk.purchase(productID: Self.product)
            let info = await sdk.customerInfo()
            #expect(info.isEntitled("pro"))
            #expect(sdk.isEntitled("pro"))
            #expect(server.receivedRequests.filter { $0.method == "GET" }.count == 2)
            await sdk.shutdown()
        }
    }
}

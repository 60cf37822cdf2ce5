import Foundation
import HTTPTypes
import KeyServerClient
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import Testing

/// The key server's money paths against a live server: idempotency keys bound to one operation and body (and
/// compared without case), authentication before validation, the wallet history paged with a cursor, store-backed
/// endpoints rate-limited, refunded licenses revoked offline through key sync, stores without refunds named.
struct ServerMoneyPathTests {
    let keys = ServerKeyServerTests()

    struct Answer {
        var status: Int
        var json: [String: Any]
        var headers: HTTPFields
    }

    func call(
        _ url: URL,
        _ method: HTTPRequest.Method,
        _ path: String,
        user: Int? = nil,
        idempotencyKey: String? = nil,
        body: Any? = nil
    ) async throws -> Answer {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(url.port!)", path: path)
        if let user { request.headerFields[.authorization] = "Bearer \(ServerFixture.token(user))" }
        if let idempotencyKey { request.headerFields[HTTPField.Name("Idempotency-Key")!] = idempotencyKey }
        var data = Data()
        if let body {
            request.headerFields[.contentType] = "application/json"
            if let raw = body as? Data { data = raw } else { data = try JSONSerialization.data(withJSONObject: body) }
        }
        let response = try await ServerKeyServerTests.transport.send(request, body: data)
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return Answer(status: response.head.status.code, json: json, headers: response.head.headerFields)
    }

    /// user-1 buys a pack of 12 keys (10 + 2 bonus) with an App Store transaction.
    func buyPack(_ fixture: ServerFixture, _ url: URL, id: String = "4000000000000500") async throws {
        _ = try await keys.client(url, user: 1).purchaseKeyPack(
            PurchaseProof(
                store: .apple,
                kind: .appleSignedTransaction,
                token: Secret(fixture.appleTransaction(id: id))
            ),
            email: "user1@example.com"
        )
    }

    @Test(arguments: Backend.allCases)
    func aSpendsIdempotencyKeyReusedForADonateAnswers409AndMovesNothing(_ backend: Backend) async throws {
        try await keys.withServer(backend) { fixture, urls in
            try await buyPack(fixture, urls[0])
            let spend: [String: Any] = ["amount": 2, "feature": "tts", "app": "voiceuwu", "userId": "user-1"]
            let first = try await call(
                urls[0],
                .post,
                "/api/v1/wallet/spend",
                user: 1,
                idempotencyKey: "Key-1",
                body: spend
            )
            #expect(first.status == 200 && first.json["remainingBalance"] as? Int == 10)
            let donate = try await call(
                urls[0],
                .post,
                "/api/v1/community/donate",
                user: 1,
                idempotencyKey: "key-1",
                body: ["amount": 2, "userId": "user-1"]
            )
            #expect(donate.status == 409)
            #expect((donate.json["error"] as? [String: Any])?["code"] as? String == "idempotency_conflict")
            let unlock = try await call(
                urls[0],
                .post,
                "/api/v1/apps/voiceuwu/unlock",
                user: 1,
                idempotencyKey: "KEY-1",
                body: ["featureId": "echo", "userId": "user-1"]
            )
            #expect(unlock.status == 409)
            // A retry that only changes the key's case is the same spend, not a second one.
            let retry = try await call(
                urls[0],
                .post,
                "/api/v1/wallet/spend",
                user: 1,
                idempotencyKey: "KEY-1",
                body: spend
            )
            #expect(
                retry.status == 200 && retry.json["transactionId"] as? String == first.json["transactionId"] as? String
            )
            // The same key with another body is a conflict too.
            var other = spend
            other["amount"] = 3
            #expect(
                try await call(urls[0], .post, "/api/v1/wallet/spend", user: 1, idempotencyKey: "key-1", body: other)
                    .status == 409
            )
            #expect(try await keys.client(urls[0], user: 1).walletBalance(userId: "user-1").balance == 10)
            #expect(try await keys.client(urls[0], user: 1).communityPool().totalKeys == 1)
            // Keys are 1…255 visible ASCII characters.
            let badKey = try await call(
                urls[0],
                .post,
                "/api/v1/wallet/spend",
                user: 1,
                idempotencyKey: "has space",
                body: spend
            )
            #expect(badKey.status == 400)
        }
    }

    @Test func authenticationRunsBeforeBodyValidation() async throws {
        try await keys.withServer(.sqlite) { _, urls in
            for path in ["/api/v1/wallet/spend", "/api/v1/community/donate", "/api/v1/community/share"] {
                let anonymous = try await call(urls[0], .post, path, body: Data("{not json".utf8))
                #expect(anonymous.status == 401, "\(path)")
            }
            let anonymousPurchase = try await call(urls[0], .post, "/api/v1/keys/purchase/apple", body: Data("[".utf8))
            #expect(anonymousPurchase.status == 401)
            let signedIn = try await call(
                urls[0],
                .post,
                "/api/v1/wallet/spend",
                user: 1,
                idempotencyKey: "k",
                body: Data("{".utf8)
            )
            #expect(signedIn.status == 400)
        }
    }

    @Test(arguments: Backend.allCases)
    func aWalletWith1723EntriesPagesThroughAllOfThemOverHTTP(_ backend: Backend) async throws {
        try await keys.withServer(backend) { fixture, urls in
            _ = try await fixture.ledger.redeem(
                store: "stripe",
                transactionId: "pi_many",
                userId: "user-1",
                amount: 5_000
            )
            for index in 0..<1_722 {
                _ = try await fixture.ledger.spend(
                    userId: "user-1",
                    amount: 1,
                    kind: "spend",
                    reference: "tts",
                    app: "voiceuwu",
                    idempotencyKey: "k\(index)"
                )
            }
            var ids: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = cursor.map { "&cursor=\($0)" } ?? ""
                let page = try await call(urls[0], .get, "/api/v1/wallet/history/user-1?limit=1000\(query)", user: 1)
                #expect(page.status == 200)
                ids += (page.json["transactions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                cursor = page.json["nextCursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(ids.count == 1_723 && Set(ids).count == 1_723 && pages == 2)
            // KeyServerClient follows the cursors.
            #expect(try await keys.client(urls[0], user: 1).walletHistory(userId: "user-1").count == 1_723)
            #expect(try await call(urls[0], .get, "/api/v1/wallet/history/user-1?cursor=zzz", user: 1).status == 400)
            #expect(try await call(urls[0], .get, "/api/v1/wallet/history/user-1?limit=0", user: 1).status == 400)
            // Another user's history stays closed.
            #expect(try await call(urls[0], .get, "/api/v1/wallet/history/user-1", user: 2).status == 403)
        }
    }

    @Test func purchasesAndReceiptsAreRateLimitedPerUserWithRetryAfter() async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await keys.withServer(
            .sqlite,
            clock: clock,
            configure: { ledger, clock in
                try ServerFixture(ledger: ledger, clock: clock, storeRateLimit: RateLimit(requests: 2, seconds: 60))
            }
        ) { fixture, urls in
            var statuses: [Int] = []
            var retryAfter: String?
            for index in 0..<3 {
                let answer = try await call(
                    urls[0],
                    .post,
                    "/api/v1/keys/purchase/apple",
                    user: 1,
                    body: ["transaction": fixture.appleTransaction(id: "40000000000006\(index)0")]
                )
                statuses.append(answer.status)
                retryAfter = answer.headers[.retryAfter]
            }
            #expect(statuses == [200, 200, 429])
            #expect(retryAfter.flatMap(Int.init).map { $0 > 0 } == true)
            // Another user has a budget of their own; the same user again after the window.
            let other = try await call(
                urls[0],
                .post,
                "/api/v1/keys/purchase/apple",
                user: 2,
                body: ["transaction": fixture.appleTransaction(id: "4000000000000700")]
            )
            #expect(other.status == 200)
            var receipts: [Int] = []
            for _ in 0..<3 {
                var request = HTTPRequest(
                    method: .post,
                    scheme: "http",
                    authority: "127.0.0.1:\(urls[0].port!)",
                    path: "/v1/receipts"
                )
                request.headerFields[.authorization] = "Bearer \(ServerFixture.apiKey)"
                request.headerFields[.contentType] = "application/json"
                let body = try JSONSerialization.data(withJSONObject: [
                    "appUserId": "app-user-7", "store": "apple", "kind": "appleSignedTransaction",
                    "proof": fixture.appleTransaction(id: "5000000000000777", productId: ServerFixture.proProduct),
                ])
                receipts.append(try await ServerKeyServerTests.transport.send(request, body: body).head.status.code)
            }
            #expect(receipts == [200, 200, 429])
        }
    }

    @Test(arguments: Backend.allCases)
    func aPurchasesIdempotencyKeyIsBoundToItsBody(_ backend: Backend) async throws {
        try await keys.withServer(backend) { fixture, urls in
            let first = ["transaction": fixture.appleTransaction(id: "4000000000000800")]
            let bought = try await call(
                urls[0],
                .post,
                "/api/v1/keys/purchase/apple",
                user: 1,
                idempotencyKey: "buy-1",
                body: first
            )
            #expect(bought.status == 200)
            let replay = try await call(
                urls[0],
                .post,
                "/api/v1/keys/purchase/apple",
                user: 1,
                idempotencyKey: "BUY-1",
                body: first
            )
            #expect(replay.status == 200)
            let other = ["transaction": fixture.appleTransaction(id: "4000000000000801")]
            let conflict = try await call(
                urls[0],
                .post,
                "/api/v1/keys/purchase/apple",
                user: 1,
                idempotencyKey: "buy-1",
                body: other
            )
            #expect(conflict.status == 409)
            #expect(try await keys.client(urls[0], user: 1).walletBalance(userId: "user-1").balance == 12)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundedLicenseIsRevokedOfflineThroughKeySync(_ backend: Backend) async throws {
        try await keys.withServer(backend) { fixture, urls in
            let ada = keys.client(urls[0], user: 1)
            let bought = try await ada.purchaseKeyPack(
                PurchaseProof(
                    store: .apple,
                    kind: .appleSignedTransaction,
                    token: Secret(fixture.appleTransaction(id: "4000000000000900"))
                ),
                email: "user1@example.com"
            )
            let license = try #require(bought.licenses.first)
            let publicKeys = fixture.keyring.issuers.mapValues(\.publicKey)
            let verifier = LicenseVerifier(keys: publicKeys)
            _ = try verifier.verify(license.license, at: fixture.clock.now)
            let before = try await ada.keys(email: "user1@example.com")
            // Every sync renews the licenses' offline window (30 days by default): a device that never syncs again
            // stops trusting the license bought, one that syncs keeps a renewed one.
            let synced = try #require(before.availableKeys.first { $0.keyValue == license.keyValue })
            let window = try #require(try verifier.verify(synced.license, at: fixture.clock.now).payload.offlineUntil)
            #expect(abs(window.timeIntervalSince(fixture.clock.now) - 30 * 86_400) < 1)
            #expect(throws: LicenseError.expired) {
                try verifier.verify(license.license, at: fixture.clock.now.addingTimeInterval(31 * 86_400))
            }
            let emptyList = try LicenseRevocationList(try #require(before.revocations), keys: publicKeys)
            #expect(!emptyList.revokes(license.keyValue))

            let refund = try fixture.appleNotification(
                type: "REFUND",
                uuid: "b1b2c3d4-0000-0000-0000-000000000009",
                transaction: fixture.appleTransaction(
                    id: "4000000000000900",
                    revoked: ServerFixture.signedDate.addingTimeInterval(-1)
                )
            )
            #expect(try await call(urls[0], .post, "/v1/notifications/apple", body: refund).status == 200)
            let after = try await ada.keys(email: "user1@example.com")
            #expect(after.availableKeys.isEmpty)
            let list = try LicenseRevocationList(try #require(after.revocations), keys: publicKeys)
            #expect(list.revokes(license.keyValue) && list.serial > emptyList.serial)
            #expect(throws: LicenseError.revoked) {
                try verifier.verify(license.license, at: fixture.clock.now, revocations: list)
            }
        }
    }

    @Test func readyNamesTheStoresWhoseRefundsNeverReachTheServer() async throws {
        let stripe = StripeAdapter(
            configuration: .init(
                secretKey: Secret("sk_test_ready"),
                baseURL: URL(string: "https://api.stripe.test")!,
                httpClient: HTTPClient(transport: ScriptedTransport())
            )
        )
        try await keys.withServer(
            .sqlite,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, stores: [stripe]) }
        ) { _, urls in
            let ready = try await call(urls[0], .get, "/ready")
            #expect(ready.status == 200)
            #expect(ready.json["refundsNotReceivedFrom"] as? [String] == ["stripe"])
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenCatCore
import OpenCatServer
import Testing

/// The OpenCat API on both backends: receipts verified by StoreAdapters and owned by one user, customer info with
/// the entitlement map, offerings, App Store notifications applied once (renewals extend, refunds revoke).
struct ServerOpenCatAPITests {
    func post(
        _ client: some TestClientProtocol,
        _ path: String,
        _ object: [String: Any],
        key: String = ServerFixture.apiKey
    )
        async throws -> (HTTPResponse.Status, [String: Any])
    {
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await client.execute(
            uri: path,
            method: .post,
            headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
            body: ByteBuffer(bytes: body)
        ) { response in
            (
                response.status,
                (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))) as? [String: Any]
                    ?? [:]
            )
        }
    }

    func get(_ client: some TestClientProtocol, _ path: String, key: String = ServerFixture.apiKey) async throws
        -> (HTTPResponse.Status, [String: Any])
    {
        try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(key)"]) { response in
            (
                response.status,
                (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))) as? [String: Any]
                    ?? [:]
            )
        }
    }

    func transactions(_ answer: [String: Any]) -> [[String: Any]] {
        ((answer["subscriber"] as? [String: Any])?["transactions"] as? [[String: Any]]) ?? []
    }

    @Test(arguments: Backend.allCases)
    func receiptsCustomerInfoOfferingsAndNotifications(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock)
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let month = ServerFixture.signedDate.addingTimeInterval(30 * 86_400)
                let first = fixture.appleTransaction(
                    id: "5000000000000001",
                    productId: ServerFixture.proProduct,
                    expires: month
                )
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "apple", "kind": "appleSignedTransaction", "proof": first,
                ]
                #expect(try await post(client, "/v1/receipts", receipt, key: "ocat_wrong").0 == .unauthorized)
                let (status, answer) = try await post(client, "/v1/receipts", receipt)
                #expect(status == .ok)
                #expect(transactions(answer).count == 1)
                #expect(transactions(answer).first?["status"] as? String == "active")
                let map = (answer["subscriber"] as? [String: Any])?["entitlementMap"] as? [String: [String]]
                #expect(map == [ServerFixture.proProduct: ["pro"]])
                // Posting it again changes nothing; another user cannot claim it.
                #expect(try await post(client, "/v1/receipts", receipt).0 == .ok)
                var stolen = receipt
                stolen["appUserId"] = "app-user-2"
                let (stolenStatus, stolenAnswer) = try await post(client, "/v1/receipts", stolen)
                #expect(stolenStatus == .unprocessableContent)
                #expect((stolenAnswer["error"] as? [String: Any])?["code"] as? String == "receipt_in_use")
                // A forged or cross-app proof is refused with the shared code.
                var forged = receipt
                forged["proof"] = fixture.appleTransaction(id: "5000000000000009", signer: fixture.otherCA)
                let (forgedStatus, forgedAnswer) = try await post(client, "/v1/receipts", forged)
                #expect(forgedStatus == .unprocessableContent)
                #expect((forgedAnswer["error"] as? [String: Any])?["code"] as? String == "invalid_receipt")
                var crossApp = receipt
                crossApp["proof"] = fixture.appleTransaction(id: "5000000000000010", bundleId: "com.other")
                let (_, crossAnswer) = try await post(client, "/v1/receipts", crossApp)
                #expect((crossAnswer["error"] as? [String: Any])?["reason"] as? String == "wrongApplication")

                // A renewal notification adds the next period for the owner, once.
                let renewal = fixture.appleTransaction(
                    id: "5000000000000002",
                    productId: ServerFixture.proProduct,
                    originalId: "5000000000000001",
                    expires: month.addingTimeInterval(30 * 86_400),
                    purchaseDate: month,
                    signed: month.addingTimeInterval(60)
                )
                clock.advance(30 * 86_400 + 120)
                let notification = try fixture.appleNotification(
                    type: "DID_RENEW",
                    uuid: "uuid-renew-1",
                    transaction: renewal,
                    signed: month.addingTimeInterval(60)
                )
                for applied in [true, false] {
                    try await client.execute(
                        uri: "/v1/notifications/apple",
                        method: .post,
                        headers: [.contentType: "application/json"],
                        body: ByteBuffer(bytes: notification)
                    ) { response in
                        #expect(response.status == .ok)
                        #expect(String(buffer: response.body).contains("\"applied\":\(applied)"))
                    }
                }
                let (_, renewed) = try await get(client, "/v1/subscribers/app-user-1", key: ServerFixture.secretKey)
                #expect(
                    transactions(renewed).map { $0["transactionId"] as? String } == [
                        "5000000000000002", "5000000000000001",
                    ]
                )
                #expect(renewed["requestDate"] as? String != nil)

                // A refund notification marks the transaction refunded.
                let refunded = fixture.appleTransaction(
                    id: "5000000000000002",
                    productId: ServerFixture.proProduct,
                    originalId: "5000000000000001",
                    expires: month.addingTimeInterval(30 * 86_400),
                    revoked: month.addingTimeInterval(100),
                    purchaseDate: month,
                    signed: month.addingTimeInterval(110)
                )
                let refund = try fixture.appleNotification(
                    type: "REFUND",
                    uuid: "uuid-refund-1",
                    transaction: refunded,
                    signed: month.addingTimeInterval(110)
                )
                try await client.execute(
                    uri: "/v1/notifications/apple",
                    method: .post,
                    headers: [.contentType: "application/json"],
                    body: ByteBuffer(bytes: refund)
                ) { response in #expect(response.status == .ok) }
                let (_, afterRefund) = try await get(client, "/v1/subscribers/app-user-1", key: ServerFixture.secretKey)
                #expect(transactions(afterRefund).first?["status"] as? String == "refunded")
                // The public app key (in every copy of the app) sees what grants access now, never the history.
                let (_, visible) = try await get(client, "/v1/subscribers/app-user-1")
                #expect(transactions(visible).allSatisfy { $0["status"] as? String != "refunded" })
                #expect(transactions(visible).allSatisfy { $0["purchaser"] == nil })
                #expect(transactions(visible).count < transactions(afterRefund).count)

                // The pre-refund proof posted again cannot revive the refunded transaction.
                let oldProof: [String: Any] = [
                    "appUserId": "app-user-1", "store": "apple", "kind": "appleSignedTransaction",
                    "proof": renewal,
                ]
                let (revivedStatus, revived) = try await post(client, "/v1/receipts", oldProof)
                #expect(revivedStatus == .unprocessableContent)
                #expect((revived["error"] as? [String: Any])?["code"] as? String == "refunded")
                let (_, stillRefunded) = try await get(
                    client,
                    "/v1/subscribers/app-user-1",
                    key: ServerFixture.secretKey
                )
                #expect(transactions(stillRefunded).first?["status"] as? String == "refunded")

                // A user never seen is created empty; offerings answer with the server's clock.
                let (_, fresh) = try await get(client, "/v1/subscribers/app-user-9")
                #expect(transactions(fresh).isEmpty)
                let (offeringsStatus, offerings) = try await get(client, "/v1/offerings?appUserId=app-user-1")
                #expect(offeringsStatus == .ok)
                #expect((offerings["offerings"] as? [String: Any])?["currentOfferingId"] as? String == "default")
            }
        }
    }

    /// App Store notifications are applied in Apple's order (`signedDate`), not in arrival order: a `DID_RENEW`
    /// retried after `EXPIRED` leaves the subscription expired, though it is a new event and is marked applied.
    @Test(arguments: Backend.allCases)
    func anAppleDidRenewReplayedAfterExpiredLeavesTheSubscriptionExpired(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock)
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let month = ServerFixture.signedDate.addingTimeInterval(30 * 86_400)
                let id = "5000000000000101"
                let first = fixture.appleTransaction(id: id, productId: ServerFixture.proProduct, expires: month)
                let receipt: [String: Any] = [
                    "appUserId": "app-user-1", "store": "apple", "kind": "appleSignedTransaction", "proof": first,
                ]
                #expect(try await post(client, "/v1/receipts", receipt).0 == .ok)
                clock.advance(30 * 86_400 + 3_600)
                func deliver(_ type: String, _ uuid: String, expires: Date, signed: Date) async throws {
                    let transaction = fixture.appleTransaction(
                        id: id,
                        productId: ServerFixture.proProduct,
                        expires: expires,
                        signed: signed
                    )
                    let body = try fixture.appleNotification(
                        type: type,
                        uuid: uuid,
                        transaction: transaction,
                        signed: signed
                    )
                    try await client.execute(
                        uri: "/v1/notifications/apple",
                        method: .post,
                        headers: [.contentType: "application/json"],
                        body: ByteBuffer(bytes: body)
                    ) { response in #expect(response.status == .ok, "\(type)") }
                }
                func status() async throws -> String? {
                    let (_, answer) = try await get(client, "/v1/subscribers/app-user-1", key: ServerFixture.secretKey)
                    return transactions(answer).first?["status"] as? String
                }
                try await deliver("EXPIRED", "uuid-expired", expires: month, signed: month.addingTimeInterval(3_600))
                #expect(try await status() == "expired")
                // Signed a day before the expiry (when Apple still reported it renewing), delivered after.
                try await deliver(
                    "DID_RENEW",
                    "uuid-renew-late",
                    expires: month.addingTimeInterval(30 * 86_400),
                    signed: month.addingTimeInterval(-86_400)
                )
                #expect(try await status() == "expired")
            }
        }
    }

    /// Receipt limits no stranger can turn against a buyer: per app user and per client address, under a per-key
    /// ceiling that 1,000 installs posting at once never reach. The public key is in every copy of the app.
    @Test(arguments: Backend.allCases)
    func receiptLimitsArePerAppUserAndClientUnderAKeyCeilingNoAppReaches(_ backend: Backend) async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(
                ledger: stores[0],
                clock: clock,
                storeRateLimit: RateLimit(requests: 30, seconds: 60)
            ) { settings in settings.clientAddressHeader = "X-Forwarded-For" }
            let app = Application(router: fixture.server.router())
            try await app.test(.router) { client in
                let expires = ServerFixture.signedDate.addingTimeInterval(30 * 86_400)
                @Sendable func post(_ user: String, _ number: Int, from address: String) async throws
                    -> HTTPResponse.Status
                {
                    let receipt: [String: Any] = [
                        "appUserId": user, "store": "apple", "kind": "appleSignedTransaction",
                        "proof": fixture.appleTransaction(
                            id: String(6_000_000_000_000_000 + number),
                            productId: ServerFixture.proProduct,
                            expires: expires
                        ),
                    ]
                    return try await client.execute(
                        uri: "/v1/receipts",
                        method: .post,
                        headers: [
                            .authorization: "Bearer \(ServerFixture.apiKey)", .contentType: "application/json",
                            HTTPField.Name("X-Forwarded-For")!: "\(address), 10.0.0.1",
                        ],
                        body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: receipt))
                    ) { $0.status }
                }
                // Forty app users from one address, then another user's receipt: none refused by a limit.
                for number in 0..<40 { #expect(try await post("office-\(number)", number, from: "203.0.113.9") == .ok) }
                #expect(try await post("buyer", 40, from: "198.51.100.1") == .ok)
                #expect(try await post("buyer-2", 41, from: "203.0.113.9") == .ok)
                // One app user past its own limit is refused alone.
                var statuses: [HTTPResponse.Status] = []
                for number in 42..<77 { statuses.append(try await post("busy", number, from: "198.51.100.2")) }
                #expect(statuses.filter { $0 == .ok }.count == 30 && statuses.last == .tooManyRequests)
                #expect(try await post("calm", 77, from: "198.51.100.2") == .ok)
                // A thousand installs at once, each from its own address: no 429.
                let codes = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    var codes: [HTTPResponse.Status] = []
                    for install in 0..<1_000 {
                        group.addTask {
                            try await post(
                                "install-\(install)",
                                1_000 + install,
                                from: "10.1.\(install / 250).\(install % 250)"
                            )
                        }
                        if install >= 8, let code = try await group.next() { codes.append(code) }
                    }
                    for try await code in group { codes.append(code) }
                    return codes
                }
                #expect(codes.count == 1_000 && codes.allSatisfy { $0 == .ok })
                #expect(!codes.contains(.tooManyRequests))
            }
        }
    }
}

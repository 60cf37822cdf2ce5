import ChippiPayClient
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StarknetCrypto
import Testing

let apiKey = "pk_dev_ABCDEFGHIJKLMNOP0123"
let secretKey = "sk_dev_QRSTUVWXYZ987654321"

func makeClient(
    _ transport: ScriptedTransport,
    clock: ManualClock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true),
    logs: LogCapture? = nil
)
    -> ChippiPayClient
{
    var configuration = ChippiPayConfiguration(
        baseURL: URL(string: "https://api.chipipay.test/v1")!,
        apiKey: Secret(apiKey),
        bearerToken: Secret(secretKey)
    )
    if let logs { configuration.logger = logs.logger }
    var http = HTTPClient(
        transport: transport,
        retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
        clock: clock
    )
    if let logs { http.logger = logs.logger }
    return ChippiPayClient(configuration: configuration, http: http)
}

@Suite struct ChippiPayClientTests {
    @Test func requestsCarryKeysInHeadersAndTheAPIVersionOnEveryCall() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/v1/skus",
            exact: true,
            json:
                #"{"data":[{"id":"sku-1","name":"Telcel 50 MXN","fixedAmount":50.10,"currency":"MXN"}],"total":31,"page":2,"limit":10,"totalPages":4}"#
        )
        let page = try await makeClient(transport).skus(page: 2, limit: 10)
        #expect(page.data.first?.fixedAmount == Decimal(string: "50.10"))
        #expect(page.totalPages == 4 && page.total == 31 && page.page == 2)
        let request = try #require(transport.requests.first?.request)
        #expect(request.headerFields[HTTPField.Name("x-api-key")!] == apiKey)
        #expect(request.headerFields[.authorization] == "Bearer \(secretKey)")
        let target = request.path ?? ""
        #expect(target.contains("__chipi_api_version=2025-12-30"))
        #expect(target.contains("page=2") && target.contains("limit=10"))
        #expect(!target.contains(apiKey) && !target.contains(secretKey))
    }

    @Test func paginationIsValidatedAndTheSDKsSnakeCaseAndBareArraysAreRead() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/skus", times: 1, json: #"{"data":[],"total":0,"page":1,"limit":5,"total_pages":7}"#)
        transport.on(.get, "/v1/skus", times: 1, json: #"[{"id":"a","name":"A"},{"id":"b","name":"B"}]"#)
        let client = makeClient(transport)
        #expect(try await client.skus(limit: 5).totalPages == 7)
        #expect(try await client.skus().data.map(\.id) == ["a", "b"])
        await #expect(throws: ChippiPayError.self) { try await client.skus(page: 0) }
        await #expect(throws: ChippiPayError.self) { try await client.skus(limit: 101) }
    }

    @Test(arguments: [
        (401, #"{"statusCode":401,"message":"Invalid API key","code":"INVALID_API_KEY"}"#, "credentialsInvalid", false),
        (404, #"{"statusCode":404,"message":"SKU not found","code":"SKU_NOT_FOUND"}"#, "skuNotFound", false),
        (404, #"{"error":"not_found","message":"Cannot GET /v1/nope"}"#, "serviceUnavailable", true),
        (400, #"{"message":"Insufficient balance","code":"INSUFFICIENT_BALANCE"}"#, "insufficientBalance", false),
        (404, #"{"message":"Wallet not found","code":"WALLET_NOT_FOUND"}"#, "walletNotFound", false),
        (422, #"{"message":"reference does not match","code":"INVALID_REFERENCE"}"#, "invalidRequest", false),
        (503, "<html>down</html>", "serviceError", true),
        (429, #"{"message":"Too many requests"}"#, "rateLimited", true),
    ])
    func errorsFollowTheDesignsErrorFlow(status: Int, body: String, code: String, retryable: Bool) async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/skus/sku-1", status: status, headers: ["Retry-After": "1"], json: body)
        do {
            _ = try await makeClient(transport).sku(id: "sku-1")
            Issue.record("no error for HTTP \(status)")
        } catch {
            #expect(error.code.rawValue == code)
            #expect(error.status == status)
            #expect(error.isRetryable == retryable)
            #expect(!error.userMessage.isEmpty)
            if body.contains("\"code\"") { #expect(error.serverCode != nil) }
        }
    }

    @Test func rateLimitsAreRetriedAfterRetryAfterOnTheClock() async throws {
        let clock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true)
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/skus/sku-1", times: 1, status: 429, headers: ["Retry-After": "7"], json: "{}")
        transport.on(.get, "/v1/skus/sku-1", json: #"{"id":"sku-1","name":"Telcel"}"#)
        let sku = try await makeClient(transport, clock: clock).sku(id: "sku-1")
        #expect(sku.name == "Telcel")
        #expect(transport.requests.count == 2)
        #expect(clock.recordedSleeps.contains(.seconds(7)))
    }

    @Test func timeoutsAndNetworkFailuresAreRetryable() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/skus/a", reply: .transportError(.timeout))
        transport.on(.get, "/v1/skus/b", reply: .transportError(.connectionFailed))
        let client = makeClient(transport)
        let timeout = try await #require(throws: ChippiPayError.self) { try await client.sku(id: "a") }
        #expect(timeout.code == .timeout && timeout.isRetryable)
        let network = try await #require(throws: ChippiPayError.self) { try await client.sku(id: "b") }
        #expect(network.code == .network && network.isRetryable)
    }

    @Test func unknownStatusesAreKeptAndPolledOn() throws {
        let purchase = try JSONDecoder().decode(
            SkuPurchase.self,
            from: Data(#"{"id":"p1","status":"AWAITING_CARRIER","amount":"2500000000000000000"}"#.utf8)
        )
        #expect(purchase.status.rawValue == "AWAITING_CARRIER")
        #expect(purchase.status.phase == .inProgress)
        #expect(PurchaseStatus(rawValue: "completed").phase == .succeeded)
        #expect(PurchaseStatus(rawValue: "Success").phase == .succeeded)
        #expect(PurchaseStatus(rawValue: "failed").phase == .failed)
        let legacy = try JSONDecoder().decode(
            SkuPurchase.self,
            from: Data(#"{"transaction_id":"chipi_tx_xyz","status":"pending"}"#.utf8)
        )
        #expect(legacy.id == "chipi_tx_xyz" && legacy.status.phase == .inProgress)
    }

    @Test func pollingWaitsTwoFourEightThenTenSecondsOnTheInjectedClock() async throws {
        let clock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true)
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/sku-purchases/p1", times: 4, json: #"{"id":"p1","status":"PENDING"}"#)
        transport.on(.get, "/v1/sku-purchases/p1", times: 1, json: #"{"id":"p1","status":"PROCESSING"}"#)
        transport.on(.get, "/v1/sku-purchases/p1", json: #"{"id":"p1","status":"SUCCESS"}"#)
        let purchase = try await makeClient(transport, clock: clock).pollPurchaseStatus(id: "p1")
        #expect(purchase.status == .success)
        #expect(transport.requests.count == 6)
        // The 30-second sleeps are each attempt's timeout timer.
        #expect(
            clock.recordedSleeps.filter { $0 != .seconds(30) } == [
                .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
            ]
        )
    }

    @Test func pollingEndsWithATypedStillPendingAfterTenAttempts() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/sku-purchases/p1", json: #"{"id":"p1","status":"PENDING"}"#)
        do {
            _ = try await makeClient(transport).pollPurchaseStatus(id: "p1")
            Issue.record("polling never ended")
        } catch {
            #expect(error.code == .stillPending)
            #expect(error.attempts == 10)
        }
        #expect(transport.requests.count == 10)
    }

    @Test func pollingStopsWhenCancelled() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport()
        transport.on(.get, "/v1/sku-purchases/p1", json: #"{"id":"p1","status":"PENDING"}"#)
        let client = makeClient(transport, clock: clock)
        let task = Task { try await client.pollPurchaseStatus(id: "p1") }
        #expect(await clock.waitForSleepers(1))
        task.cancel()
        let error = try await #require(throws: ChippiPayError.self) { try await task.value }
        #expect(error.code == .cancelled && error.isRetryable)
        #expect(transport.requests.count == 1)
    }

    @Test func secretsNeverAppearInErrorsOrLogs() async throws {
        let logs = LogCapture()
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/v1/skus/s",
            status: 401,
            json: #"{"message":"Invalid API key \#(apiKey) with bearer \#(secretKey)","code":"INVALID_API_KEY"}"#
        )
        let error = try await #require(throws: ChippiPayError.self) {
            try await makeClient(transport, logs: logs).sku(id: "s")
        }
        for text in [error.description, error.message, "\(error)", String(reflecting: error), error.userMessage] {
            #expect(!text.contains(apiKey) && !text.contains(secretKey))
        }
        #expect(!logs.text.isEmpty)
        #expect(!logs.text.contains(apiKey) && !logs.text.contains(secretKey))
        let configuration = makeClient(transport).configuration
        #expect(!"\(configuration.apiKey) \(configuration.bearerToken)".contains(apiKey))
    }
}

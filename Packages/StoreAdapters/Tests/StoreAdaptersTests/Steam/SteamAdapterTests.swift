import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct SteamAdapterTests {
    typealias Support = SteamTestSupport

    @Test func aSucceededOrderIsActiveWithItsTransactionBuyerProductAndPrice() async throws {
        let harness = Support.harness()
        harness.transport.on(
            .get,
            Support.queryPath,
            json: Support.query(status: "Succeeded", items: [.init(qty: 2, amount: 398)])
        )

        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.store == .steam)
        #expect(purchase.state == .active)
        #expect(purchase.transactionId == Support.transId)
        #expect(purchase.purchaser == Support.steamId)
        #expect(purchase.productId == "1001")
        #expect(purchase.quantity == 2)
        #expect(purchase.price == Money(minorUnits: 398, currency: "GBP"))
        #expect(purchase.price?.amountString == "3.98")
        #expect(purchase.refundedAmount == nil)
        #expect(purchase.purchaseDate == RFC3339Timestamp.date(from: "2023-11-14T22:00:00Z"))
        #expect(purchase.environment == .production)
        #expect(purchase.storeStatus == "Succeeded")
        #expect(!purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }

    @Test func theQueryNamesTheAppAndTheIdAndSendsTheKeyOnlyAsAHeader() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded"))
        _ = try await harness.adapter.verify(Support.orderProof())

        let request = try #require(harness.transport.requests.first)
        #expect(request.request.method == .get)
        #expect(request.request.authority == "partner.test.invalid")
        let path = request.request.path ?? ""
        #expect(path.hasPrefix("/ISteamMicroTxn/QueryTxn/v3/?"))
        let query = Support.fields(String(path.split(separator: "?", maxSplits: 1)[1]))
        #expect(query == ["appid": "480", "orderid": Support.orderId])
        #expect(request.request.headerFields[HTTPField.Name("x-webapi-key")!] == Support.publisherKey)
        #expect(!path.contains(Support.publisherKey))
        #expect(!path.contains("key="))
    }

    @Test func aTransactionProofIsQueriedByTransid() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded"))
        _ = try await harness.adapter.verify(Support.transactionProof())
        let path = try #require(harness.transport.requests.first?.request.path)
        #expect(Support.fields(String(path.split(separator: "?")[1])) == ["appid": "480", "transid": Support.transId])
    }

    @Test func theSandboxUsesTheSandboxInterface() async throws {
        let harness = Support.harness(sandbox: true)
        harness.transport.on(
            .get,
            "/ISteamMicroTxnSandbox/QueryTxn/v3/",
            times: 1,
            json: Support.query(status: "Approved")
        )
        harness.transport.on(.post, "/ISteamMicroTxnSandbox/FinalizeTxn/v2/", json: Support.finalized)

        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.environment == .sandbox)
        #expect(purchase.state == .active)
        #expect(
            harness.transport.requests.map { String($0.path.prefix { $0 != "?" }) } == [
                "/ISteamMicroTxnSandbox/QueryTxn/v3/", "/ISteamMicroTxnSandbox/FinalizeTxn/v2/",
            ]
        )
    }

    @Test func anApprovedOrderIsFinalizedOnceAndTheNextVerificationFindsItSucceeded() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, times: 1, json: Support.query(status: "Approved"))
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded"))
        harness.transport.on(.post, Support.finalizePath, times: 1, json: Support.finalized)

        let first = try await harness.adapter.verify(Support.orderProof())
        #expect(first.state == .active)
        #expect(first.finalizedByAdapter)
        #expect(first.storeStatus == "Approved")
        let second = try await harness.adapter.verify(Support.orderProof())
        #expect(second.state == .active)
        #expect(!second.finalizedByAdapter)

        let finalizations = harness.transport.requests(matching: "FinalizeTxn")
        #expect(finalizations.count == 1)
        let finalize = try #require(finalizations.first)
        #expect(finalize.request.method == .post)
        #expect(finalize.path == Support.finalizePath)
        #expect(finalize.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(finalize.request.headerFields[HTTPField.Name("x-webapi-key")!] == Support.publisherKey)
        #expect(Support.fields(finalize.bodyText) == ["appid": "480", "orderid": Support.orderId])
        #expect(!finalize.bodyText.contains(Support.publisherKey))
    }

    @Test func anApprovedTransactionProofIsFinalizedByTheOrderIdSteamReports() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Approved"))
        harness.transport.on(.post, Support.finalizePath, json: Support.finalized)
        _ = try await harness.adapter.verify(Support.transactionProof())
        let finalize = try #require(harness.transport.requests(matching: "FinalizeTxn").first)
        #expect(Support.fields(finalize.bodyText)["orderid"] == Support.orderId)
    }

    @Test func anOrderAlreadyCommittedElsewhereIsReadAgainInsteadOfFailing() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, times: 1, json: Support.query(status: "Approved"))
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded"))
        harness.transport.on(
            .post,
            Support.finalizePath,
            json: Support.failure(code: "6", description: "Transaction has already been committed")
        )

        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.state == .active)
        #expect(!purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: "QueryTxn").count == 2)
        #expect(harness.transport.requests(matching: "FinalizeTxn").count == 1)
    }

    @Test func withFinalizationOffAnApprovedOrderIsPending() async throws {
        let harness = Support.harness(finalizeApproved: false)
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Approved"))
        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.state == .pending)
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }

    @Test(arguments: [
        ("100", StoreAdapterError.Code.notPaid),
        ("101", .notPaid),
        ("5", .notPaid),
        ("2", .notPaid),
        ("4", .storeUnavailable),
    ])
    func aFailedFinalizationFailsTheVerification(code: String, expected: StoreAdapterError.Code) async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Approved"))
        harness.transport.on(.post, Support.finalizePath, json: Support.failure(code: code))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == expected)
        #expect(error?.storeReason == "errorcode \(code)")
    }

    @Test(arguments: [
        ("Init", VerifiedPurchase.State.pending),
        ("Refunded", .refunded),
        ("Chargedback", .refunded),
        ("RefundedSuspectedFraud", .refunded),
        ("RefundedFriendlyFraud", .refunded),
    ])
    func everyOtherStatusMapsToItsState(status: String, expected: VerifiedPurchase.State) async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: status))
        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.state == expected)
        #expect(purchase.storeStatus == status)
        #expect(purchase.refundedAmount == (expected == .refunded ? Money(minorUnits: 199, currency: "GBP") : nil))
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }

    @Test func aFailedOrderIsNotPaid() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Failed"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "Failed")
    }

    @Test func aPartialRefundRefundsOnlyTheProductWhoseItemsWereRefunded() async throws {
        let items: [SteamTestSupport.Item] = [
            .init(itemid: "1001", amount: 199, itemstatus: "Refunded"),
            .init(itemid: "2002", amount: 499, itemstatus: "Succeeded"),
        ]
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "PartialRefund", items: items))

        let refunded = try await harness.adapter.verify(Support.orderProof(productId: "1001"))
        #expect(refunded.state == .refunded)
        #expect(refunded.refundedAmount == Money(minorUnits: 199, currency: "GBP"))
        let kept = try await harness.adapter.verify(Support.orderProof(productId: "2002"))
        #expect(kept.state == .active)
        #expect(kept.price == Money(minorUnits: 499, currency: "GBP"))
        #expect(kept.refundedAmount == nil)
    }

    @Test func anUnknownStatusIsAMalformedResponse() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Teleported"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.storeReason == "Teleported")
    }

    @Test func idsAndAmountsAreReadAsStringsOrNumbers() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded", numericIDs: true))
        let purchase = try await harness.adapter.verify(Support.orderProof())
        #expect(purchase.transactionId == Support.transId)
        #expect(purchase.purchaser == Support.steamId)
        #expect(purchase.productId == "1001")
    }

    @Test func theExpectedProductMustBeAmongTheOrdersItems() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Succeeded"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof(productId: "9999"))
        }
        #expect(error?.code == .productMismatch)
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }

    @Test func anApprovedOrderForAnotherProductIsNotFinalized() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: Support.query(status: "Approved"))
        harness.transport.on(.post, Support.finalizePath, json: Support.finalized)
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof(productId: "9999"))
        }
        #expect(error?.code == .productMismatch)
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }

    @Test func aProofForAnotherAppIsTheWrongApplication() async throws {
        let harness = Support.harness()
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof(context: ["appid": "440"]))
        }
        #expect(error?.code == .wrongApplication)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test(arguments: ["", "12ab", "-5", "18446744073709551616", "1 2", "１２"])
    func anIdThatIsNotAnUnsigned64BitIntegerIsAnInvalidProof(id: String) async throws {
        let harness = Support.harness()
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof(id))
        }
        #expect(error?.code == .invalidProof)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func aProofOfAnotherKindIsAnInvalidProof() async throws {
        let harness = Support.harness()
        let proof = PurchaseProof(store: .steam, kind: .paypalOrder, token: "123")
        let error = await #expect(throws: StoreAdapterError.self) { try await harness.adapter.verify(proof) }
        #expect(error?.code == .invalidProof)
    }

    @Test(arguments: [
        ("1", StoreAdapterError.Code.malformedResponse),
        ("2", .notFound),
        ("3", .invalidProof),
        ("4", .storeUnavailable),
        ("5", .notPaid),
        ("6", .malformedResponse),
        ("7", .notPaid), ("8", .notPaid), ("9", .notPaid), ("10", .notPaid), ("11", .notPaid), ("12", .notPaid),
        ("13", .notPaid), ("14", .notPaid), ("15", .notPaid), ("16", .notPaid),
        ("100", .notPaid), ("101", .notPaid), ("102", .notPaid), ("103", .notPaid), ("104", .notPaid),
        ("105", .notPaid), ("106", .notPaid), ("107", .notPaid),
        ("1001", .malformedResponse),
        (#""3""#, .invalidProof),
    ])
    func steamErrorCodesMapToSharedCodes(code: String, expected: StoreAdapterError.Code) async throws {
        let harness = Support.harness()
        harness.transport.on(
            .get,
            Support.queryPath,
            json: Support.failure(code: code, description: "Invalid parameter: \(Support.orderId)")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == expected)
        #expect(error?.storeReason == "errorcode \(code.replacingOccurrences(of: "\"", with: ""))")
        #expect(error.map { !"\($0)".contains(Support.orderId) } == true)
    }

    @Test func aFailureWithoutAnErrorCodeIsAMalformedResponse() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, json: #"{"response":{"result":"Failure"}}"#)
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test(arguments: [
        (400, StoreAdapterError.Code.invalidProof),
        (401, .unauthorized),
        (403, .unauthorized),
        (404, .malformedResponse),
        (429, .rateLimited),
        (500, .storeUnavailable),
        (503, .storeUnavailable),
    ])
    func httpStatusesMapToSharedCodes(status: Int, expected: StoreAdapterError.Code) async throws {
        let harness = Support.harness()
        harness.transport.on(
            .get,
            Support.queryPath,
            status: status,
            headers: status == 429 ? ["Retry-After": "120"] : [:],
            json: "<html><head><title>Forbidden</title></head><body>Access is denied.</body></html>"
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.orderProof())
        }
        #expect(error?.code == expected)
        #expect(error?.httpStatus == status)
        if status == 429 { #expect(error?.retryAfter == .seconds(120)) }
    }

    @Test func aTimeoutIsATimeout() async throws {
        let harness = Support.harness()
        harness.transport.on(.get, Support.queryPath, reply: .hang)
        let adapter = harness.adapter
        let outcome = Task { try await adapter.verify(Support.orderProof()) }
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: .seconds(10))
        let error = await #expect(throws: StoreAdapterError.self) { try await outcome.value }
        #expect(error?.code == .timeout)
    }

    @Test func noSecretReachesALogLineOrAnErrorDescription() async throws {
        let logs = LogCapture()
        let harness = Support.harness(logs: logs)
        harness.transport.on(.get, Support.queryPath, times: 1, json: Support.query(status: "Approved"))
        harness.transport.on(.post, Support.finalizePath, times: 1, json: Support.finalized)
        harness.transport.on(.get, Support.queryPath, times: 1, status: 403, json: "Forbidden")
        harness.transport.on(
            .get,
            Support.queryPath,
            times: 1,
            json: Support.failure(code: "3", description: "Invalid parameter orderid \(Support.orderId)")
        )

        var texts: [String] = []
        for _ in 0..<3 {
            do {
                texts.append("\(try await harness.adapter.verify(Support.orderProof()))")
            } catch {
                texts.append("\(error)")
                texts.append(String(reflecting: error))
            }
        }
        texts.append("\(harness.adapter.configuration.publisherKey)")
        #expect(texts.count == 6)
        #expect(logs.all.contains { $0.contains("steam purchase verified") })
        #expect(logs.all.contains { $0.contains("steam order finalized") })
        for text in texts.dropFirst() {
            #expect(!text.contains(Support.publisherKey))
            #expect(!text.contains(Support.orderId))
        }
        #expect(!logs.contains(Support.publisherKey))
        #expect(!logs.contains(Support.orderId))
        #expect(!logs.contains("QueryTxn"))
    }
}

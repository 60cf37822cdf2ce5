import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct PayPalAdapterTests {
    private typealias Fixtures = PayPalTestFixtures

    private func transport(order: String, tokenTimes: Int? = nil) -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, times: tokenTimes, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, json: order)
        return transport
    }

    private func verifyError(
        _ transport: ScriptedTransport,
        proof: PurchaseProof = Fixtures.proof(),
        maxAttempts: Int = 3
    ) async -> StoreAdapterError? {
        await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport, maxAttempts: maxAttempts).verify(proof)
        }
    }

    // MARK: - States

    @Test func completedOrderWithCompletedCaptureIsActive() async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())

        #expect(purchase.store == .paypal)
        #expect(purchase.state == .active)
        #expect(purchase.transactionId == Fixtures.captureId)
        #expect(purchase.productId == "pro.lifetime")
        #expect(purchase.purchaser == "user-7")
        #expect(purchase.environment == .sandbox)
        #expect(purchase.price == Money(decimalString: "10.00", currency: "USD"))
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_709_287_205))
        #expect(purchase.storeStatus == "COMPLETED/COMPLETED")
        #expect(purchase.finalizedByAdapter == false)
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    @Test func liveEnvironmentIsProduction() async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let purchase = try await Fixtures.adapter(transport, environment: .live).verify(Fixtures.proof())
        #expect(purchase.environment == .production)
    }

    @Test func environmentsHavePayPalsBaseURLs() {
        #expect(
            PayPalAdapter.Configuration.Environment.sandbox.baseURL.absoluteString == "https://api-m.sandbox.paypal.com"
        )
        #expect(PayPalAdapter.Configuration.Environment.live.baseURL.absoluteString == "https://api-m.paypal.com")
        let configuration = PayPalAdapter.Configuration(
            clientId: "id",
            clientSecret: "secret",
            environment: .sandbox,
            payeeMerchantId: "M",
            prices: [:]
        )
        #expect(configuration.baseURL.host() == "api-m.sandbox.paypal.com")
    }

    @Test func pendingCaptureIsPending() async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "PENDING")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(purchase.storeStatus == "COMPLETED/PENDING")
    }

    @Test(arguments: ["DECLINED", "FAILED"])
    func declinedOrFailedCaptureIsNotPaid(status: String) async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: status)])
        )
        let error = await verifyError(transport)
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "CAPTURE_\(status)")
    }

    @Test func voidedOrderIsNotPaid() async throws {
        let error = await verifyError(transport(order: Fixtures.order(status: "VOIDED")))
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "VOIDED")
    }

    @Test(arguments: ["CREATED", "SAVED", "PAYER_ACTION_REQUIRED"])
    func orderTheBuyerHasNotApprovedIsPending(status: String) async throws {
        let transport = transport(order: Fixtures.order(status: status))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(purchase.transactionId == Fixtures.orderId)
        #expect(purchase.price == Money(decimalString: "10.00", currency: "USD"))
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_709_287_140))
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    @Test func refundedCaptureIsRefundedWithTheRefundsSum() async throws {
        let transport = transport(
            order: Fixtures.order(
                status: "COMPLETED",
                captures: [Fixtures.capture(status: "REFUNDED")],
                refunds: [Fixtures.refund("10.00", id: "R1")]
            )
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(decimalString: "10.00", currency: "USD"))
    }

    @Test func refundedCaptureWithoutListedRefundsIsRefundedInFull() async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "REFUNDED")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(decimalString: "10.00", currency: "USD"))
    }

    @Test func partiallyRefundedCaptureIsRefundedWithTheExactCompletedAmount() async throws {
        let transport = transport(
            order: Fixtures.order(
                status: "COMPLETED",
                captures: [Fixtures.capture(status: "PARTIALLY_REFUNDED")],
                refunds: [
                    Fixtures.refund("0.10", id: "R1"), Fixtures.refund("0.20", id: "R2"),
                    Fixtures.refund("5.00", status: "PENDING", id: "R3"),
                ]
            )
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(decimalString: "0.30", currency: "USD"))
        #expect(purchase.price == Money(decimalString: "10.00", currency: "USD"))
    }

    @Test func authorizedButUncapturedOrderIsPending() async throws {
        let transport = transport(
            order: Fixtures.order(
                status: "COMPLETED",
                intent: "AUTHORIZE",
                authorizations: [
                    #"{"id": "0AW2184448108334S", "status": "CREATED", "amount": {"currency_code": "USD", "value": "10.00"}}"#
                ]
            )
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
    }

    @Test func unknownOrderOrCaptureStatusNeverGrantsAccess() async throws {
        let order = await verifyError(transport(order: Fixtures.order(status: "ON_HOLD")))
        #expect(order?.code == .malformedResponse)
        #expect(order?.storeReason == "ON_HOLD")
        let capture = await verifyError(
            transport(order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "REVERSED")]))
        )
        #expect(capture?.code == .malformedResponse)
        #expect(capture?.storeReason == "REVERSED")
    }

    @Test func zeroDecimalAmountStaysExact() async throws {
        let transport = transport(
            order: Fixtures.order(
                status: "COMPLETED",
                amount: "500",
                currency: "JPY",
                captures: [Fixtures.capture(status: "COMPLETED", amount: "500", currency: "JPY")]
            )
        )
        let purchase = try await Fixtures.adapter(
            transport,
            prices: ["pro.lifetime": Money(amount: 500, currency: "JPY")]
        )
        .verify(Fixtures.proof())
        #expect(purchase.price == Money(amount: 500, currency: "JPY"))
    }

    @Test func amountThatIsNotADecimalIsMalformed() async throws {
        let transport = transport(
            order: Fixtures.order(
                status: "COMPLETED",
                captures: [Fixtures.capture(status: "COMPLETED", amount: "1e3")]
            )
        )
        #expect(await verifyError(transport)?.code == .malformedResponse)
    }

    @Test func payPalMoneyReadsBareFractions() {
        #expect(PayPal.Money(currencyCode: "USD", value: ".5").exact == Money(decimalString: "0.5", currency: "USD"))
        #expect(PayPal.Money(currencyCode: "USD", value: "-.5").exact == Money(decimalString: "-0.5", currency: "USD"))
        #expect(PayPal.Money(currencyCode: "USD", value: "ten").exact == nil)
    }

    // MARK: - Product

    @Test func referenceIdThatDiffersIsAProductMismatch() async throws {
        let error = await verifyError(
            transport(order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])),
            proof: Fixtures.proof(productId: "pro.monthly")
        )
        #expect(error?.code == .productMismatch)
    }

    @Test func orderWithoutReferenceIdIsNotAValidProof() async throws {
        let error = await verifyError(
            transport(
                order: Fixtures.order(
                    status: "COMPLETED",
                    referenceId: nil,
                    captures: [Fixtures.capture(status: "COMPLETED")]
                )
            )
        )
        #expect(error?.code == .invalidProof)
    }

    @Test func approvedOrderForAnotherProductIsNotCaptured() async throws {
        let transport = transport(order: Fixtures.order(status: "APPROVED"))
        let error = await verifyError(transport, proof: Fixtures.proof(productId: "pro.monthly"))
        #expect(error?.code == .productMismatch)
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    @Test(arguments: ["", "5O19/../../v1/x", "5O19?x=1", "ordér"])
    func tokenThatIsNotAnOrderIdIsRejectedWithoutARequest(token: String) async throws {
        let transport = ScriptedTransport()
        let error = await verifyError(transport, proof: Fixtures.proof(token))
        #expect(error?.code == .invalidProof)
        #expect(transport.requests.isEmpty)
    }

    // MARK: - Capture

    @Test func approvedOrderIsCapturedIdempotentlyThenActive() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, times: 1, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            status: 201,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let adapter = Fixtures.adapter(transport)

        let first = try await adapter.verify(Fixtures.proof())
        #expect(first.state == .active)
        #expect(first.finalizedByAdapter)
        #expect(first.transactionId == Fixtures.captureId)

        let capture = try #require(transport.requests(matching: "/capture").first)
        #expect(capture.request.method == .post)
        #expect(
            capture.request.headerFields[HTTPField.Name("PayPal-Request-Id")!] == "opencat-capture-\(Fixtures.orderId)"
        )
        #expect(capture.request.headerFields[HTTPField.Name("Prefer")!] == "return=representation")
        #expect(capture.request.headerFields[.contentType] == "application/json")
        #expect(capture.request.headerFields[.authorization] == "Bearer \(Fixtures.accessToken)")
        #expect(capture.bodyText == "{}")

        let second = try await adapter.verify(Fixtures.proof())
        #expect(second.state == .active)
        #expect(second.finalizedByAdapter == false)
        #expect(transport.requests(matching: "/capture").count == 1)
        #expect(transport.requests(matching: "/oauth2/token").count == 1)
    }

    @Test func captureThatFailsOnceIsRetriedWithTheSameRequestId() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            times: 1,
            status: 503,
            json: Fixtures.error(name: "SERVICE_UNAVAILABLE")
        )
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            status: 200,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .active)
        let ids = transport.requests(matching: "/capture").map {
            $0.request.headerFields[HTTPField.Name("PayPal-Request-Id")!]
        }
        #expect(ids == ["opencat-capture-\(Fixtures.orderId)", "opencat-capture-\(Fixtures.orderId)"])
    }

    @Test func minimalCaptureAnswerIsFollowedByAFullRead() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, times: 1, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            status: 201,
            json: #"{"id": "\#(Fixtures.orderId)", "status": "COMPLETED"}"#
        )
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "PENDING")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(purchase.finalizedByAdapter)
    }

    @Test func alreadyCapturedOrderIsReadAgain() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, times: 1, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            status: 422,
            json: Fixtures.error(name: "UNPROCESSABLE_ENTITY", issue: "ORDER_ALREADY_CAPTURED")
        )
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .active)
    }

    @Test func declinedCaptureIsNotPaidWithPayPalsIssueAndDebugId() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            status: 422,
            json: Fixtures.error(name: "UNPROCESSABLE_ENTITY", issue: "INSTRUMENT_DECLINED", debugId: "f00dcafe")
        )
        let error = await verifyError(transport)
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "UNPROCESSABLE_ENTITY/INSTRUMENT_DECLINED (debug_id f00dcafe)")
        #expect(error?.httpStatus == 422)
        #expect(transport.requests(matching: "/capture").count == 1)
    }

    @Test func approvedOrderIsPendingWhenCapturingIsOff() async throws {
        let transport = transport(order: Fixtures.order(status: "APPROVED"))
        let purchase = try await Fixtures.adapter(transport, captureApproved: false).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    @Test func approvedAuthorizeIntentOrderIsNotCaptured() async throws {
        let transport = transport(order: Fixtures.order(status: "APPROVED", intent: "AUTHORIZE"))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    // MARK: - OAuth

    @Test func tokenRequestUsesBasicAuthAndTheClientCredentialsGrant() async throws {
        let transport = transport(order: Fixtures.order(status: "CREATED"))
        _ = try await Fixtures.adapter(transport).verify(Fixtures.proof())

        let tokenRequest = try #require(transport.requests(matching: "/oauth2/token").first)
        let expected = Data("\(Fixtures.clientId):\(Fixtures.clientSecret)".utf8).base64EncodedString()
        #expect(tokenRequest.request.method == .post)
        #expect(tokenRequest.request.authority == "127.0.0.1:9090")
        #expect(tokenRequest.request.path == Fixtures.tokenPath)
        #expect(tokenRequest.request.headerFields[.authorization] == "Basic \(expected)")
        #expect(tokenRequest.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(tokenRequest.bodyText == "grant_type=client_credentials")

        let orderRequest = try #require(transport.requests(matching: "/checkout/orders").first)
        #expect(orderRequest.request.method == .get)
        #expect(orderRequest.request.headerFields[.authorization] == "Bearer \(Fixtures.accessToken)")
    }

    @Test func tokenIsReusedUntilNearExpiryThenRefreshed() async throws {
        // A clock that moves only when told to, so that only the advances below age the token.
        let clock = ManualClock()
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, times: 1, json: Fixtures.token("A21first", expiresIn: 3600))
        transport.on(.post, Fixtures.tokenPath, times: 1, json: Fixtures.token("A21second", expiresIn: 3600))
        transport.on(.get, Fixtures.orderPath, exact: true, json: Fixtures.order(status: "CREATED"))
        let adapter = Fixtures.adapter(transport, clock: clock)

        for _ in 0..<3 { _ = try await adapter.verify(Fixtures.proof()) }
        clock.advance(by: .seconds(3600 - 61))
        _ = try await adapter.verify(Fixtures.proof())
        #expect(transport.requests(matching: "/oauth2/token").count == 1)

        clock.advance(by: .seconds(2))
        _ = try await adapter.verify(Fixtures.proof())
        #expect(transport.requests(matching: "/oauth2/token").count == 2)
        let bearers = transport.requests(matching: "/checkout/orders").map { $0.request.headerFields[.authorization] }
        #expect(bearers == Array(repeating: "Bearer A21first", count: 4) + ["Bearer A21second"])
    }

    @Test func concurrentVerificationsShareOneTokenFetch() async throws {
        let transport = transport(
            order: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        let adapter = Fixtures.adapter(transport)
        try await withThrowingTaskGroup(of: VerifiedPurchase.self) { group in
            for _ in 0..<10 { group.addTask { try await adapter.verify(Fixtures.proof()) } }
            for try await purchase in group { #expect(purchase.state == .active) }
        }
        #expect(transport.requests(matching: "/oauth2/token").count == 1)
        #expect(transport.requests(matching: "/checkout/orders").count == 10)
    }

    @Test func expiredTokenIsRefreshedOnceOn401() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, times: 1, json: Fixtures.token("A21stale"))
        transport.on(.post, Fixtures.tokenPath, times: 1, json: Fixtures.token("A21fresh"))
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            times: 1,
            status: 401,
            json: #"{"error": "invalid_token", "error_description": "Token signature verification failed"}"#
        )
        transport.on(.get, Fixtures.orderPath, exact: true, json: Fixtures.order(status: "CREATED"))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        let bearers = transport.requests(matching: "/checkout/orders").map { $0.request.headerFields[.authorization] }
        #expect(bearers == ["Bearer A21stale", "Bearer A21fresh"])
    }

    @Test func persistent401IsUnauthorizedAfterOneRefresh() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 401,
            json: Fixtures.error(name: "AUTHENTICATION_FAILURE", debugId: "abc123")
        )
        let error = await verifyError(transport)
        #expect(error?.code == .unauthorized)
        #expect(error?.storeReason == "AUTHENTICATION_FAILURE (debug_id abc123)")
        #expect(transport.requests(matching: "/checkout/orders").count == 2)
        #expect(transport.requests(matching: "/oauth2/token").count == 2)
    }

    @Test func rejectedClientCredentialsAreUnauthorized() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .post,
            Fixtures.tokenPath,
            status: 401,
            json: #"{"error": "invalid_client", "error_description": "Client Authentication failed"}"#
        )
        let error = await verifyError(transport)
        #expect(error?.code == .unauthorized)
        #expect(error?.storeReason == "invalid_client")
        #expect(transport.requests(matching: "/checkout/orders").isEmpty)
    }

    // MARK: - Errors

    @Test func unknownOrderIsNotFound() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 404,
            json: Fixtures.error(name: "RESOURCE_NOT_FOUND", issue: "INVALID_RESOURCE_ID")
        )
        let error = await verifyError(transport)
        #expect(error?.code == .notFound)
        #expect(error?.storeReason == "RESOURCE_NOT_FOUND/INVALID_RESOURCE_ID (debug_id 81db5c4ddfa35)")
        #expect(error?.httpStatus == 404)
    }

    @Test func rateLimitIsRetriedThenRateLimited() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 429,
            headers: ["Retry-After": "3"],
            json: Fixtures.error(name: "RATE_LIMIT_REACHED")
        )
        let error = await verifyError(transport, maxAttempts: 2)
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(3))
        #expect(transport.requests(matching: "/checkout/orders").count == 2)
    }

    @Test func serverErrorsAreStoreUnavailableAfterRetries() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 500,
            json: Fixtures.error(name: "INTERNAL_SERVER_ERROR")
        )
        let error = await verifyError(transport, maxAttempts: 3)
        #expect(error?.code == .storeUnavailable)
        #expect(error?.storeReason == "INTERNAL_SERVER_ERROR (debug_id 81db5c4ddfa35)")
        #expect(transport.requests(matching: "/checkout/orders").count == 3)
    }

    @Test func unprocessableOrderIsNotPaid() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 422,
            json: Fixtures.error(name: "UNPROCESSABLE_ENTITY", issue: "ORDER_NOT_APPROVED")
        )
        let error = await verifyError(transport)
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason?.contains("ORDER_NOT_APPROVED") == true)
    }

    @Test func badRequestIsInvalidProof() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            Fixtures.orderPath,
            exact: true,
            status: 400,
            json: Fixtures.error(name: "INVALID_REQUEST", issue: "INVALID_STRING_LENGTH")
        )
        #expect(await verifyError(transport)?.code == .invalidProof)
    }

    @Test func unreachablePayPalIsNetwork() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, reply: .transportError(.connectionFailed))
        #expect(await verifyError(transport, maxAttempts: 2)?.code == .network)
    }

    // MARK: - Secrets

    @Test func credentialsTokensAndOrderIdNeverAppearInErrorsOrLogs() async throws {
        let recorder = LogCapture()
        var texts: [String] = []
        let scenarios: [(tokenStatus: Int, orderStatus: Int, order: String)] = [
            (401, 200, ""),
            (200, 401, Fixtures.error(name: "AUTHENTICATION_FAILURE")),
            (200, 404, Fixtures.error(name: "RESOURCE_NOT_FOUND", issue: "INVALID_RESOURCE_ID")),
            (200, 422, Fixtures.error(name: "UNPROCESSABLE_ENTITY", issue: "ORDER_NOT_APPROVED")),
            (200, 429, Fixtures.error(name: "RATE_LIMIT_REACHED")),
            (200, 503, Fixtures.error(name: "SERVICE_UNAVAILABLE")),
            (200, 200, Fixtures.order(status: "VOIDED")),
            (200, 200, Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "DECLINED")])),
            (200, 200, #"{"unexpected": true}"#),
        ]
        for scenario in scenarios {
            let transport = ScriptedTransport()
            transport.on(
                .post,
                Fixtures.tokenPath,
                status: scenario.tokenStatus,
                json: scenario.tokenStatus == 200 ? Fixtures.token() : #"{"error": "invalid_client"}"#
            )
            transport.on(.get, Fixtures.orderPath, exact: true, status: scenario.orderStatus, json: scenario.order)
            do {
                _ = try await Fixtures.adapter(transport, logger: recorder).verify(Fixtures.proof())
                Issue.record("expected an error")
            } catch {
                texts.append(String(describing: error))
                texts.append(String(reflecting: error))
            }
        }
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, times: 1, json: Fixtures.order(status: "APPROVED"))
        transport.on(
            .post,
            Fixtures.capturePath,
            exact: true,
            json: Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        _ = try await Fixtures.adapter(transport, logger: recorder).verify(Fixtures.proof())

        #expect(!recorder.recorded.isEmpty)
        let basic = Data("\(Fixtures.clientId):\(Fixtures.clientSecret)".utf8).base64EncodedString()
        for text in texts + [recorder.text] {
            #expect(!text.contains(Fixtures.clientSecret))
            #expect(!text.contains(basic))
            #expect(!text.contains(Fixtures.accessToken))
            #expect(!text.contains(Fixtures.orderId))
        }
    }
}

/// Payments v2 "Show refund details".
struct PayPalRefundDetailsTests {
    typealias Fixtures = PayPalTestFixtures

    @Test func aRefundIsReadByItsIdWithItsStatusReason() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            "\(Fixtures.base)/v2/payments/refunds/1JU08902781691411",
            json: """
                {"id":"1JU08902781691411","amount":{"value":"2.50","currency_code":"USD"},"status":"PENDING",
                 "status_details":{"reason":"ECHECK"},"note_to_payer":"Partial refund",
                 "create_time":"2026-11-21T12:00:00Z","update_time":"2026-11-21T12:00:01Z",
                 "links":[{"href":"https://api-m.paypal.com/v2/payments/refunds/1JU08902781691411","rel":"self","method":"GET"}]}
                """
        )
        let refund = try await Fixtures.adapter(transport).refundDetails(refundId: "1JU08902781691411")
        #expect(refund.status == .pending && refund.statusReason == "ECHECK" && refund.amount?.value == "2.50")
        #expect(refund.updateTime == "2026-11-21T12:00:01Z" && refund.noteToPayer == "Partial refund")
        let unknown = ScriptedTransport()
        unknown.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        unknown.on(
            .get,
            "\(Fixtures.base)/v2/payments/refunds/",
            status: 404,
            json: #"{"name":"RESOURCE_NOT_FOUND","details":[{"issue":"INVALID_RESOURCE_ID"}],"message":"x"}"#
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(unknown).refundDetails(refundId: "0000000000000000X")
        }
        #expect(error.code == .notFound)
        let bad = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(unknown).refundDetails(refundId: "../captures/1")
        }
        #expect(bad.code == .invalidProof)
    }

    /// `refundStatus(id:)`: PayPal's statuses as `StoreRefund`'s, the store's own kept, an exact amount; a refund
    /// without a status is malformed rather than guessed.
    @Test(arguments: [
        ("COMPLETED", "succeeded"), ("PENDING", "pending"), ("FAILED", "failed"), ("CANCELLED", "canceled"),
        ("ON_HOLD", "on_hold"),
    ])
    func aRefundsStatusIsNormalizedAndTheStoresKept(_ payPal: String, _ normalized: String) async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            "\(Fixtures.base)/v2/payments/refunds/1JU08902781691411",
            json: #"{"id":"1JU08902781691411","amount":{"value":"2.50","currency_code":"USD"},"status":"\#(payPal)","#
                + #""create_time":"2026-11-21T12:00:00Z"}"#
        )
        let refund = try await Fixtures.adapter(transport).refundStatus(id: "1JU08902781691411")
        #expect(refund.status.rawValue == normalized && refund.storeStatus == payPal && refund.store == .paypal)
        #expect(refund.amount == Money(amount: Decimal(string: "2.50")!, currency: "USD"))
        #expect(refund.created == Date(timeIntervalSince1970: 1_795_262_400))
    }

    @Test func aRefundWithoutAStatusIsMalformed() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(
            .get,
            "\(Fixtures.base)/v2/payments/refunds/1JU08902781691411",
            json: #"{"id":"1JU08902781691411"}"#
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).refundStatus(id: "1JU08902781691411")
        }
        #expect(error.code == .malformedResponse)
    }
}

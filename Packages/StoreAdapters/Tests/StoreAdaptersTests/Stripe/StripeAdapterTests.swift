import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct StripeAdapterTests {
    private typealias Fixtures = StripeTestFixtures
    private let path = "/stripe/v1/payment_intents/\(StripeTestFixtures.paymentIntentId)"

    // MARK: - States

    @Test func succeededPaymentIntentIsActiveWithExactPrice() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(latestCharge: Fixtures.charge()))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())

        #expect(purchase.store == .stripe)
        #expect(purchase.state == .active)
        #expect(purchase.transactionId == Fixtures.paymentIntentId)
        #expect(purchase.productId == "pro.monthly")
        #expect(purchase.purchaser == "user-42")
        #expect(purchase.environment == .production)
        #expect(purchase.price == Money(amount: Decimal(string: "9.99")!, currency: "USD"))
        #expect(purchase.refundedAmount == nil)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(purchase.storeStatus == "succeeded")
        #expect(purchase.finalizedByAdapter == false)
    }

    @Test func requestIsAuthenticatedVersionPinnedAndExpandsTheLatestCharge() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent())
        _ = try await Fixtures.adapter(transport).verify(Fixtures.proof())

        let request = try #require(transport.requests.first).request
        #expect(request.method == .get)
        #expect(request.scheme == "http")
        #expect(request.authority == "127.0.0.1:8080")
        #expect(request.path == "\(path)?expand%5B%5D=latest_charge")
        #expect(request.headerFields[.authorization] == "Bearer \(Fixtures.secretKey)")
        #expect(request.headerFields[HTTPField.Name("Stripe-Version")!] == "2024-06-20")
    }

    @Test(arguments: ["processing", "requires_capture"])
    func unfinishedPaymentIsPending(status: String) async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(status: status))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .pending)
        #expect(purchase.storeStatus == status)
        #expect(purchase.price == Money(amount: Decimal(string: "9.99")!, currency: "USD"))
    }

    @Test(arguments: ["requires_payment_method", "requires_confirmation", "requires_action", "canceled"])
    func unpaidPaymentIntentIsNotPaid(status: String) async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(status: status))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == status)
    }

    @Test func declinedPaymentKeepsStripesDeclineCode() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            json: Fixtures.paymentIntent(
                status: "requires_payment_method",
                lastPaymentError:
                    #"{"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds"}"#
            )
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "requires_payment_method/card_declined/insufficient_funds")
    }

    @Test func fullyRefundedChargeIsRefundedWithTheWholeAmount() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            json: Fixtures.paymentIntent(
                latestCharge: Fixtures.charge(refunded: 999, fullyRefunded: true)
            )
        )
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(minorUnits: 999, currency: "USD"))
        #expect(purchase.price == Money(minorUnits: 999, currency: "USD"))
    }

    @Test func partiallyRefundedChargeIsRefundedWithTheRefundedAmount() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(latestCharge: Fixtures.charge(refunded: 500)))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(amount: 5, currency: "USD"))
    }

    @Test func unexpandedLatestChargeIsReadAsAnId() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(latestCharge: #""ch_3OpenCatTestCharge01""#))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .active)
    }

    @Test func testModePaymentIsSandbox() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(livemode: false))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.environment == .sandbox)
    }

    @Test func zeroDecimalAndThreeDecimalCurrenciesUseStripesExponents() async throws {
        let yen = ScriptedTransport()
        yen.on(.get, path, json: Fixtures.paymentIntent(amount: 500, currency: "jpy"))
        #expect(try await Fixtures.adapter(yen).verify(Fixtures.proof()).price == Money(amount: 500, currency: "JPY"))

        let dinar = ScriptedTransport()
        dinar.on(.get, path, json: Fixtures.paymentIntent(amount: 5120, currency: "kwd"))
        #expect(
            try await Fixtures.adapter(dinar).verify(Fixtures.proof()).price
                == Money(amount: Decimal(string: "5.12")!, currency: "KWD")
        )
    }

    @Test(arguments: [("jpy", 0), ("KRW", 0), ("ugx", 0), ("usd", 2), ("isk", 2), ("huf", 2), ("bhd", 3), ("tnd", 3)])
    func currencyExponentFollowsStripesList(currency: String, exponent: Int) {
        #expect(Stripe.minorUnitExponent(forCurrency: currency) == exponent)
    }

    @Test func amountReceivedIsThePriceWhenPresent() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(amount: 2000, amountReceived: 1500))
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.price == Money(minorUnits: 1500, currency: "usd"))
    }

    // MARK: - Product and proof checks

    @Test func productFromMetadataThatDiffersIsAProductMismatch() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent())
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof(productId: "pro.yearly"))
        }
        #expect(error?.code == .productMismatch)
    }

    @Test func paymentIntentWithoutProductMetadataIsNotAValidProof() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(metadata: ["order": "42"]))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof(productId: nil))
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "metadata.product_id missing")
    }

    @Test func productIsAcceptedWhenTheProofNamesNone() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent())
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof(productId: nil))
        #expect(purchase.productId == "pro.monthly")
    }

    @Test func unknownStatusNeverGrantsAccess() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent(status: "requires_reauthorization"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.storeReason == "requires_reauthorization")
    }

    @Test(arguments: ["", "ch_123", "pi_", "pi_abc/../../v1/charges", "pi_abc?expand=x", "pi_é"])
    func tokenThatIsNotAPaymentIntentIdIsRejectedWithoutARequest(token: String) async throws {
        let transport = ScriptedTransport()
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof(token))
        }
        #expect(error?.code == .invalidProof)
        #expect(transport.requests.isEmpty)
    }

    @Test func clientSecretIsReducedToItsPaymentIntentId() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: Fixtures.paymentIntent())
        _ = try await Fixtures.adapter(transport).verify(Fixtures.proof("\(Fixtures.paymentIntentId)_secret_abc123"))
        #expect(transport.requests.first?.path.hasPrefix(path + "?") == true)
    }

    @Test func proofForAnotherStoreIsRejected() async throws {
        let transport = ScriptedTransport()
        let proof = PurchaseProof(store: .paypal, kind: .paypalOrder, token: "5O190127TN364715T")
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(proof)
        }
        #expect(error?.code == .invalidProof)
        #expect(transport.requests.isEmpty)
    }

    // MARK: - Errors

    @Test func resourceMissingIsNotFound() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            status: 404,
            json: Fixtures.error(type: "invalid_request_error", code: "resource_missing")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .notFound)
        #expect(error?.storeReason == "resource_missing")
        #expect(error?.httpStatus == 404)
        #expect(transport.requests.count == 1)
    }

    @Test func rejectedKeyIsUnauthorized() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            status: 401,
            json: Fixtures.error(type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****cdef")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .unauthorized)
        #expect(error?.storeReason == "invalid_request_error")
        #expect(transport.requests.count == 1)
    }

    @Test func rateLimitIsRetriedThenReportedWithRetryAfter() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            status: 429,
            headers: ["Retry-After": "2"],
            json: Fixtures.error(type: "invalid_request_error", code: "rate_limit")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport, maxAttempts: 3).verify(Fixtures.proof())
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(2))
        #expect(error?.storeReason == "rate_limit")
        #expect(transport.requests.count == 3)
    }

    @Test func rateLimitThatClearsIsRetriedToSuccess() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            times: 1,
            status: 429,
            headers: ["Retry-After": "1"],
            json: Fixtures.error(type: "invalid_request_error", code: "rate_limit")
        )
        transport.on(.get, path, json: Fixtures.paymentIntent())
        let purchase = try await Fixtures.adapter(transport).verify(Fixtures.proof())
        #expect(purchase.state == .active)
        #expect(transport.requests.count == 2)
    }

    @Test func stripeShouldRetryFalseStopsRetries() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            status: 500,
            headers: ["Stripe-Should-Retry": "false"],
            json: Fixtures.error(type: "api_error")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .storeUnavailable)
        #expect(error?.storeReason == "api_error")
        #expect(transport.requests.count == 1)
    }

    @Test func serverErrorsAreRetriedThenStoreUnavailable() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, status: 503, json: Fixtures.error(type: "api_error"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport, maxAttempts: 3).verify(Fixtures.proof())
        }
        #expect(error?.code == .storeUnavailable)
        #expect(error?.httpStatus == 503)
        #expect(transport.requests.count == 3)
    }

    @Test func otherClientErrorsAreInvalidProofWithStripesCode() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            status: 400,
            json: Fixtures.error(type: "invalid_request_error", code: "parameter_invalid_string")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "parameter_invalid_string")
    }

    @Test func unreadableBodyIsMalformedResponse() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, path, json: #"{"id": "pi_x", "object": "payment_intent"}"#)
        let error = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(transport).verify(Fixtures.proof())
        }
        #expect(error?.code == .malformedResponse)
    }

    @Test func connectionFailureIsNetworkAndTimeoutIsTimeout() async throws {
        let failing = ScriptedTransport()
        failing.on(.get, path, reply: .transportError(.connectionFailed))
        let network = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(failing, maxAttempts: 2).verify(Fixtures.proof())
        }
        #expect(network?.code == .network)

        let hanging = ScriptedTransport()
        hanging.on(.get, path, reply: .hang)
        let timeout = await #expect(throws: StoreAdapterError.self) {
            try await Fixtures.adapter(hanging, maxAttempts: 1).verify(Fixtures.proof())
        }
        #expect(timeout?.code == .timeout)
    }

    // MARK: - Secrets

    @Test func secretKeyAndPaymentIntentIdNeverAppearInErrorsOrLogs() async throws {
        let recorder = LogCapture()
        var descriptions: [String] = []
        let scenarios: [(status: Int, body: String)] = [
            (404, Fixtures.error(type: "invalid_request_error", code: "resource_missing")),
            (
                401,
                Fixtures.error(
                    type: "invalid_request_error",
                    message: "Invalid API Key provided: \(Fixtures.secretKey)"
                )
            ),
            (429, Fixtures.error(type: "invalid_request_error", code: "rate_limit")),
            (500, Fixtures.error(type: "api_error")),
            (200, Fixtures.paymentIntent(status: "canceled")),
            (200, Fixtures.paymentIntent(metadata: [:])),
            (200, #"{"broken": true}"#),
        ]
        for scenario in scenarios {
            let transport = ScriptedTransport()
            transport.on(.get, path, status: scenario.status, json: scenario.body)
            do {
                _ = try await Fixtures.adapter(transport, logger: recorder).verify(Fixtures.proof())
                Issue.record("expected an error for HTTP \(scenario.status)")
            } catch {
                descriptions.append(String(describing: error))
                descriptions.append(String(reflecting: error))
            }
        }
        let success = ScriptedTransport()
        success.on(.get, path, json: Fixtures.paymentIntent())
        let purchase = try await Fixtures.adapter(success, logger: recorder).verify(Fixtures.proof())
        descriptions.append(String(describing: Fixtures.adapter(success).configuration.secretKey))

        #expect(!recorder.recorded.isEmpty)
        for text in descriptions + [recorder.text] {
            #expect(!text.contains(Fixtures.secretKey))
            #expect(!text.contains(Fixtures.paymentIntentId))
            #expect(!text.contains("doNotLeak"))
        }
        #expect(purchase.transactionId == Fixtures.paymentIntentId)
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// Security issue items 3, 10 and 12 for PayPal: price, payee and purchaser are checked before any capture.
struct PayPalSecurityTests {
    private typealias Fixtures = PayPalTestFixtures
    static let storeDate = "Wed, 15 Nov 2023 08:00:00 GMT"

    private func run(
        _ order: String,
        captured: String? = nil,
        expectedPurchaser: String? = nil,
        prices: [String: Money] = PayPalTestFixtures.prices,
        payee: String = PayPalTestFixtures.payeeMerchantId
    ) async -> (Result<VerifiedPurchase, StoreAdapterError>, ScriptedTransport) {
        let transport = ScriptedTransport()
        transport.on(.post, Fixtures.tokenPath, json: Fixtures.token())
        transport.on(.get, Fixtures.orderPath, exact: true, headers: ["Date": Self.storeDate], json: order)
        let capturedOrder =
            captured ?? Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        transport.on(.post, Fixtures.capturePath, status: 201, json: capturedOrder)
        var proof = Fixtures.proof()
        proof.expectedPurchaser = expectedPurchaser
        let adapter = Fixtures.adapter(transport, payeeMerchantId: payee, prices: prices)
        do {
            return (.success(try await adapter.verify(proof)), transport)
        } catch {
            return (
                .failure(error as? StoreAdapterError ?? StoreAdapterError(.network, store: .paypal, "\(error)")),
                transport
            )
        }
    }

    private func code(_ result: Result<VerifiedPurchase, StoreAdapterError>) -> StoreAdapterError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test func theConfiguredPriceAndPayeeAreCaptured() async throws {
        let (result, transport) = await run(Fixtures.order(status: "APPROVED"))
        let purchase = try result.get()
        #expect(purchase.state == .active)
        #expect(purchase.finalizedByAdapter)
        #expect(purchase.verifiedAt == nil)  // the capture answer carries no Date header
        #expect(transport.requests(matching: "/capture").count == 1)
        let (read, _) = await run(
            Fixtures.order(status: "COMPLETED", captures: [Fixtures.capture(status: "COMPLETED")])
        )
        #expect(try read.get().verifiedAt == HTTPDate.parse(Self.storeDate))
    }

    @Test(arguments: [
        ("0.01", "USD", PayPalTestFixtures.payeeMerchantId as String?, StoreAdapterError.Code.productMismatch),
        ("10.01", "USD", PayPalTestFixtures.payeeMerchantId, .productMismatch),
        ("10.00", "EUR", PayPalTestFixtures.payeeMerchantId, .productMismatch),
        ("10.00", "USD", "SOMEONEELSE42", .notPaid),
        ("10.00", "USD", nil, .notPaid),
    ])
    func wrongAmountCurrencyOrPayeeIsRefusedWithoutCapturing(
        amount: String,
        currency: String,
        payee: String?,
        expected: StoreAdapterError.Code
    ) async {
        let order = Fixtures.order(status: "APPROVED", amount: amount, currency: currency, payee: payee)
        let (result, transport) = await run(order)
        #expect(code(result) == expected)
        #expect(transport.requests(matching: "/capture").isEmpty)
    }

    @Test func equalDecimalsMatch() async throws {
        let order = Fixtures.order(status: "APPROVED", amount: "10.0")
        #expect(try await run(order).0.get().state == .active)
    }

    @Test func aCaptureForAnotherAmountIsRefused() async {
        let captured = Fixtures.order(
            status: "COMPLETED",
            captures: [Fixtures.capture(status: "COMPLETED", amount: "0.01")]
        )
        #expect(code(await run(Fixtures.order(status: "APPROVED"), captured: captured).0) == .productMismatch)
        #expect(code(await run(captured).0) == .productMismatch)
    }

    @Test func aProductWithoutAConfiguredPriceIsMisconfigured() async {
        let (result, transport) = await run(Fixtures.order(status: "APPROVED"), prices: [:])
        #expect(code(result) == .misconfigured)
        #expect(transport.requests(matching: "/capture").isEmpty)
        #expect(code(await run(Fixtures.order(status: "APPROVED"), payee: " ").0) == .misconfigured)
    }

    @Test func customIdMustMatchTheExpectedPurchaserBeforeCapture() async throws {
        #expect(
            try await run(Fixtures.order(status: "APPROVED"), expectedPurchaser: "user-7").0.get().purchaser == "user-7"
        )
        let (other, transport) = await run(Fixtures.order(status: "APPROVED"), expectedPurchaser: "user-8")
        #expect(code(other) == .purchaserMismatch)
        #expect(transport.requests(matching: "/capture").isEmpty)
        let (missing, _) = await run(Fixtures.order(status: "APPROVED", customId: nil), expectedPurchaser: "user-7")
        #expect(code(missing) == .purchaserMismatch)
    }
}

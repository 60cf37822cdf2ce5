import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// Stripe's refunds retrieved, listed by PaymentIntent and cancelled, as Stripe's API reference describes them.
struct StripeRefundsTests {
    private typealias Fixtures = StripeTestFixtures

    static func refund(_ id: String, status: String) -> String {
        #"{"id":"\#(id)","object":"refund","amount":250,"currency":"usd","status":"\#(status)","payment_intent":"pi_OpenCat01","charge":"ch_OpenCat01","reason":"requested_by_customer","created":1795262400}"#
    }

    @Test func aRefundIsRetrievedAndAPaymentIntentsRefundsListed() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/stripe/v1/refunds/re_OpenCat01",
            exact: true,
            json: Self.refund("re_OpenCat01", status: "pending")
        )
        transport.on(
            .get,
            "/stripe/v1/refunds",
            exact: true,
            json:
                #"{"object":"list","data":[\#(Self.refund("re_OpenCat02", status: "succeeded"))],"has_more":true,"url":"/v1/refunds"}"#
        )
        let adapter = Fixtures.adapter(transport)
        let one = try await adapter.refund(id: "re_OpenCat01")
        #expect(one.status == .pending && one.amount == 250 && one.paymentIntent == "pi_OpenCat01")
        let page = try await adapter.refunds(paymentIntent: "pi_OpenCat01", limit: 1, startingAfter: "re_OpenCat00")
        #expect(page.data.map(\.id) == ["re_OpenCat02"] && page.hasMore)
        #expect(
            transport.requests.last?.path
                == "/stripe/v1/refunds?payment_intent=pi_OpenCat01&limit=1&starting_after=re_OpenCat00"
        )
        // The same, normalized: exact amounts, Stripe's status kept, the last refund as the next cursor.
        let status = try await adapter.refundStatus(id: "re_OpenCat01")
        #expect(status.status == .pending && status.amount == Money(minorUnits: 250, currency: "USD"))
        #expect(status.transactionId == "pi_OpenCat01" && status.reason == "requested_by_customer")
        let normalized = try await adapter.refunds(transactionId: "pi_OpenCat01", cursor: nil, limit: 1)
        #expect(normalized.refunds.map(\.id) == ["re_OpenCat02"] && normalized.nextCursor == "re_OpenCat02")
        #expect(normalized.refunds.first?.status == .succeeded)
    }

    @Test func aRefundWaitingForTheCustomerIsCancelledOnceAndAgainIsAlreadyDone() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .post,
            "/stripe/v1/refunds/re_OpenCat03/cancel",
            exact: true,
            times: 1,
            json: Self.refund("re_OpenCat03", status: "canceled")
        )
        transport.on(
            .post,
            "/stripe/v1/refunds/re_OpenCat03/cancel",
            exact: true,
            status: 400,
            json: #"{"error":{"type":"invalid_request_error","message":"This refund cannot be canceled."}}"#
        )
        transport.on(
            .get,
            "/stripe/v1/refunds/re_OpenCat03",
            exact: true,
            json: Self.refund("re_OpenCat03", status: "canceled")
        )
        let adapter = Fixtures.adapter(transport)
        let cancelled = try await adapter.cancelRefund(id: "re_OpenCat03")
        #expect(cancelled.status == .canceled && cancelled.storeStatus == "canceled" && cancelled.store == .stripe)
        let post = try #require(transport.requests.first)
        #expect(post.request.headerFields[HTTPField.Name("Idempotency-Key")!] == "opencat-cancel-re_OpenCat03")
        let again = try await #require(throws: StoreAdapterError.self) {
            try await adapter.cancelRefund(id: "re_OpenCat03")
        }
        #expect(again.code == .alreadyDone)
        let bad = try await #require(throws: StoreAdapterError.self) { try await adapter.refund(id: "re_../x") }
        #expect(bad.code == .invalidProof)
    }
}

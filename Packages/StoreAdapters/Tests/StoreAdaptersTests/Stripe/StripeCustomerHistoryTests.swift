import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// A Stripe customer's subscriptions (every status, mapped as verify maps one) and invoices, with the query Stripe's
/// API reference describes; bad ids are refused before a request.
struct StripeCustomerHistoryTests {
    private typealias Fixtures = StripeTestFixtures

    static func subscription(_ id: String, status: String, product: String = "pro") -> String {
        """
        {"id":"\(id)","object":"subscription","status":"\(status)","livemode":true,"created":1700000000,
         "start_date":1700000000,"current_period_start":1700000000,"current_period_end":1702592000,
         "cancel_at_period_end":false,"ended_at":\(status == "canceled" ? "1701000000" : "null"),
         "metadata":{"product_id":"\(product)","app_user_id":"u1"},
         "items":{"data":[{"id":"si_1","quantity":1,"price":{"id":"price_1","currency":"usd","unit_amount":999}}]},
         "latest_invoice":{"id":"in_1","status":"paid"}}
        """
    }

    @Test func aCustomersSubscriptionsOfEveryStatusArePurchasesWithTheNextCursor() async throws {
        let transport = ScriptedTransport()
        let list = [Self.subscription("sub_A1", status: "active"), Self.subscription("sub_B2", status: "canceled")]
        transport.on(
            .get,
            "/stripe/v1/subscriptions",
            json:
                #"{"object":"list","data":[\#(list.joined(separator: ","))],"has_more":true,"url":"/v1/subscriptions"}"#
        )
        let page = try await Fixtures.adapter(transport).subscriptions(
            customer: "cus_OpenCat1",
            cursor: "sub_Z9",
            limit: 2
        )
        #expect(page.purchases.map(\.originalTransactionId) == ["sub_A1", "sub_B2"])
        #expect(page.purchases.map(\.state) == [.active, .expired])
        #expect(page.nextCursor == "sub_B2")
        #expect(
            transport.requests.last?.path
                == "/stripe/v1/subscriptions?customer=cus_OpenCat1&status=all&limit=2&expand%5B%5D=data.latest_invoice"
                + "&starting_after=sub_Z9"
        )
    }

    @Test func aCustomersInvoicesAreListedWithWhatTheyBilledAndTheirSubscription() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/stripe/v1/invoices",
            json:
                #"{"object":"list","data":[{"id":"in_2","object":"invoice","status":"open","amount_due":999,"amount_paid":0,"currency":"usd","created":1702592000,"subscription":"sub_A1","billing_reason":"subscription_cycle","attempt_count":1}],"has_more":false,"url":"/v1/invoices"}"#
        )
        let page = try await Fixtures.adapter(transport).invoices(customer: "cus_OpenCat1", limit: 1)
        let invoice = try #require(page.data.first)
        #expect(invoice.status == "open" && invoice.amountDue == 999 && invoice.subscription == "sub_A1")
        #expect(invoice.billingReason == "subscription_cycle" && !page.hasMore)
        #expect(transport.requests.last?.path == "/stripe/v1/invoices?customer=cus_OpenCat1&limit=1")
    }

    /// From API version 2025-03-31 an invoice names its subscription under `parent.subscription_details` (Stripe's
    /// `basil` changelog: `subscription` was removed from the invoice).
    @Test func anInvoiceOfTheNewerAPIShapeNamesItsSubscription() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            "/stripe/v1/invoices",
            json: #"""
                {"object":"list","data":[{"id":"in_3","object":"invoice","status":"paid","amount_due":999,
                 "amount_paid":999,"currency":"usd","created":1702592000,"billing_reason":"subscription_cycle",
                 "attempt_count":1,"parent":{"type":"subscription_details","quote_details":null,
                 "subscription_details":{"metadata":{},"subscription":"sub_A1"}}}],
                 "has_more":false,"url":"/v1/invoices"}
                """#
        )
        let page = try await Fixtures.adapter(transport).invoices(customer: "cus_OpenCat1", limit: 1)
        #expect(page.data.first?.subscription == "sub_A1")
        let expanded = Data(#"{"id":"in_4","subscription":{"id":"sub_B2","object":"subscription"}}"#.utf8)
        #expect(try JSONDecoder().decode(Stripe.Subscription.Invoice.self, from: expanded).subscription == "sub_B2")
    }

    @Test func idsThatAreNotACustomersOrTheirKindAreRefusedBeforeARequest() async throws {
        let transport = ScriptedTransport()
        let adapter = Fixtures.adapter(transport)
        for call in [
            { try await adapter.subscriptions(customer: "acct_1", cursor: nil, limit: 10) },
            { try await adapter.subscriptions(customer: "cus_1", cursor: "in_1", limit: 10) },
        ] as [@Sendable () async throws -> PurchasePage] {
            let error = try await #require(throws: StoreAdapterError.self) { try await call() }
            #expect(error.code == .invalidProof)
        }
        let error = try await #require(throws: StoreAdapterError.self) {
            try await adapter.invoices(customer: "cus_1", startingAfter: "sub_1")
        }
        #expect(error.code == .invalidProof && transport.requests.isEmpty)
    }
}

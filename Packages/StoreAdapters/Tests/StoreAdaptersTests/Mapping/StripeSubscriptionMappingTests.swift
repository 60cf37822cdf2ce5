import Foundation
import OpenCatCore
import Testing

@testable import StoreAdapters

/// Stripe Billing subscriptions → ``VerifiedPurchase``: every status, both past-due policies, renewal, trials,
/// pauses, prices and the webhook events that carry a subscription or an invoice.
struct StripeSubscriptionMappingTests {
    static func subscription(_ status: String, _ extra: String = "") throws -> Stripe.Subscription {
        let json = """
            {"id":"sub_1","object":"subscription","status":"\(status)","livemode":true,"created":1700000000,
             "start_date":1700000000,"current_period_start":1700000000,"current_period_end":1702592000,
             "cancel_at_period_end":false,"metadata":{"product_id":"pro","app_user_id":"u1"},
             "items":{"data":[{"id":"si_1","quantity":2,"price":{"id":"price_1","currency":"jpy","unit_amount":1200,
               "lookup_key":"pro_lookup"}}]},
             "latest_invoice":{"id":"in_1","status":"open","next_payment_attempt":1700600000}\(extra)}
            """
        // A later duplicate key would not override the earlier one: extra members replace the defaults instead.
        let body =
            extra.contains("cancel_at_period_end")
            ? json.replacingOccurrences(of: #""cancel_at_period_end":false,"#, with: "") : json
        return try JSONDecoder().decode(Stripe.Subscription.self, from: Data(body.utf8))
    }

    static let configuration = StripeAdapter.Configuration(secretKey: "sk_test_x")

    static let table: [(String, VerifiedPurchase.State?)] = [
        ("trialing", .active), ("active", .active), ("past_due", .billingRetry), ("incomplete", .pending),
        ("unpaid", .expired), ("canceled", .expired), ("incomplete_expired", .expired), ("paused", .expired),
        ("something_new", nil),
    ]

    @Test(arguments: table)
    func everyStatusMaps(_ status: String, _ expected: VerifiedPurchase.State?) throws {
        let subscription = try Self.subscription(status)
        guard let expected else {
            #expect {
                try StripeAdapter.purchase(
                    from: subscription,
                    expectedProductId: nil,
                    configuration: Self.configuration
                )
            } throws: { ($0 as? StoreAdapterError)?.code == .malformedResponse }
            return
        }
        let purchase = try StripeAdapter.purchase(
            from: subscription,
            expectedProductId: "pro",
            configuration: Self.configuration
        )
        #expect(purchase.state == expected)
        #expect(purchase.originalTransactionId == "sub_1" && purchase.transactionId == "in_1")
        #expect(purchase.storeStatus == status)
    }

    @Test func activeRenewsUntilThePeriodsEndWithAnExactPrice() throws {
        let purchase = try StripeAdapter.purchase(
            from: try Self.subscription("active"),
            expectedProductId: "pro",
            configuration: Self.configuration
        )
        #expect(purchase.expirationDate == Date(timeIntervalSince1970: 1_702_592_000))
        #expect(purchase.willRenew)
        // ¥1,200 × 2, JPY has no minor unit.
        #expect(purchase.price == Money(minorUnits: 2400, currency: "jpy", exponent: 0))
        #expect(purchase.quantity == 2 && purchase.purchaser == "u1")
    }

    @Test func cancelledAtPeriodEndStaysActiveWithoutRenewing() throws {
        let purchase = try StripeAdapter.purchase(
            from: try Self.subscription("active", #","cancel_at_period_end":true"#),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(purchase.state == .active && !purchase.willRenew)
    }

    @Test func pastDueGrantsGraceOnlyWhenConfigured() throws {
        var configuration = Self.configuration
        configuration.pastDue = .gracePeriod
        let purchase = try StripeAdapter.purchase(
            from: try Self.subscription("past_due"),
            expectedProductId: nil,
            configuration: configuration
        )
        #expect(purchase.state == .gracePeriod)
        #expect(purchase.gracePeriodExpirationDate == Date(timeIntervalSince1970: 1_700_600_000))
    }

    @Test func aTrialEndsAtTrialEndAndAPausedCollectionGrantsNothingNew() throws {
        let trial = try StripeAdapter.purchase(
            from: try Self.subscription("trialing", #","trial_end":1701000000"#),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(trial.expirationDate == Date(timeIntervalSince1970: 1_701_000_000))
        // A trial period costs nothing: the price is 0 in the plan's currency (analytics count it as a trial).
        #expect(trial.price?.amount == 0 && trial.price?.currency.uppercased() == "JPY")
        let paused = try StripeAdapter.purchase(
            from: try Self.subscription("active", #","pause_collection":{"behavior":"void","resumes_at":null}"#),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(!paused.willRenew && paused.storeStatus == "active/paused")
    }

    @Test func theProductComesFromMetadataOrTheLookupKeyAndIsChecked() throws {
        #expect {
            try StripeAdapter.purchase(
                from: try Self.subscription("active"),
                expectedProductId: "other",
                configuration: Self.configuration
            )
        } throws: { ($0 as? StoreAdapterError)?.code == .productMismatch }
        var configuration = Self.configuration
        configuration.productMetadataKey = "absent"
        let purchase = try StripeAdapter.purchase(
            from: try Self.subscription("active"),
            expectedProductId: nil,
            configuration: configuration
        )
        #expect(purchase.productId == "pro_lookup")
    }

    @Test func webhookEventsCarryTheSubscriptionOrTheInvoicesSubscription() throws {
        let subscriptionEvent = try Stripe.Event(
            payload: Data(
                #"{"id":"evt_1","object":"event","type":"customer.subscription.updated","created":1700000100,"livemode":true,"data":{"object":{"id":"sub_9","object":"subscription","status":"past_due","livemode":true,"created":1700000000,"metadata":{"product_id":"pro"},"items":{"data":[]}}}}"#
                    .utf8
            )
        )
        #expect(subscriptionEvent.subscription?.status == .pastDue)
        let invoiceEvent = try Stripe.Event(
            payload: Data(
                #"{"id":"evt_2","object":"event","type":"invoice.payment_failed","created":1700000100,"livemode":true,"data":{"object":{"id":"in_9","object":"invoice","status":"open","attempt_count":1,"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_9"}}}}}"#
                    .utf8
            )
        )
        #expect(invoiceEvent.invoice?.attemptCount == 1)
        #expect(invoiceEvent.invoiceSubscription == "sub_9")
    }

    @Test func aDisputedChargeIsAChargebackThatRevokes() throws {
        let intent = try JSONDecoder().decode(
            Stripe.PaymentIntent.self,
            from: Data(
                #"{"id":"pi_1","amount":500,"amount_received":500,"currency":"usd","status":"succeeded","livemode":true,"created":1700000000,"metadata":{"product_id":"gems"},"latest_charge":{"id":"ch_1","amount":500,"amount_captured":500,"amount_refunded":0,"refunded":false,"disputed":true,"status":"succeeded"}}"#
                    .utf8
            )
        )
        let purchase = try StripeAdapter.purchase(
            from: intent,
            expectedProductId: "gems",
            configuration: Self.configuration
        )
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(minorUnits: 500, currency: "usd", exponent: 2))
        #expect(purchase.storeStatus == "succeeded/disputed")
    }

    @Test func anActiveSubscriptionWithoutAPeriodEndIsNeverOpenEnded() throws {
        let json =
            #"{"id":"sub_2","status":"active","livemode":true,"created":1700000000,"metadata":{"product_id":"pro"},"items":{"data":[]}}"#
        let subscription = try JSONDecoder().decode(Stripe.Subscription.self, from: Data(json.utf8))
        #expect {
            try StripeAdapter.purchase(from: subscription, expectedProductId: nil, configuration: Self.configuration)
        } throws: { ($0 as? StoreAdapterError)?.code == .malformedResponse }
    }

    @Test func anEarlierCancelAtEndsAccessFirst() throws {
        let purchase = try StripeAdapter.purchase(
            from: try Self.subscription("active", #","cancel_at":1701000000"#),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(purchase.expirationDate == Date(timeIntervalSince1970: 1_701_000_000) && !purchase.willRenew)
    }
}

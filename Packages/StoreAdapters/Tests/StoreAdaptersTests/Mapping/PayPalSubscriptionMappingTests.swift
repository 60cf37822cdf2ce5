import Foundation
import OpenCatCore
import Testing

@testable import StoreAdapters

/// PayPal subscriptions → ``VerifiedPurchase``: every status, failed payments as grace, trials, plan → product,
/// exact prices and the webhook events that carry a subscription or a sale.
struct PayPalSubscriptionMappingTests {
    static func subscription(_ status: String, failed: Int = 0, trial: Bool = false) throws -> PayPal.Subscription {
        let cycles =
            trial
            ? #"[{"tenure_type":"TRIAL","sequence":1,"cycles_completed":1,"cycles_remaining":1,"total_cycles":2},{"tenure_type":"REGULAR","sequence":2,"cycles_completed":0,"cycles_remaining":0,"total_cycles":0}]"#
            : #"[{"tenure_type":"REGULAR","sequence":1,"cycles_completed":3,"cycles_remaining":0,"total_cycles":0}]"#
        let json = """
            {"id":"I-1","plan_id":"P-1","status":"\(status)","status_update_time":"2026-11-01T00:00:00Z",
             "start_time":"2026-08-01T00:00:00Z","quantity":"1","custom_id":"u1",
             "billing_info":{"cycle_executions":\(cycles),"last_payment":{"amount":{"currency_code":"JPY","value":"1200"},
               "time":"2026-11-01T00:00:00Z"},"next_billing_time":"2026-12-01T00:00:00Z","failed_payments_count":\(failed)}}
            """
        return try JSONDecoder().decode(PayPal.Subscription.self, from: Data(json.utf8))
    }

    static let configuration = PayPalAdapter.Configuration(
        clientId: "c",
        clientSecret: "s",
        environment: .live,
        payeeMerchantId: "M",
        prices: [:],
        subscriptionPlans: ["P-1": "pro"]
    )

    static let table: [(String, Int, VerifiedPurchase.State?)] = [
        ("APPROVAL_PENDING", 0, .pending), ("APPROVED", 0, .pending), ("ACTIVE", 0, .active),
        ("ACTIVE", 2, .gracePeriod),
        ("SUSPENDED", 3, .billingRetry), ("SUSPENDED", 0, .expired), ("CANCELLED", 0, .expired),
        ("EXPIRED", 0, .expired),
        ("PAUSED_FOREVER", 0, nil),
    ]

    @Test(arguments: table)
    func everyStatusMaps(_ status: String, _ failed: Int, _ expected: VerifiedPurchase.State?) throws {
        let subscription = try Self.subscription(status, failed: failed)
        guard let expected else {
            #expect {
                try PayPalAdapter.purchase(
                    from: subscription,
                    expectedProductId: nil,
                    configuration: Self.configuration
                )
            } throws: { ($0 as? StoreAdapterError)?.code == .malformedResponse }
            return
        }
        let purchase = try PayPalAdapter.purchase(
            from: subscription,
            expectedProductId: "pro",
            configuration: Self.configuration
        )
        #expect(purchase.state == expected)
        #expect(purchase.productId == "pro" && purchase.purchaser == "u1")
        #expect(purchase.price == Money(decimalString: "1200", currency: "JPY"))
    }

    @Test func activeRenewsAtTheNextBillingTimeAndTrialsAreMarked() throws {
        let date = try #require(PayPalDate.parse("2026-12-01T00:00:00Z"))
        let active = try PayPalAdapter.purchase(
            from: try Self.subscription("ACTIVE"),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(active.expirationDate == date && active.willRenew)
        let trial = try PayPalAdapter.purchase(
            from: try Self.subscription("ACTIVE", trial: true),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(trial.state == .active && trial.storeStatus == "ACTIVE/trial")
        let grace = try PayPalAdapter.purchase(
            from: try Self.subscription("ACTIVE", failed: 1),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(grace.gracePeriodExpirationDate == date)
        let cancelled = try PayPalAdapter.purchase(
            from: try Self.subscription("CANCELLED"),
            expectedProductId: nil,
            configuration: Self.configuration
        )
        #expect(cancelled.expirationDate == PayPalDate.parse("2026-11-01T00:00:00Z") && !cancelled.willRenew)
    }

    @Test func anotherPlanIsAProductMismatch() throws {
        #expect {
            try PayPalAdapter.purchase(
                from: try Self.subscription("ACTIVE"),
                expectedProductId: "other",
                configuration: Self.configuration
            )
        } throws: { ($0 as? StoreAdapterError)?.code == .productMismatch }
    }

    @Test func webhookEventsCarryTheSubscriptionOrTheSalesAgreement() throws {
        let suspended = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-1","event_type":"BILLING.SUBSCRIPTION.SUSPENDED","resource_type":"subscription","create_time":"2026-11-20T00:00:00Z","resource":{"id":"I-1","plan_id":"P-1","status":"SUSPENDED"}}"#
                    .utf8
            )
        )
        #expect(suspended.subscription?.status == .suspended)
        let sale = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-2","event_type":"PAYMENT.SALE.COMPLETED","resource_type":"sale","resource":{"id":"S-1","billing_agreement_id":"I-1","state":"completed"}}"#
                    .utf8
            )
        )
        #expect(sale.saleSubscriptionId == "I-1")
    }

    /// A refund's resource names its capture by its `up` link (or `related_ids.capture_id`); a capture's resource is
    /// the capture and may name its order.
    @Test func captureEventsNameTheirCaptureAndOrder() throws {
        let refunded = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-3","event_type":"PAYMENT.CAPTURE.REFUNDED","resource_type":"refund","resource":{"id":"R-1","status":"COMPLETED","amount":{"currency_code":"USD","value":"1.00"},"links":[{"href":"https://api-m.paypal.com/v2/payments/refunds/R-1","rel":"self","method":"GET"},{"href":"https://api-m.paypal.com/v2/payments/captures/C-7","rel":"up","method":"GET"}]}}"#
                    .utf8
            )
        )
        #expect(refunded.captureId == "C-7")
        #expect(refunded.relatedOrderId == nil)
        let related = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-4","event_type":"PAYMENT.CAPTURE.REFUNDED","resource_type":"refund","resource":{"id":"R-2","supplementary_data":{"related_ids":{"capture_id":"C-8","order_id":"O-8"}}}}"#
                    .utf8
            )
        )
        #expect(related.captureId == "C-8")
        #expect(related.relatedOrderId == "O-8")
        let completed = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-5","event_type":"PAYMENT.CAPTURE.COMPLETED","resource_type":"capture","resource":{"id":"C-9","status":"COMPLETED","supplementary_data":{"related_ids":{"order_id":"O-9"}}}}"#
                    .utf8
            )
        )
        #expect(completed.captureId == "C-9")
        #expect(completed.relatedOrderId == "O-9")
        #expect(completed.capture?.id == "C-9")
        let unrelated = try PayPal.Event(
            payload: Data(
                #"{"id":"WH-6","event_type":"PAYMENT.CAPTURE.REFUNDED","resource_type":"refund","resource":{"id":"R-3","links":[{"href":"https://api-m.paypal.com/v2/checkout/orders/O-1","rel":"up"}]}}"#
                    .utf8
            )
        )
        #expect(unrelated.captureId == nil)
    }

    @Test func aCaptureHeldForAChargebackRevokes() throws {
        let order = try JSONDecoder().decode(
            PayPal.Order.self,
            from: Data(
                #"{"id":"O-1","intent":"CAPTURE","status":"COMPLETED","create_time":"2026-11-22T10:00:00Z","purchase_units":[{"reference_id":"gems","custom_id":"u1","amount":{"currency_code":"USD","value":"5.00"},"payments":{"captures":[{"id":"C-1","status":"PENDING","status_details":{"reason":"CHARGEBACK"},"amount":{"currency_code":"USD","value":"5.00"}}]}}]}"#
                    .utf8
            )
        )
        let purchase = try PayPalAdapter.purchase(
            from: order,
            expectedProductId: "gems",
            environment: .live,
            finalizedByAdapter: false
        )
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(decimalString: "5.00", currency: "USD"))
    }

    @Test func anUnlistedPlanAndAnOpenEndedActiveSubscriptionAreRefused() throws {
        var configuration = Self.configuration
        configuration.subscriptionPlans = ["P-other": "other"]
        #expect {
            try PayPalAdapter.purchase(
                from: try Self.subscription("ACTIVE"),
                expectedProductId: nil,
                configuration: configuration
            )
        } throws: { ($0 as? StoreAdapterError)?.code == .wrongApplication }
        let bare = try JSONDecoder().decode(
            PayPal.Subscription.self,
            from: Data(#"{"id":"I-2","plan_id":"P-1","status":"ACTIVE"}"#.utf8)
        )
        #expect {
            try PayPalAdapter.purchase(from: bare, expectedProductId: nil, configuration: Self.configuration)
        } throws: { ($0 as? StoreAdapterError)?.code == .malformedResponse }
    }
}

import Foundation
import OpenCatCore
import Testing

@testable import StoreAdapters

/// The pure store → ``VerifiedPurchase`` mappings, one table per store: each row is a store's raw status and what
/// it must become (a state, or the error code that refuses it). No HTTP is involved.
struct PurchaseMappingTableTests {
    enum Expected: Sendable, CustomStringConvertible {
        case state(VerifiedPurchase.State)
        case error(StoreAdapterError.Code)

        var description: String {
            switch self {
            case .state(let state): "\(state)"
            case .error(let code): "error \(code.rawValue)"
            }
        }
    }

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func check(_ expected: Expected, _ map: () throws -> VerifiedPurchase) {
        switch expected {
        case .state(let state):
            do { #expect(try map().state == state) } catch { Issue.record("refused: \(error)") }
        case .error(let code):
            #expect { _ = try map() } throws: { ($0 as? StoreAdapterError)?.code == code }
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    // MARK: Google products

    static let googleProducts: [(Int?, Expected)] = [
        (0, .state(.active)), (2, .state(.pending)), (1, .error(.notPaid)), (7, .error(.malformedResponse)),
        (nil, .error(.malformedResponse)),
    ]

    @Test(arguments: googleProducts)
    func googleProductPurchaseState(_ raw: Int?, _ expected: Expected) throws {
        let state = raw.map { #""purchaseState":\#($0),"# } ?? ""
        let purchase = try Self.decode(
            ProductPurchase.self,
            #"""
            {\#(state)"purchaseTimeMillis":"1700000000123","orderId":"GPA.1","productId":"coins","quantity":3,
             "purchaseType":0}
            """#
        )
        let proof = PurchaseProof(store: .google, kind: .googleProductPurchaseToken, token: "t", productId: "coins")
        Self.check(expected) {
            let mapped = try GooglePurchaseMapping.product(purchase, proof: proof, productId: "coins", verifiedAt: nil)
            #expect(mapped.environment == .sandbox)  // purchaseType 0: a test purchase
            #expect(mapped.quantity == 3)
            #expect(mapped.purchaseDate == Date(timeIntervalSince1970: 1_700_000_000.123))
            return mapped
        }
    }

    // MARK: Google subscriptions

    static let googleSubscriptions: [(String, String, Expected)] = [
        ("ACTIVE", "2023-12-01T00:00:00Z", .state(.active)),
        ("IN_GRACE_PERIOD", "2023-11-20T00:00:00Z", .state(.gracePeriod)),
        ("ON_HOLD", "2023-11-01T00:00:00Z", .state(.billingRetry)),
        ("PAUSED", "2023-11-01T00:00:00Z", .state(.expired)),
        ("CANCELED", "2023-12-01T00:00:00Z", .state(.active)),  // until its expiry
        ("CANCELED", "2023-11-01T00:00:00Z", .state(.expired)),
        ("EXPIRED", "2023-11-01T00:00:00Z", .state(.expired)),
        ("PENDING", "2023-12-01T00:00:00Z", .state(.pending)),
        ("PENDING_PURCHASE_CANCELED", "2023-12-01T00:00:00Z", .error(.notPaid)),
        ("SOMETHING_NEW", "2023-12-01T00:00:00Z", .error(.malformedResponse)),
    ]

    @Test(arguments: googleSubscriptions)
    func googleSubscriptionState(_ raw: String, _ expiry: String, _ expected: Expected) throws {
        let subscription = try Self.decode(
            SubscriptionPurchaseV2.self,
            #"""
            {"subscriptionState":"SUBSCRIPTION_STATE_\#(raw)","startTime":"2023-10-01T00:00:00.250Z",
             "latestOrderId":"GPA.1234-5678-9012-34567..2",
             "lineItems":[{"productId":"pro.monthly","expiryTime":"\#(expiry)",
                           "autoRenewingPlan":{"autoRenewEnabled":true}}]}
            """#
        )
        let proof = PurchaseProof(
            store: .google,
            kind: .googleSubscriptionPurchaseToken,
            token: "t",
            productId: "pro.monthly"
        )
        Self.check(expected) {
            let mapped = try GooglePurchaseMapping.subscription(
                subscription,
                proof: proof,
                now: Self.now,
                verifiedAt: nil
            )
            #expect(mapped.originalTransactionId == "GPA.1234-5678-9012-34567")
            #expect(mapped.environment == .production)
            #expect(mapped.gracePeriodExpirationDate == (mapped.state == .gracePeriod ? mapped.expirationDate : nil))
            return mapped
        }
    }

    /// A line item in its free trial (`offerPhase.freeTrial`) costs nothing this period; in its base price it costs the
    /// recurring price.
    @Test(arguments: [("freeTrial", "0"), ("basePrice", "4.99")])
    func aGoogleFreeTrialCostsNothingThisPeriod(_ phase: String, _ price: String) throws {
        let subscription = try Self.decode(
            SubscriptionPurchaseV2.self,
            #"""
            {"subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","startTime":"2023-10-01T00:00:00.250Z",
             "latestOrderId":"GPA.1234-5678-9012-34567",
             "lineItems":[{"productId":"pro.monthly","expiryTime":"2023-11-20T00:00:00Z","offerPhase":{"\#(phase)":{}},
                           "autoRenewingPlan":{"autoRenewEnabled":true,
                             "recurringPrice":{"currencyCode":"EUR","units":"4","nanos":990000000}}}]}
            """#
        )
        let proof = PurchaseProof(store: .google, kind: .googleSubscriptionPurchaseToken, token: "t")
        let mapped = try GooglePurchaseMapping.subscription(subscription, proof: proof, now: Self.now, verifiedAt: nil)
        #expect(mapped.price == Money(decimalString: price, currency: "EUR"))
    }

    // MARK: Steam

    static let steamOrders: [(String, Bool, String?, Expected)] = [
        ("Succeeded", false, nil, .state(.active)),
        ("Approved", true, nil, .state(.active)),
        ("Approved", false, nil, .state(.pending)),
        ("Init", false, nil, .state(.pending)),
        ("Failed", false, nil, .error(.notPaid)),
        ("Refunded", false, nil, .state(.refunded)),
        ("Chargedback", false, nil, .state(.refunded)),
        ("RefundedSuspectedFraud", false, nil, .state(.refunded)),
        ("PartialRefund", false, "Refunded", .state(.refunded)),
        ("PartialRefund", false, "Succeeded", .state(.active)),
        ("Unheard", false, nil, .error(.malformedResponse)),
    ]

    @Test(arguments: steamOrders)
    func steamOrderStatus(_ status: String, _ finalized: Bool, _ itemStatus: String?, _ expected: Expected) throws {
        let line = itemStatus.map { #","itemstatus":"\#($0)""# } ?? ""
        let params = try Self.decode(
            QueryTxnParams.self,
            #"""
            {"orderid":"938473","transid":"374839","steamid":"76561197960287930","status":"\#(status)",
             "currency":"EUR","time":"2023-11-14T22:13:20Z",
             "items":[{"itemid":"gem.pack","qty":2,"amount":499\#(line)},{"itemid":"other","qty":1,"amount":100}]}
            """#
        )
        let proof = PurchaseProof(store: .steam, kind: .steamOrder, token: "938473", productId: "gem.pack")
        Self.check(expected) {
            let mapped = try SteamPurchaseMapping.purchase(
                params,
                proof: proof,
                finalized: finalized,
                sandbox: true,
                now: Self.now,
                verifiedAt: nil
            )
            #expect(mapped.price == Money(minorUnits: 499, currency: "EUR", exponent: 2))
            #expect(mapped.quantity == 2)
            #expect(mapped.environment == .sandbox)
            #expect(mapped.refundedAmount == (mapped.state == .refunded ? mapped.price : nil))
            return mapped
        }
    }

    // MARK: Stripe

    static let stripeIntents: [(String, String, Expected)] = [
        ("succeeded", #""refunded":false,"amount_refunded":0"#, .state(.active)),
        ("succeeded", #""refunded":true,"amount_refunded":1999"#, .state(.refunded)),
        ("succeeded", #""refunded":false,"amount_refunded":500"#, .state(.refunded)),  // partly refunded
        ("processing", #""refunded":false,"amount_refunded":0"#, .state(.pending)),
        ("requires_capture", #""refunded":false,"amount_refunded":0"#, .state(.pending)),
        ("requires_payment_method", #""refunded":false,"amount_refunded":0"#, .error(.notPaid)),
        ("canceled", #""refunded":false,"amount_refunded":0"#, .error(.notPaid)),
        ("teleported", #""refunded":false,"amount_refunded":0"#, .error(.malformedResponse)),
    ]

    @Test(arguments: stripeIntents)
    func stripePaymentIntentStatus(_ status: String, _ charge: String, _ expected: Expected) throws {
        let intent = try Self.decode(
            Stripe.PaymentIntent.self,
            #"""
            {"id":"pi_1","object":"payment_intent","amount":1999,"amount_received":1999,"currency":"eur",
             "status":"\#(status)","livemode":false,"created":1700000000,
             "metadata":{"product_id":"gems_500","app_user_id":"u1"},
             "latest_charge":{"id":"ch_1","object":"charge","amount":1999,"amount_captured":1999,\#(charge)}}
            """#
        )
        let configuration = StripeAdapter.Configuration(secretKey: "sk_test_x")
        Self.check(expected) {
            let mapped = try StripeAdapter.purchase(
                from: intent,
                expectedProductId: "gems_500",
                configuration: configuration
            )
            #expect(mapped.price == Money(minorUnits: 1999, currency: "EUR", exponent: 2))
            #expect(mapped.purchaser == "u1" && mapped.environment == .sandbox)
            if mapped.state == .refunded { #expect(mapped.refundedAmount != nil) }
            return mapped
        }
    }

    // MARK: PayPal

    static let payPalOrders: [(String, String?, Expected)] = [
        ("COMPLETED", "COMPLETED", .state(.active)),
        ("COMPLETED", "PENDING", .state(.pending)),
        ("COMPLETED", "REFUNDED", .state(.refunded)),
        ("COMPLETED", "PARTIALLY_REFUNDED", .state(.refunded)),
        ("COMPLETED", "DECLINED", .error(.notPaid)),
        ("COMPLETED", "FAILED", .error(.notPaid)),
        ("APPROVED", nil, .state(.pending)),
        ("CREATED", nil, .state(.pending)),
        ("VOIDED", nil, .error(.notPaid)),
        ("SOMETHING_NEW", nil, .error(.malformedResponse)),
    ]

    @Test(arguments: payPalOrders)
    func payPalOrderStatus(_ status: String, _ capture: String?, _ expected: Expected) throws {
        let payments =
            capture.map {
                #""payments":{"captures":[{"id":"CAP1","status":"\#($0)","amount":{"currency_code":"USD","value":"5.00"},"create_time":"2023-11-14T22:13:20Z"}],"refunds":[{"id":"R1","status":"COMPLETED","amount":{"currency_code":"USD","value":"2.50"}}]},"#
            } ?? ""
        let order = try Self.decode(
            PayPal.Order.self,
            #"""
            {"id":"5O190127TN364715T","status":"\#(status)","create_time":"2023-11-14T22:13:20Z",
             "purchase_units":[{"reference_id":"gems_500","custom_id":"u1",\#(payments)
                                "amount":{"currency_code":"USD","value":"5.00"}}]}
            """#
        )
        Self.check(expected) {
            let mapped = try PayPalAdapter.purchase(from: order, expectedProductId: "gems_500", environment: .sandbox)
            #expect(mapped.price == Money(decimalString: "5.00", currency: "USD"))
            #expect(mapped.purchaser == "u1" && mapped.environment == .sandbox)
            #expect(
                mapped.refundedAmount
                    == (mapped.state == .refunded ? Money(decimalString: "2.50", currency: "USD") : nil)
            )
            return mapped
        }
    }
}

import Foundation
import OpenCatCore
import StoreAdapters
import Testing

@testable import OpenCatServer

/// The purchase acceptance rules as values: each judges one thing, a route composes them, the first refusal is the
/// answer with its shared code.
struct PurchaseAcceptanceTests {
    static func purchase(
        store: Store = .stripe,
        product: String = "keys_10",
        state: VerifiedPurchase.State = .active,
        environment: VerifiedPurchase.Environment = .production,
        quantity: Int = 1,
        price: Money? = Money(amount: 10, currency: "usd"),
        purchaser: String? = nil
    ) -> VerifiedPurchase {
        VerifiedPurchase(
            store: store,
            transactionId: "t1",
            productId: product,
            purchaser: purchaser,
            purchaseDate: Date(timeIntervalSince1970: 1_790_000_000),
            state: state,
            environment: environment,
            quantity: quantity,
            price: price
        )
    }

    static let keyPackRules = PurchaseAcceptance([
        .environment([:]), .paid, .keyPack(["keys_10": KeyPack(keys: 10)]), .quantity(in: 1...100),
        .unitPrice { $0 == .stripe ? ["keys_10": Money(amount: 10, currency: "USD")] : [:] },
    ])

    static func reason(_ acceptance: PurchaseAcceptance, _ purchase: VerifiedPurchase) -> String? {
        do throws(PurchaseRejection) {
            try acceptance.check(purchase)
            return nil
        } catch { return error.reason.rawValue }
    }

    @Test func theKeyPackRulesAcceptAPaidPackAtItsPriceAndNameWhatTheyRefuse() {
        let rules = Self.keyPackRules
        #expect(Self.reason(rules, Self.purchase()) == nil)
        #expect(Self.reason(rules, Self.purchase(quantity: 3, price: Money(amount: 30, currency: "USD"))) == nil)
        #expect(Self.reason(rules, Self.purchase(environment: .sandbox)) == "sandboxNotAccepted")
        #expect(Self.reason(rules, Self.purchase(state: .pending)) == "notPaid")
        #expect(Self.reason(rules, Self.purchase(product: "other")) == "productMismatch")
        #expect(Self.reason(rules, Self.purchase(quantity: 101, price: nil)) == "invalidProof")
        #expect(Self.reason(rules, Self.purchase(quantity: 3)) == "productMismatch")
        #expect(Self.reason(rules, Self.purchase(price: nil)) == "productMismatch")
        // The listed price is Stripe's: a PayPal order is judged by its own order's total instead.
        #expect(Self.reason(rules, Self.purchase(store: .paypal, price: nil)) == nil)
        // The first rule broken is the answer.
        #expect(Self.reason(rules, Self.purchase(state: .refunded, environment: .sandbox)) == "sandboxNotAccepted")
    }

    @Test func aWebOrderAddsItsQuantityAndTotalToTheKeyPackRules() {
        let order = PurchaseAcceptance([.quantity(of: 2), .total(Money(amount: 20, currency: "USD"))])
            .adding(Self.keyPackRules.rules)
        let paid = Self.purchase(store: .paypal, quantity: 2, price: Money(amount: 20, currency: "usd"))
        #expect(Self.reason(order, paid) == nil)
        #expect(Self.reason(order, Self.purchase(store: .paypal, quantity: 3, price: nil)) == "productMismatch")
        #expect(
            Self.reason(order, Self.purchase(store: .paypal, quantity: 2, price: Money(amount: 2, currency: "USD")))
                == "productMismatch"
        )
    }

    @Test func aReceiptIsJudgedByItsReportedBuyerAndProduct() {
        let appUser = "6f1c1b8e-7a52-4d0e-9a53-0c4e2f3b9a11"
        let receipt = PurchaseAcceptance([.reportedPurchaser(appUser), .product("keys_10")])
        #expect(Self.reason(receipt, Self.purchase(store: .apple, purchaser: appUser.uppercased())) == nil)
        #expect(Self.reason(receipt, Self.purchase(store: .apple, purchaser: "someone-else")) == "purchaserMismatch")
        #expect(Self.reason(receipt, Self.purchase(store: .google, purchaser: appUser)) == nil)
        #expect(Self.reason(receipt, Self.purchase(product: "pro")) == "productMismatch")
        // Stores that report no buyer the app set are bound before verification instead.
        #expect(Self.reason(receipt, Self.purchase(store: .stripe, purchaser: "cus_1")) == nil)
    }
}

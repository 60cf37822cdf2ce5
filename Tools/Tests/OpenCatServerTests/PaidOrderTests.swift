import Foundation
import MockStoresServer
import OpenCatCore
import StoreAdapters
import Testing

@testable import OpenCatServer

/// Money states are honest: a web order the store says is paid and whose keys are not credited yet (a crash, a failed
/// write between the store's answer and the ledger's) is its own state, shown to the buyer as such and credited once
/// from the console.
struct PaidOrderTests {
    @Test(arguments: Backend.allCases)
    func aPaidButNotCreditedOrderIsShownAsSuchAndTheOperatorCreditsItOnce(_ backend: Backend) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let before = try await shop.portal.ledger.balance(of: "user-1")
            // The store's webhook never arrives and the buyer never comes back: the order is only `created`.
            let reference = try await shop.payWhileTheServerIsAway(buyer, store: "stripe")
            let session = try await shop.stripe.checkoutSession(id: reference)
            let intent = try #require(session.paymentIntent)
            // What a crash right after the store said "paid" leaves behind.
            try await shop.portal.ledger.markWebOrderPaid(store: "stripe", reference: reference, transactionId: intent)

            let wallet = try await buyer.get("/portal/wallet")
            #expect(wallet.html.contains(id: "crediting"))
            #expect(wallet.body.contains("paid, your keys are being credited"))
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before)

            let console = try await shop.portal.operatorSignIn()
            let customer = try await console.get("/console/customers/user-1")
            #expect(customer.body.contains("paid, not credited"))
            let credit = customer.html.fields(formContaining: "class=\"credit\"")
            #expect(credit["reference"] == reference)
            for _ in 0..<2 {
                let credited = try await console.post("/console/customers/user-1/credit", credit)
                #expect(credited.status == 303)
                #expect(credited.location?.hasSuffix("?notice=credited") == true)
            }
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before + 10)
            #expect(try await shop.portal.ledger.webOrder(store: "stripe", reference: reference)?.state == "credited")
            let after = try await buyer.get("/portal/wallet")
            #expect(!after.html.contains(id: "crediting"))
            #expect(try await shop.portal.ledger.auditLog(limit: 10).contains { $0.action == "credit_order" })
        }
    }

    /// The mock checkout refunds Stripe payments and PayPal captures as the stores do (and sends `charge.refunded`,
    /// `PAYMENT.CAPTURE.REFUNDED`): the console's refund works end to end on a local server and the wallet falls.
    @Test(arguments: Backend.allCases, ["stripe", "paypal"])
    func aConsoleRefundIsMadeByTheMockAndTakesTheKeysBack(_ backend: Backend, store: String) async throws {
        try await PortalCheckout.run(backend) { shop in
            let buyer = try await shop.portal.signIn(PortalHarness.alice)
            let before = try await shop.portal.ledger.balance(of: "user-1")
            let (_, returnPath) = try await shop.buyAndPay(buyer, store: store)
            _ = try await buyer.get(returnPath)
            try await shop.waitForWebhooks(1)
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before + 10)
            let redeemed = try await shop.portal.ledger.redemptions(of: "user-1").filter { $0.store == store }
            let transaction = try #require(redeemed.first?.transactionId)

            let console = try await shop.portal.operatorSignIn()
            let customer = try await console.get("/console/customers/user-1")
            var refund = customer.html.fields(formContaining: "id=\"refund-amount-\(transaction)\"")
            #expect(refund["transaction"] == transaction)
            #expect(refund["store"] == store)
            refund["reason"] = "customer asked"
            refund["amount"] = ""
            let refunded = try await console.post("/console/customers/user-1/refund", refund)
            #expect(refunded.location?.hasSuffix("?notice=refunded") == true, "\(refunded.body)")
            try await shop.waitForWebhooks(2)
            let event = store == "stripe" ? "charge.refunded" : "PAYMENT.CAPTURE.REFUNDED"
            #expect(shop.checkout.deliveries.last?.eventType == event)
            #expect(shop.checkout.deliveries.allSatisfy { $0.status == 200 }, "\(shop.checkout.deliveries)")
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before)
            #expect(try await shop.portal.ledger.heldKeys(store: store, transactionId: transaction) == 0)
            #expect(
                try await shop.portal.ledger.redemptions(of: "user-1").first { $0.store == store }?.refunded == true
            )
            // A second refund of the same payment is the store's "already refunded", said on the page.
            let again = try await console.post("/console/customers/user-1/refund", refund)
            #expect(again.status == 303 || again.status == 200)
            #expect(try await shop.portal.ledger.balance(of: "user-1") == before)
        }
    }
}

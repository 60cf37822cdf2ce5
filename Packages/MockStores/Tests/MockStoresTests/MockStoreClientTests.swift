import Crypto
import Foundation
import MockStores
import OpenCatCore
import OpenCatTesting
import Testing

struct MockStoreClientTests {
    static let gems = Product(
        id: "gems_500",
        store: .apple,
        type: .consumable,
        displayName: "500 Gems",
        price: Money(decimalString: "4.99", currency: "USD")!
    )
    static let lifetime = Product(
        id: "pro_lifetime",
        store: .apple,
        type: .nonConsumable,
        displayName: "Pro forever",
        price: Money(decimalString: "49.99", currency: "USD")!
    )
    static let monthly = Product(
        id: "pro_monthly",
        store: .apple,
        type: .autoRenewable,
        displayName: "Pro monthly",
        price: Money(decimalString: "9.99", currency: "USD")!,
        subscriptionPeriod: "P1M"
    )

    struct Declined: Error, Equatable {}

    static func makeStore(clock: ManualClock = ManualClock(), minter: MockStoreClient.ProofMinter? = nil)
        -> MockStoreClient
    {
        MockStoreClient(
            store: .apple,
            products: [gems, lifetime, monthly],
            clock: clock,
            minter: minter ?? MockStoreClient.defaultMinter
        )
    }

    @Test func productsAreServedFromTheCatalog() async throws {
        let store = Self.makeStore()
        let products = try await store.products(for: ["pro_monthly", "unknown", "gems_500"])
        #expect(products.map(\.id) == ["gems_500", "pro_monthly"])
    }

    @Test func aSuccessfulPurchaseMintsAProofAndFinishIsRecorded() async throws {
        let store = Self.makeStore()
        guard case .success(let proof) = try await store.purchase(productId: "pro_lifetime", appUserId: "u1") else {
            Issue.record("expected success")
            return
        }
        #expect(proof.kind == .appleTransactionId)
        #expect(proof.productId == "pro_lifetime")
        #expect(proof.transactionId == "1000000000000001")
        #expect(proof.token.revealed == "mock_apple_1000000000000001")
        #expect(try await store.currentEntitlements() == [proof])
        try await store.finish(proof)
        #expect(store.finishedTransactions == ["1000000000000001"])
        #expect(store.purchaseCallCount == 1)
    }

    @Test func consumablesAreNotCurrentEntitlements() async throws {
        let store = Self.makeStore()
        _ = try await store.purchase(productId: "gems_500", appUserId: "u1")
        #expect(try await store.currentEntitlements().isEmpty)
        #expect(store.transactions.count == 1)
    }

    @Test func scriptedOutcomesAreUsedInOrderThenTheDefault() async throws {
        let store = Self.makeStore()
        store.setOutcome(.cancelled, for: "gems_500")
        store.enqueueOutcomes([.failed(Declined()), .pending], for: "gems_500")
        await #expect(throws: Declined.self) { try await store.purchase(productId: "gems_500", appUserId: "u1") }
        #expect(try await store.purchase(productId: "gems_500", appUserId: "u1") == .pending)
        #expect(try await store.purchase(productId: "gems_500", appUserId: "u1") == .cancelled)
        await #expect(throws: MockStoreClientError.unknownProduct("nope")) {
            try await store.purchase(productId: "nope", appUserId: "u1")
        }
        #expect(store.transactions.isEmpty)
        #expect(store.pendingPurchases == ["gems_500"])
    }

    @Test func anApprovedPendingPurchaseArrivesOnTheUpdatesStream() async throws {
        let store = Self.makeStore()
        let updates = store.transactionUpdates()
        store.setOutcome(.pending, for: "pro_lifetime")
        #expect(try await store.purchase(productId: "pro_lifetime", appUserId: "u1") == .pending)
        let approved = try store.approvePendingPurchase(productId: "pro_lifetime")
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == approved)
        #expect(store.pendingPurchases.isEmpty)
        #expect(throws: MockStoreClientError.noPendingPurchase("pro_lifetime")) {
            try store.approvePendingPurchase(productId: "pro_lifetime")
        }
    }

    @Test func declinedPendingPurchasesAndExternalPurchasesAreHandled() async throws {
        let store = Self.makeStore()
        let updates = store.transactionUpdates()
        store.setOutcome(.pending, for: "gems_500")
        _ = try await store.purchase(productId: "gems_500", appUserId: "u1")
        #expect(store.declinePendingPurchase(productId: "gems_500"))
        #expect(!store.declinePendingPurchase(productId: "gems_500"))
        #expect(store.transactions.isEmpty)
        let external = try store.deliverExternalPurchase(productId: "pro_lifetime", appUserId: "u1")
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == external)
        #expect(store.transactions.first?.reason == .externalPurchase)
    }

    @Test func aSubscriptionWithoutAPeriodIsASetUpError() async throws {
        let broken = Product(
            id: "sub",
            store: .apple,
            type: .autoRenewable,
            displayName: "Sub",
            price: Money(decimalString: "1", currency: "USD")!
        )
        let store = MockStoreClient(store: .google, products: [broken])
        await #expect(throws: MockStoreClientError.invalidSubscriptionPeriod("sub")) {
            try await store.purchase(productId: "sub", appUserId: "u1")
        }
    }

    @Test func theDefaultMinterUsesEachStoresProofKind() async throws {
        let cases: [(Store, Product.ProductType, PurchaseProof.Kind)] = [
            (.google, .autoRenewable, .googleSubscriptionPurchaseToken),
            (.google, .consumable, .googleProductPurchaseToken),
            (.stripe, .consumable, .stripePaymentIntent), (.paypal, .consumable, .paypalOrder),
            (.steam, .consumable, .steamOrder),
        ]
        for (store, type, kind) in cases {
            let product = Product(
                id: "p",
                store: store,
                type: type,
                displayName: "P",
                price: Money(decimalString: "1", currency: "USD")!,
                subscriptionPeriod: type == .autoRenewable ? "P1W" : nil
            )
            let client = MockStoreClient(store: store, products: [product], clock: ManualClock())
            guard case .success(let proof) = try await client.purchase(productId: "p", appUserId: "u") else {
                Issue.record("expected success")
                continue
            }
            #expect(proof.kind == kind)
            #expect(proof.store == store)
        }
    }

    @Test func subscriptionsRenewOnTheTestClockAndStopWhenRenewalIsOff() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_704_067_200))  // 2024-01-01
        let store = Self.makeStore(clock: clock)
        let updates = store.transactionUpdates()
        guard case .success(let first) = try await store.purchase(productId: "pro_monthly", appUserId: "u1") else {
            Issue.record("expected success")
            return
        }
        #expect(store.transactions[0].expirationDate == Date(timeIntervalSince1970: 1_706_745_600))  // 2024-02-01
        #expect(try store.advanceRenewals().isEmpty)

        clock.advance(toDate: Date(timeIntervalSince1970: 1_709_251_200))  // 2024-03-01: two periods ended
        let renewals = try store.advanceRenewals()
        #expect(renewals.count == 2)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == renewals[0])
        #expect(await iterator.next() == renewals[1])
        let latest = try #require(store.transactions.last)
        #expect(latest.reason == .renewal)
        #expect(latest.originalTransactionId == first.transactionId)
        #expect(latest.purchaseDate == Date(timeIntervalSince1970: 1_709_251_200))
        #expect(latest.expirationDate == Date(timeIntervalSince1970: 1_711_929_600))  // 2024-04-01
        #expect(try await store.currentEntitlements() == [renewals[1]])

        store.setWillRenew(false, originalTransactionId: try #require(first.transactionId))
        clock.advance(toDate: Date(timeIntervalSince1970: 1_711_929_600))
        #expect(try store.advanceRenewals().isEmpty)
        #expect(try await store.currentEntitlements().isEmpty)
    }

    @Test func aRefundRevokesAndIsEmitted() async throws {
        let store = Self.makeStore()
        let updates = store.transactionUpdates()
        guard case .success(let proof) = try await store.purchase(productId: "pro_lifetime", appUserId: "u1") else {
            Issue.record("expected success")
            return
        }
        let refunded = try store.refund(transactionId: try #require(proof.transactionId))
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == refunded)
        #expect(store.transactions.first?.isRefunded == true)
        #expect(store.transactions.first?.reason == .refund)
        #expect(try await store.currentEntitlements().isEmpty)
        #expect(throws: MockStoreClientError.unknownTransaction("42")) { try store.refund(transactionId: "42") }
    }

    @Test func theAppleMinterProducesSignedTransactionsThatVerify() async throws {
        let ca = TestKeys.appleCA
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_704_067_200))
        let store = Self.makeStore(clock: clock, minter: ca.transactionMinter(bundleId: "dev.opencat.demo"))
        let appUserId = "8D6B5F0A-2C3E-4B8E-9B7A-1F2E3D4C5B6A"
        guard case .success(let proof) = try await store.purchase(productId: "pro_monthly", appUserId: appUserId) else {
            Issue.record("expected success")
            return
        }
        #expect(proof.kind == .appleSignedTransaction)
        let (_, payloadData, signature, input) = try MockAppleCATests.parts(proof.token.revealed)
        #expect(
            ca.leafPublicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input)
        )
        let payload = try JSONValue(parsing: payloadData)
        #expect(payload["transactionId"] == .string(try #require(proof.transactionId)))
        #expect(payload["bundleId"] == "dev.opencat.demo")
        #expect(payload["type"] == "Auto-Renewable Subscription")
        #expect(payload["price"] == 9990)
        #expect(payload["purchaseDate"] == 1_704_067_200_000)
        #expect(payload["expiresDate"] == 1_706_745_600_000)
        #expect(payload["signedDate"] == 1_704_067_200_000)
        #expect(payload["environment"] == "Sandbox")
        #expect(payload["appAccountToken"] == .string(appUserId.lowercased()))
    }
}

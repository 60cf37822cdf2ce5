import OpenCatCore
import ServerVerification
import StoreAdapters
import Testing

/// The gate over a stub adapter: every store answer and every shared error code becomes one decision.
struct PurchaseGateTests {
    static let proof = PurchaseProof(store: .stripe, kind: .stripePaymentIntent, token: Secret("pi_example_0001"))

    /// An adapter that answers a purchase of `productId` in `state`, and checks what the gate asked for as a real
    /// adapter does.
    static func gate(selling productId: String = "gems_500", state: VerifiedPurchase.State = .active) -> PurchaseGate {
        PurchaseGate(
            adapter: StubStoreAdapter { proof in
                guard proof.productId == productId else { throw StubStoreAdapter.error(.productMismatch) }
                if let expected = proof.expectedPurchaser, expected != "player-42" {
                    throw StubStoreAdapter.error(.purchaserMismatch)
                }
                return StubStoreAdapter.purchase(productId, state: state)
            }
        )
    }

    @Test func aPaidPurchaseOfTheProductUnlocksIt() async throws {
        let decision = await Self.gate().decide(Self.proof, unlocks: "gems_500", purchaser: "player-42")
        #expect(decision.isUnlocked)
        let purchase = try #require(decision.unlockedPurchase)
        #expect(purchase.productId == "gems_500")
        #expect(purchase.price == Money(decimalString: "4.99", currency: "EUR"))
        #expect(decision == .unlocked(purchase))
    }

    @Test func theGateAsksTheStoreAboutTheProductItUnlocks() async {
        let decision = await Self.gate(selling: "gems_500").decide(Self.proof, unlocks: "gems_100")
        #expect(decision == .refused(.otherProduct))
        #expect(!decision.isUnlocked)
    }

    @Test func aPurchaseByAnotherAccountIsRefused() async {
        let decision = await Self.gate().decide(Self.proof, unlocks: "gems_500", purchaser: "player-7")
        #expect(decision == .refused(.otherPurchaser))
    }

    @Test func anAdapterThatChecksNothingStillCannotUnlockAnotherProductOrBuyer() async {
        let lax = PurchaseGate(adapter: StubStoreAdapter { _ in StubStoreAdapter.purchase("gems_100") })
        #expect(await lax.decide(Self.proof, unlocks: "gems_500") == .refused(.otherProduct))
        #expect(await lax.decide(Self.proof, unlocks: "gems_100", purchaser: "player-7") == .refused(.otherPurchaser))
        #expect(await lax.decide(Self.proof, unlocks: "gems_100", purchaser: "player-42").isUnlocked)
    }

    @Test(arguments: [VerifiedPurchase.State.active, .gracePeriod])
    func accessHoldsWhilePaidOrInTheGracePeriod(state: VerifiedPurchase.State) async {
        let decision = await Self.gate(state: state).decide(Self.proof, unlocks: "gems_500")
        #expect(decision.isUnlocked)
        #expect(decision.unlockedPurchase?.state == state)
    }

    @Test func aPendingPaymentUnlocksNothingYet() async {
        let decision = await Self.gate(state: .pending).decide(Self.proof, unlocks: "gems_500")
        #expect(decision == .pending)
        #expect(!decision.isUnlocked)
    }

    @Test(arguments: [VerifiedPurchase.State.refunded, .expired, .billingRetry])
    func aGenuinePurchaseThatNoLongerGrantsIsRevoked(state: VerifiedPurchase.State) async {
        let decision = await Self.gate(state: state).decide(Self.proof, unlocks: "gems_500")
        #expect(decision == .revoked(state))
        #expect(!decision.isUnlocked)
    }

    /// Each shared error code and the decision it maps to (`rateLimited` has its own test: it carries a delay).
    static let errorDecisions: [(StoreAdapterError.Code, PurchaseDecision)] = [
        (.invalidProof, .refused(.notGenuine)),
        (.wrongApplication, .refused(.otherApplication)),
        (.productMismatch, .refused(.otherProduct)),
        (.notFound, .refused(.unknownPurchase)),
        (.notPaid, .refused(.notPaid)),
        (.purchaserMismatch, .refused(.otherPurchaser)),
        (.sandboxNotAccepted, .refused(.testPurchase)),
        (.storeUnavailable, .retryLater(after: nil)),
        (.timeout, .retryLater(after: nil)),
        (.network, .retryLater(after: nil)),
        (.unauthorized, .serviceError(.unauthorized)),
        (.misconfigured, .serviceError(.misconfigured)),
        (.malformedResponse, .serviceError(.malformedResponse)),
        // Codes of store operations (refunds, cancellations), not of verifying: still a service error, never an unlock.
        (.unsupported, .serviceError(.unsupported)),
        (.alreadyDone, .serviceError(.alreadyDone)),
    ]

    @Test(arguments: errorDecisions)
    func eachStoreErrorBecomesOneDecision(code: StoreAdapterError.Code, expected: PurchaseDecision) async {
        let failing = PurchaseGate(adapter: StubStoreAdapter { _ in throw StubStoreAdapter.error(code) })
        let decision = await failing.decide(Self.proof, unlocks: "gems_500")
        #expect(decision == expected)
        #expect(!decision.isUnlocked)
        #expect(!decision.message.isEmpty)
    }

    @Test func everySharedCodeIsMapped() {
        var mapped = Set(Self.errorDecisions.map { $0.0 })
        mapped.insert(.rateLimited)
        #expect(mapped == Set(StoreAdapterError.Code.all))
    }

    @Test func aRateLimitCarriesTheStoresDelay() async {
        let limited = PurchaseGate(
            adapter: StubStoreAdapter { _ in throw StubStoreAdapter.error(.rateLimited, retryAfter: .seconds(30)) }
        )
        #expect(await limited.decide(Self.proof, unlocks: "gems_500") == .retryLater(after: .seconds(30)))
    }

    @Test func anErrorOutsideTheAdapterContractUnlocksNothing() async {
        struct Unexpected: Error {}
        let broken = PurchaseGate(adapter: StubStoreAdapter { _ in throw Unexpected() })
        #expect(await broken.decide(Self.proof, unlocks: "gems_500") == .serviceError(nil))
    }
}

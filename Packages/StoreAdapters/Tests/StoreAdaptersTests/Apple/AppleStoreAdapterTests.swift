import Foundation
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

struct AppleStoreAdapterTests {
    /// One chain for the whole suite (minting is cheap, but one chain also exercises the cache across tests).
    static let chain = try! TestAppleChain()

    /// An adapter whose clock reads `now` (default: one hour after the test payloads were signed).
    private func adapter(
        now: Date = AppleTestValues.signedDate.addingTimeInterval(3_600),
        environment: VerifiedPurchase.Environment? = nil,
        validationTime: AppleJWSVerifier.ValidationTime = .signedDate
    ) -> AppleStoreAdapter {
        AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                environment: environment,
                validationTime: validationTime,
                httpClient: .scripted(
                    ScriptedTransport(),
                    clock: ManualClock(start: now, autoAdvance: true, holdsDuringExternalWork: true)
                )
            )
        )
    }

    private func proof(_ jws: String, productId: String? = nil) -> PurchaseProof {
        PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws), productId: productId)
    }

    @Test func anActiveSubscriptionMapsEveryField() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let purchase = try await adapter().verify(proof(jws, productId: "dev.opencat.pro.monthly"))

        #expect(purchase.store == .apple)
        #expect(purchase.state == .active)
        #expect(purchase.transactionId == "2000000123456789")
        #expect(purchase.originalTransactionId == "2000000000000001")
        #expect(purchase.productId == "dev.opencat.pro.monthly")
        #expect(purchase.purchaser == AppleTestValues.appAccountToken.lowercased())
        #expect(purchase.purchaseDate == AppleTestValues.signedDate.addingTimeInterval(-3_600))
        #expect(purchase.expirationDate == AppleTestValues.signedDate.addingTimeInterval(86_400))
        #expect(purchase.environment == .production)
        #expect(purchase.quantity == 1)
        #expect(purchase.price == Money(amount: Decimal(string: "9.99")!, currency: "USD"))
        #expect(purchase.price?.minorUnits(exponent: 2) == 999)
        #expect(purchase.refundedAmount == nil)
        #expect(purchase.verifiedAt == AppleTestValues.signedDate)
        #expect(purchase.finalizedByAdapter == false)
    }

    @Test func aSubscriptionPastItsExpiryIsExpired() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let purchase = try await adapter(now: AppleTestValues.signedDate.addingTimeInterval(2 * 86_400)).verify(
            proof(jws)
        )
        #expect(purchase.state == .expired)
    }

    @Test func aPurchaseWithoutExpiryIsActive() async throws {
        var transaction = AppleTestValues.transaction(expiresDate: nil)
        transaction.rawType = "Non-Consumable"
        let purchase = try await adapter(now: Date(timeIntervalSince1970: 1_900_000_000))
            .verify(proof(try Self.chain.sign(transaction)))
        #expect(purchase.state == .active)
        #expect(purchase.expirationDate == nil)
    }

    @Test func aRevocationDateMeansRefunded() async throws {
        var transaction = AppleTestValues.transaction(
            revocationDate: AppleTestValues.signedDate.addingTimeInterval(-60)
        )
        transaction.rawRevocationReason = 1
        transaction.rawRevocationType = "REFUND_FULL"
        let purchase = try await adapter().verify(proof(try Self.chain.sign(transaction)))
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(amount: Decimal(string: "9.99")!, currency: "USD"))
        #expect(purchase.willRenew == false)
    }

    @Test func aProratedRefundReportsTheRefundedShareExactly() async throws {
        var transaction = AppleTestValues.transaction(revocationDate: AppleTestValues.signedDate)
        transaction.rawRevocationType = "REFUND_PRORATED"
        transaction.revocationPercentage = 40_000  // 40 %
        let purchase = try await adapter().verify(proof(try Self.chain.sign(transaction)))
        #expect(purchase.state == .refunded)
        #expect(purchase.refundedAmount == Money(amount: Decimal(string: "3.996")!, currency: "USD"))
    }

    @Test func anExpiredSubscriptionInItsGracePeriodIsGracePeriod() async throws {
        let now = AppleTestValues.signedDate.addingTimeInterval(2 * 86_400)
        let grace = AppleTestValues.signedDate.addingTimeInterval(7 * 86_400)
        let purchase = try await adapter(now: now).verifySignedTransaction(
            Secret(try Self.chain.sign(AppleTestValues.transaction())),
            signedRenewalInfo: Secret(
                try Self.chain.sign(
                    AppleTestValues.renewalInfo(isInBillingRetryPeriod: true, gracePeriodExpiresDate: grace)
                )
            )
        )
        #expect(purchase.state == .gracePeriod)
        #expect(purchase.gracePeriodExpirationDate == grace)
        #expect(purchase.willRenew)
    }

    @Test func anExpiredSubscriptionInBillingRetryIsBillingRetry() async throws {
        let now = AppleTestValues.signedDate.addingTimeInterval(10 * 86_400)
        let endedGrace = AppleTestValues.signedDate.addingTimeInterval(7 * 86_400)
        let purchase = try await adapter(now: now).verifySignedTransaction(
            Secret(try Self.chain.sign(AppleTestValues.transaction())),
            signedRenewalInfo: Secret(
                try Self.chain.sign(
                    AppleTestValues.renewalInfo(isInBillingRetryPeriod: true, gracePeriodExpiresDate: endedGrace)
                )
            )
        )
        #expect(purchase.state == .billingRetry)
    }

    @Test func anExpiredSubscriptionWithoutRetryIsExpiredAndDoesNotRenew() async throws {
        let purchase = try await adapter(now: AppleTestValues.signedDate.addingTimeInterval(2 * 86_400))
            .verifySignedTransaction(
                Secret(try Self.chain.sign(AppleTestValues.transaction())),
                signedRenewalInfo: Secret(try Self.chain.sign(AppleTestValues.renewalInfo(autoRenewStatus: 0)))
            )
        #expect(purchase.state == .expired)
        #expect(purchase.willRenew == false)
    }

    @Test(arguments: ["Sandbox", "Xcode", "LocalTesting", "SomeFutureEnvironment"])
    func everyEnvironmentButProductionIsSandbox(_ environment: String) async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction(environment: environment))
        let purchase = try await adapter().verify(proof(jws))
        #expect(purchase.environment == .sandbox)
    }

    @Test func aTransactionForAnotherBundleIdIsWrongApplication() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction(bundleId: "com.example.other"))
        let error = await appleStoreError { try await adapter().verify(proof(jws)) }
        #expect(error?.code == .wrongApplication)
        #expect(error?.storeReason == "bundleIdMismatch")
    }

    @Test func aSandboxTransactionIsRejectedWhenOnlyProductionIsAccepted() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction(environment: "Sandbox"))
        let error = await appleStoreError { try await adapter(environment: .production).verify(proof(jws)) }
        #expect(error?.code == .wrongApplication)
        #expect(error?.storeReason == "environmentMismatch")
    }

    @Test func aTransactionForAnotherProductIsProductMismatch() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let error = await appleStoreError { try await adapter().verify(proof(jws, productId: "dev.opencat.lifetime")) }
        #expect(error?.code == .productMismatch)
    }

    @Test func aBadSignatureThroughTheAdapterIsInvalidProof() async throws {
        let impostor = try TestAppleChain()
        let jws = try impostor.sign(AppleTestValues.transaction(), x5c: try Self.chain.x5c())
        let error = await appleStoreError { try await adapter().verify(proof(jws)) }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "invalidSignature")
    }

    @Test func anExpiredLeafAtNowIsInvalidProofThroughTheAdapter() async throws {
        let shortLived = try TestAppleChain(leafNotAfter: Date(timeIntervalSince1970: 1_704_067_200))
        let adapter = AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [shortLived.root],
                validationTime: .now,
                httpClient: .scripted(
                    ScriptedTransport(),
                    clock: ManualClock(start: Date(timeIntervalSince1970: 1_735_689_600))
                )
            )
        )
        let error = await appleStoreError {
            try await adapter.verify(proof(try shortLived.sign(AppleTestValues.transaction())))
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "certificateExpired")
    }

    @Test func aTransactionWithoutAnIdIsInvalidProof() async throws {
        var transaction = AppleTestValues.transaction()
        transaction.transactionId = nil
        let error = await appleStoreError { try await adapter().verify(proof(try Self.chain.sign(transaction))) }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "missing:transactionId")
    }

    @Test func renewalInfoOfAnotherSubscriptionIsRejected() async throws {
        let error = await appleStoreError {
            try await adapter().verifySignedTransaction(
                Secret(try Self.chain.sign(AppleTestValues.transaction())),
                signedRenewalInfo: Secret(
                    try Self.chain.sign(AppleTestValues.renewalInfo(originalTransactionId: "999"))
                )
            )
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "renewalInfoMismatch")
    }

    @Test func aProofOfAnotherKindOrStoreIsRejected() async throws {
        let wrongKind = PurchaseProof(store: .apple, kind: .googleProductPurchaseToken, token: "token")
        #expect(await appleStoreError { try await adapter().verify(wrongKind) }?.storeReason == "unsupportedProofKind")
        let wrongStore = PurchaseProof(store: .google, kind: .appleSignedTransaction, token: "token")
        #expect(await appleStoreError { try await adapter().verify(wrongStore) }?.storeReason == "wrongStore")
    }

    @Test func theAdapterServesOpenCatCoresStandaloneVerifier() async throws {
        let verifier = AdapterPurchaseVerifier([adapter()])
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let verified = try await verifier.verifyPurchase(proof(jws))
        #expect(verified.transaction.transactionId == "2000000123456789")
        #expect(verified.transaction.status == .active)
    }

    @Test func aFixedValidationTimeIsAlsoTheReferenceForExpiry() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let later = AppleTestValues.signedDate.addingTimeInterval(2 * 86_400)
        let purchase = try await adapter(validationTime: .fixed(later)).verify(proof(jws))
        #expect(purchase.state == .expired)
    }
}

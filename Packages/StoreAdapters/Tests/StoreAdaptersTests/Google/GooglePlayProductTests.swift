import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

struct GooglePlayProductTests {
    typealias Support = GoogleTestSupport

    private func harness(acknowledge: Bool = true, product: String) throws -> GoogleTestSupport.Harness {
        let harness = try Support.harness(acknowledge: acknowledge)
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.productPath("coins_100"), json: product)
        return harness
    }

    @Test func aPurchasedProductIsActiveWithItsOrderPurchaserAndDate() async throws {
        let harness = try harness(product: Support.productPurchase(quantity: 3))
        let purchase = try await harness.adapter.verify(Support.productProof())

        #expect(purchase.store == .google)
        #expect(purchase.state == .active)
        #expect(purchase.transactionId == "GPA.3301-2222-3333-44444")
        #expect(purchase.productId == "coins_100")
        #expect(purchase.purchaser == "acct-7f3a")
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(purchase.environment == .production)
        #expect(purchase.quantity == 3)
        #expect(purchase.expirationDate == nil)
        #expect(purchase.finalizedByAdapter == false)
        #expect(purchase.storeStatus == "purchased")
        #expect(purchase.verifiedAt == nil)  // no Date header: never the device clock

        let request = try #require(harness.transport.requests(matching: "/purchases/products/").first)
        #expect(request.request.method == .get)
        #expect(request.request.authority == "androidpublisher.test.invalid")
        #expect(request.request.headerFields[.authorization] == "Bearer \(Support.accessToken)")
    }

    @Test func purchaseTimeMillisIsReadAsAStringOrANumber() async throws {
        let harness = try harness(product: Support.productPurchase(millis: 1_410_835_105_408, millisAsNumber: true))
        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_410_835_105.408))
    }

    @Test func aPendingProductIsPending() async throws {
        let harness = try harness(product: Support.productPurchase(state: 2, acknowledgement: 0))
        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(purchase.state == .pending)
        #expect(purchase.storeStatus == "pending")
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aCanceledProductIsNotPaid() async throws {
        let harness = try harness(product: Support.productPurchase(state: 1))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .notPaid)
        #expect(error?.storeReason == "purchaseState=1")
    }

    @Test func anUnknownPurchaseStateIsAMalformedResponse() async throws {
        let harness = try harness(product: Support.productPurchase(state: 7))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.storeReason == "purchaseState=7")
    }

    @Test(arguments: [(0, VerifiedPurchase.Environment.sandbox), (1, .production), (2, .production)])
    func onlyLicenseTesterPurchasesAreSandbox(purchaseType: Int, environment: VerifiedPurchase.Environment) async throws
    {
        let harness = try harness(product: Support.productPurchase(purchaseType: purchaseType, orderId: nil))
        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(purchase.environment == environment)
        // Without an orderId, the transaction id is the proof's stable fingerprint, never the token itself.
        #expect(purchase.transactionId == Support.productProof().fingerprint)
        #expect(!purchase.transactionId.contains(Support.purchaseToken))
    }

    @Test func anUnacknowledgedPurchaseIsAcknowledgedOnceAndNotOnTheNextVerification() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(
            .get,
            Support.productPath("coins_100"),
            times: 1,
            json: Support.productPurchase(acknowledgement: 0)
        )
        harness.transport.on(.get, Support.productPath("coins_100"), json: Support.productPurchase(acknowledgement: 1))
        harness.transport.on(.post, Support.productPath("coins_100") + ":acknowledge", times: 1, json: "")

        let first = try await harness.adapter.verify(Support.productProof())
        #expect(first.finalizedByAdapter)
        #expect(first.state == .active)
        let second = try await harness.adapter.verify(Support.productProof())
        #expect(!second.finalizedByAdapter)

        let acks = harness.transport.requests(matching: ":acknowledge")
        #expect(acks.count == 1)
        #expect(acks.first?.request.method == .post)
        #expect(acks.first?.path == Support.productPath("coins_100") + ":acknowledge")
        #expect(acks.first?.request.headerFields[.authorization] == "Bearer \(Support.accessToken)")
        #expect(acks.first?.request.headerFields[.contentType] == "application/json")
        #expect(acks.first?.bodyText == "{}")
    }

    @Test func acknowledgementCanBeTurnedOff() async throws {
        let harness = try harness(acknowledge: false, product: Support.productPurchase(acknowledgement: 0))
        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(purchase.state == .active)
        #expect(!purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aConsumedPurchaseIsNotAcknowledgedAgain() async throws {
        let harness = try harness(product: Support.productPurchase(acknowledgement: 0, consumption: 1))
        let purchase = try await harness.adapter.verify(Support.productProof())
        #expect(!purchase.finalizedByAdapter)
        #expect(harness.transport.requests(matching: ":acknowledge").isEmpty)
    }

    @Test func aFailedAcknowledgementFailsTheVerification() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        harness.transport.on(.get, Support.productPath("coins_100"), json: Support.productPurchase(acknowledgement: 0))
        harness.transport.on(
            .post,
            Support.productPath("coins_100") + ":acknowledge",
            status: 503,
            json: Support.errorEnvelope(code: 503, reason: "backendError", status: "UNAVAILABLE")
        )
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .storeUnavailable)
        #expect(error?.storeReason == "backendError")
    }

    @Test func aResponseNamingAnotherProductIsAProductMismatch() async throws {
        let harness = try harness(product: Support.productPurchase(productId: "gems_500"))
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .productMismatch)
    }

    @Test func aProofForAnotherPackageIsTheWrongApplication() async throws {
        let harness = try Support.harness()
        let proof = Support.productProof(context: ["packageName": "com.example.other"])
        let error = await #expect(throws: StoreAdapterError.self) { try await harness.adapter.verify(proof) }
        #expect(error?.code == .wrongApplication)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func aProofOfAnotherKindOrStoreIsAnInvalidProof() async throws {
        let harness = try Support.harness()
        let wrongKind = PurchaseProof(
            store: .google,
            kind: .stripePaymentIntent,
            token: "pi_123",
            productId: "coins_100"
        )
        let wrongStore = PurchaseProof(
            store: .apple,
            kind: .googleProductPurchaseToken,
            token: "x",
            productId: "coins_100"
        )
        let empty = Support.productProof(token: "")
        for proof in [wrongKind, wrongStore, empty] {
            let error = await #expect(throws: StoreAdapterError.self) { try await harness.adapter.verify(proof) }
            #expect(error?.code == .invalidProof)
        }
        #expect(harness.transport.requests.isEmpty)
    }

    @Test func pathSegmentsArePercentEncoded() async throws {
        let harness = try Support.harness()
        harness.transport.on(.post, Support.tokenPath, json: Support.tokenResponse())
        let token = "a/b?c#d"
        harness.transport.on(
            .get,
            Support.productPath("coins_100", token: "a%2Fb%3Fc%23d"),
            json: Support.productPurchase()
        )
        let purchase = try await harness.adapter.verify(Support.productProof(token: token))
        #expect(purchase.state == .active)
    }

    @Test func anUnreadableBodyIsAMalformedResponse() async throws {
        let harness = try harness(product: #"{"purchaseState":"zero"}"#)
        let error = await #expect(throws: StoreAdapterError.self) {
            try await harness.adapter.verify(Support.productProof())
        }
        #expect(error?.code == .malformedResponse)
    }
}

import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// ``VerifiedPurchase/requireEnvironment(in:)``: a genuine test purchase is refused where only real money counts.
struct EnvironmentRequirementTests {
    static func purchase(_ environment: VerifiedPurchase.Environment, store: Store = .stripe) -> VerifiedPurchase {
        VerifiedPurchase(
            store: store,
            transactionId: "txn-env-1",
            productId: "gems_500",
            purchaseDate: Date(timeIntervalSince1970: 1_700_000_000),
            state: .active,
            environment: environment
        )
    }

    @Test func aProductionPurchaseIsAcceptedWhereOnlyProductionCounts() throws {
        try Self.purchase(.production).requireEnvironment(in: [.production])
    }

    @Test func aSandboxPurchaseIsRefusedWhereOnlyProductionCounts() throws {
        let error = try #require(throws: StoreAdapterError.self) {
            try Self.purchase(.sandbox).requireEnvironment(in: [.production])
        }
        #expect(error.code == .sandboxNotAccepted)
        #expect(error.code.rawValue == "sandboxNotAccepted")
        #expect(error.store == .stripe)
        #expect(error.storeReason == "sandbox")
        #expect(error.message.contains("sandbox environment"))
        #expect(error.message.contains("accepted: production"))
        #expect(!error.description.contains("txn-env-1"))
    }

    @Test func aStagingServerAcceptsBoth() throws {
        try Self.purchase(.sandbox).requireEnvironment(in: [.production, .sandbox])
        try Self.purchase(.production).requireEnvironment(in: [.production, .sandbox])
    }

    @Test func anEmptySetAcceptsNothing() throws {
        let error = try #require(throws: StoreAdapterError.self) {
            try Self.purchase(.production).requireEnvironment(in: [])
        }
        #expect(error.code == .sandboxNotAccepted && error.message.contains("accepted: none"))
    }

    @Test func theCodeIsAmongTheSharedCodes() {
        #expect(StoreAdapterError.Code.all.contains(.sandboxNotAccepted))
    }

    @Test func aGoogleLicenseTesterPurchaseIsSandboxAndRefusedInProduction() async throws {
        let harness = try GoogleTestSupport.harness()
        harness.transport.on(.post, GoogleTestSupport.tokenPath, json: GoogleTestSupport.tokenResponse())
        harness.transport.on(
            .get,
            GoogleTestSupport.productPath("coins_100"),
            json: GoogleTestSupport.productPurchase(purchaseType: 0)
        )
        let purchase = try await harness.adapter.verify(GoogleTestSupport.productProof())
        #expect(purchase.environment != .production)
        let error = try #require(throws: StoreAdapterError.self) {
            try purchase.requireEnvironment(in: [.production])
        }
        #expect(error.code == .sandboxNotAccepted && error.store == .google)
        #expect(!error.description.contains(GoogleTestSupport.purchaseToken))
    }
}

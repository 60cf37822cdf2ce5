import Foundation
import Hummingbird
import HummingbirdTesting
import OpenCatCore
import OpenCatServer
import StoreAdapters
import Testing

/// A store no built-in list names, written against StoreAdapters' public API as an adapter author would (the shape
/// of Examples/AdapterAuthor's `ExampleStoreAdapter`): the server built with it answers `/v1/receipts` for its proofs.
struct SixthStoreTests {
    /// Receipts `rcpt_paid…` are paid for the buyer the proof expects; anything else is refused as the store would.
    struct SixthStoreAdapter: StoreAdapter {
        static let sixth = Store(rawValue: "examplestore")
        static let receiptKind = PurchaseProof.Kind(rawValue: "exampleReceipt")
        var store: Store { Self.sixth }

        func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
            guard proof.kind == Self.receiptKind, proof.token.revealed.hasPrefix("rcpt_paid") else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: store,
                    "unknown receipt",
                    storeReason: "receipt_not_found"
                )
            }
            let buyer = "app-user-6"
            if let expected = proof.expectedPurchaser, expected != buyer {
                throw StoreAdapterError(.purchaserMismatch, store: store, "another buyer's receipt")
            }
            return VerifiedPurchase(
                store: store,
                transactionId: proof.token.revealed,
                productId: ServerFixture.proProduct,
                purchaser: buyer,
                purchaseDate: ServerFixture.signedDate.addingTimeInterval(-60),
                expirationDate: ServerFixture.signedDate.addingTimeInterval(30 * 86_400),
                state: .active,
                environment: .production,
                price: Money(decimalString: "9.99", currency: "USD")
            )
        }
    }

    @Test(arguments: Backend.allCases)
    func aServerBuiltWithASixthStoreAnswersItsReceipts(_ backend: Backend) async throws {
        let api = ServerOpenCatAPITests()
        let clock = TestClock(ServerFixture.signedDate)
        try await backend.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock, stores: [SixthStoreAdapter()])
            try await Application(router: fixture.server.router()).test(.router) { client in
                var receipt: [String: Any] = [
                    "appUserId": "app-user-6", "store": "examplestore", "kind": "exampleReceipt", "proof": "rcpt_paid1",
                ]
                let (status, answer) = try await api.post(client, "/v1/receipts", receipt)
                #expect(status == .ok)
                #expect(api.transactions(answer).first?["store"] as? String == "examplestore")
                let map = (answer["subscriber"] as? [String: Any])?["entitlementMap"] as? [String: [String]]
                #expect(map == [ServerFixture.proProduct: ["pro"]])
                // Another app user posting the buyer's receipt: the adapter is asked for its buyer and refuses.
                receipt["appUserId"] = "app-user-7"
                receipt["proof"] = "rcpt_paid2"
                let (stolen, stolenAnswer) = try await api.post(client, "/v1/receipts", receipt)
                #expect(stolen == .unprocessableContent)
                #expect((stolenAnswer["error"] as? [String: Any])?["reason"] as? String == "purchaserMismatch")
                // A forged receipt is refused with the shared code.
                receipt["appUserId"] = "app-user-6"
                receipt["proof"] = "rcpt_forged"
                let (forged, forgedAnswer) = try await api.post(client, "/v1/receipts", receipt)
                #expect(forged == .unprocessableContent)
                #expect((forgedAnswer["error"] as? [String: Any])?["reason"] as? String == "invalidProof")
            }
        }
    }
}

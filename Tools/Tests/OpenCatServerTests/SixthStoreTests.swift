import Foundation
import Hummingbird
import HummingbirdTesting
import KeyServerClient
import OpenCatCore
import OpenCatServer
import StoreAdapters
import Testing

/// A store no built-in list names, written against StoreAdapters' public API as an adapter author would (the shape
/// of Examples/AdapterAuthor's `ExampleStoreAdapter`): the server built with it sells key packs through it and
/// answers `/v1/receipts` for its proofs, with no change to the server.
@Suite(.serialized)
struct SixthStoreTests {
    /// Receipts read `rcpt_<paid|pack>.<buyer>.<n>`: paid for that buyer, the pro subscription or the key pack.
    /// The adapter checks the buyer the server expects, as a real store's adapter checks the store's answer.
    struct SixthStoreAdapter: StoreAdapter {
        static let sixth = Store(rawValue: "examplestore")
        static let receiptKind = PurchaseProof.Kind(rawValue: "exampleReceipt")
        var store: Store { Self.sixth }

        func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
            let parts = proof.token.revealed.split(separator: ".").map(String.init)
            guard proof.kind == Self.receiptKind, parts.count == 3, ["rcpt_paid", "rcpt_pack"].contains(parts[0]) else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: store,
                    "unknown receipt",
                    storeReason: "receipt_not_found"
                )
            }
            if let expected = proof.expectedPurchaser, expected != parts[1] {
                throw StoreAdapterError(.purchaserMismatch, store: store, "another buyer's receipt")
            }
            let pack = parts[0] == "rcpt_pack"
            return VerifiedPurchase(
                store: store,
                transactionId: proof.token.revealed,
                productId: pack ? ServerFixture.packProduct : ServerFixture.proProduct,
                purchaser: parts[1],
                purchaseDate: ServerFixture.signedDate.addingTimeInterval(-60),
                expirationDate: pack ? nil : ServerFixture.signedDate.addingTimeInterval(30 * 86_400),
                state: .active,
                environment: .production,
                price: Money(decimalString: "9.99", currency: "USD")
            )
        }
    }

    static func proof(_ token: String) -> PurchaseProof {
        PurchaseProof(store: SixthStoreAdapter.sixth, kind: SixthStoreAdapter.receiptKind, token: Secret(token))
    }

    @Test(arguments: Backend.allCases)
    func aServerBuiltWithASixthStoreSellsKeyPacksThroughIt(_ backend: Backend) async throws {
        let keys = ServerKeyServerTests()
        try await keys.withServer(
            backend,
            configure: { ledger, clock in
                try ServerFixture(ledger: ledger, clock: clock, stores: [SixthStoreAdapter()])
            }
        ) { _, urls in
            let ada = keys.client(urls[0], user: 1)
            let bought = try await ada.purchaseKeyPack(Self.proof("rcpt_pack.user-1.1"), email: "user1@example.com")
            #expect(bought.keysAdded == 10)
            #expect(bought.licenses.count == 2)
            // The retry is the same purchase; another user cannot redeem the buyer's receipt.
            #expect(
                try await ada.purchaseKeyPack(Self.proof("rcpt_pack.user-1.1"), email: "user1@example.com").keysAdded
                    == 10
            )
            let bob = keys.client(urls[0], user: 2)
            let stolen = await #expect(throws: KeyServerError.self) {
                try await bob.purchaseKeyPack(Self.proof("rcpt_pack.user-1.2"), email: "user2@example.com")
            }
            #expect(stolen?.serverCode == "invalid_receipt")
            #expect(try await ada.walletBalance(userId: "user-1").balance == 12)
            #expect(try await bob.walletBalance(userId: "user-2").balance == 0)
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
                    "appUserId": "app-user-6", "store": "examplestore", "kind": "exampleReceipt",
                    "proof": "rcpt_paid.app-user-6.1",
                ]
                let (status, answer) = try await api.post(client, "/v1/receipts", receipt)
                #expect(status == .ok)
                #expect(api.transactions(answer).first?["store"] as? String == "examplestore")
                let map = (answer["subscriber"] as? [String: Any])?["entitlementMap"] as? [String: [String]]
                #expect(map == [ServerFixture.proProduct: ["pro"]])
                // Another app user posting the buyer's receipt: the adapter is asked for its buyer and refuses.
                receipt["appUserId"] = "app-user-7"
                receipt["proof"] = "rcpt_paid.app-user-6.2"
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

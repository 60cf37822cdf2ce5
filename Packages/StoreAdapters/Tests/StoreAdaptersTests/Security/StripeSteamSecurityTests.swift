import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// Security issue items 10 and 12 for Stripe and Steam.
struct StripeSteamSecurityTests {
    static let storeDate = "Wed, 15 Nov 2023 08:00:00 GMT"
    private let stripePath = "/stripe/v1/payment_intents/\(StripeTestFixtures.paymentIntentId)"

    private func stripe(
        metadata: [String: String] = ["product_id": "pro.monthly", "app_user_id": "user-42"],
        headers: [String: String] = ["Date": storeDate],
        expectedPurchaser: String? = nil
    ) async -> Result<VerifiedPurchase, StoreAdapterError> {
        let transport = ScriptedTransport()
        transport.on(.get, stripePath, headers: headers, json: StripeTestFixtures.paymentIntent(metadata: metadata))
        var proof = StripeTestFixtures.proof()
        proof.expectedPurchaser = expectedPurchaser
        do {
            return .success(try await StripeTestFixtures.adapter(transport).verify(proof))
        } catch {
            return .failure(error as? StoreAdapterError ?? StoreAdapterError(.network, store: .stripe, "\(error)"))
        }
    }

    @Test func stripeVerifiedAtIsStripesDateHeader() async throws {
        #expect(try await stripe().get().verifiedAt == HTTPDate.parse(Self.storeDate))
        #expect(try await stripe(headers: [:]).get().verifiedAt == nil)
    }

    @Test func stripePurchaserMetadataMustMatch() async throws {
        #expect(try await stripe(expectedPurchaser: "user-42").get().purchaser == "user-42")
        guard case .failure(let other) = await stripe(expectedPurchaser: "user-7") else {
            Issue.record("accepted another purchaser")
            return
        }
        #expect(other.code == .purchaserMismatch)
        #expect(other.storeReason == "metadata.app_user_id")
        guard
            case .failure(let missing) = await stripe(
                metadata: ["product_id": "pro.monthly"],
                expectedPurchaser: "user-42"
            )
        else {
            Issue.record("accepted a purchase without a purchaser")
            return
        }
        #expect(missing.code == .purchaserMismatch)
    }

    private func steam(
        status: String = "Succeeded",
        headers: [String: String] = ["Date": storeDate],
        expectedPurchaser: String? = nil
    ) async -> (Result<VerifiedPurchase, StoreAdapterError>, SteamTestSupport.Harness) {
        let harness = SteamTestSupport.harness()
        harness.transport.on(
            .get,
            SteamTestSupport.queryPath,
            headers: headers,
            json: SteamTestSupport.query(status: status)
        )
        harness.transport.on(.post, SteamTestSupport.finalizePath, json: SteamTestSupport.finalized)
        var proof = SteamTestSupport.orderProof()
        proof.expectedPurchaser = expectedPurchaser
        do {
            return (.success(try await harness.adapter.verify(proof)), harness)
        } catch {
            return (
                .failure(error as? StoreAdapterError ?? StoreAdapterError(.network, store: .steam, "\(error)")), harness
            )
        }
    }

    @Test func steamVerifiedAtIsQueryTxnsDateHeader() async throws {
        let (result, harness) = await steam()
        #expect(try result.get().verifiedAt == HTTPDate.parse(Self.storeDate))
        #expect(try result.get().verifiedAt != harness.clock.currentDate)
        #expect(try await steam(headers: [:]).0.get().verifiedAt == nil)
    }

    @Test func steamIdMustMatchAndIsCheckedBeforeFinalizing() async throws {
        #expect(
            try await steam(expectedPurchaser: SteamTestSupport.steamId).0.get().purchaser == SteamTestSupport.steamId
        )
        let (other, harness) = await steam(status: "Approved", expectedPurchaser: "76561197960000000")
        guard case .failure(let error) = other else {
            Issue.record("accepted another steamid")
            return
        }
        #expect(error.code == .purchaserMismatch)
        #expect(harness.transport.requests(matching: "FinalizeTxn").isEmpty)
    }
}
